/* testutil.h - helpers for the tests that run the fbripple binary and look at its output. */
#ifndef FBRIPPLE_TESTUTIL_H
#define FBRIPPLE_TESTUTIL_H

/* Built with AddressSanitizer (gcc or clang): its shadow memory counts as the process's. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif

#include <stddef.h>
#include <stdint.h>

#include "cpu.h"
#include "image.h"

/* The next 32 bits of one repeatable xorshift sequence per test program. */
uint32_t tu_random(void);

/* The vector paths this build and CPU can run (scalar excluded), into paths; how many. */
int tu_vector_paths(enum cpu_simd *paths);

/* A fresh directory under $TMPDIR, and its removal with everything in it. */
char *tu_tmpdir(void);
void tu_rmtree(char *dir);

/* path = dir/name in a static ring of buffers: good for a few at a time. */
const char *tu_path(const char *dir, const char *name);
void tu_write(const char *path, const char *text);

/*
 * Runs $FBRIPPLE_BIN (default ./fbripple) with the NULL-terminated arguments, stdout and
 * stderr captured together into out. Returns the exit status, or 128 + signal.
 */
int tu_run(char *out, size_t outlen, const char *arg, ...) __attribute__((sentinel));

/*
 * Calls fn(ctx, out, outlen) in a child process and returns its result, out filled in by the
 * child; fails the test if the call does not return within timeout_ms (a loader stuck on a
 * FIFO, say), so that a hang shows as a failure with a reason instead of a stuck test run.
 */
typedef int tu_call_fn(void *ctx, char *out, size_t outlen);
int tu_call_bounded(tu_call_fn *fn, void *ctx, char *out, size_t outlen, int timeout_ms);

/* Loads a PNG the test cannot do without (fails the test otherwise). */
void tu_load(struct image *img, const char *path);

static inline uint32_t tu_rgb(const struct image *img, int x, int y)
{
	return img->pixels[(size_t)y * img->width + x] & 0xffffff;
}

#endif
