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

#include <sys/stat.h>

#include "util/cpu.h"
#include "display/display.h"
#include "image/image.h"
#include "water/water.h"

/* The next 32 bits of one repeatable xorshift sequence per test program. */
uint32_t tu_random(void);

/* The vector paths this build and CPU can run (scalar excluded), into paths; how many. */
int tu_vector_paths(enum cpu_simd *paths);

/* water_open on path simd, picked as the daemon picks it: by FBRIPPLE_SIMD. */
void tu_water_open_on(struct water *w, const struct water_engine *engine, enum cpu_simd simd,
		      int screen_width, int screen_height, int cell,
		      const struct water_tuning *tuning);

/* The lock-step runs' storm: every 40 steps the heaviest stone, radius cells wide, in the
 * middle, and rain of them (seed + step picks the drops) for the first 150 steps. */
void tu_disturb(struct water *w, int step, uint64_t seed, int radius);

/* Fails at the first cell, border included, where got and want (a water's stride x height + 2
 * grid of size-byte integers, from its corner) differ, naming label, step, what, x and y. */
void tu_same_grid(const struct water *w, const void *got, const void *want, size_t size,
		  const char *label, int step, const char *what);

/*
 * One engine's lock-step run: on every vector path beside the scalar one, waters of each size
 * (in cells) and variant, walls where variant & 1, disturbed and stepped alike, their live rows
 * and heights compared after every step and then whatever same() adds. The callbacks get a
 * label that names path, size and variant. Some cells must have reached the engine's limit.
 */
struct tu_lockstep {
	const int (*sizes)[2];
	int nsizes, variants, steps;
	void (*open)(struct water *w, enum cpu_simd simd, int width, int height, int variant);
	void (*disturb)(struct water *w, int step, uint64_t seed);
	void (*same)(const struct water *a, const struct water *b, const char *label, int step);
	int (*saturated)(const struct water *w);
};
void tu_lockstep_run(const struct tu_lockstep *run);

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

/* tu_run with the program's address space limited to as_kib KiB, as `ulimit -v` does. */
int tu_run_limited(long as_kib, char *out, size_t outlen, const char *arg, ...)
	__attribute__((sentinel));

/*
 * Calls fn(ctx, out, outlen) in a child process and returns its result, out filled in by the
 * child; fails the test if the call does not return within timeout_ms (a loader stuck on a
 * FIFO, say), so that a hang shows as a failure with a reason instead of a stuck test run.
 */
typedef int tu_call_fn(void *ctx, char *out, size_t outlen);
int tu_call_bounded(tu_call_fn *fn, void *ctx, char *out, size_t outlen, int timeout_ms);

/*
 * The tests of a backend against a device faked in their process (test_fbdev, test_drm).
 * tu_device_file: a regular file of len bytes, name in a fresh directory, to stand for the
 * device; its path (malloc'd), *st its stat. tu_device_file_remove: it and its directory, path
 * freed.
 */
char *tu_device_file(const char *name, size_t len, struct stat *st);
void tu_device_file_remove(char *path);

/* Frame n drawn whole into the buffer d hands out: every pixel n (32 bpp). */
void tu_draw_frame(struct display *d, uint32_t n);

/* Standard error caught in a file while the test looks at what the code under test logs:
 * tu_log_open makes the file, tu_log_start and tu_log_stop send stderr there and back,
 * tu_log_text reads all logged into text (not empty), tu_log_close removes the file. */
struct tu_log {
	char path[256];
	int fd, err;
};
void tu_log_open(struct tu_log *log);
void tu_log_start(const struct tu_log *log);
void tu_log_stop(const struct tu_log *log);
void tu_log_text(const struct tu_log *log, char *text, size_t len);
void tu_log_close(struct tu_log *log);

/* Loads a PNG the test cannot do without (fails the test otherwise). */
void tu_load(struct image *img, const char *path);

static inline uint32_t tu_rgb(const struct image *img, int x, int y)
{
	return img->pixels[(size_t)y * img->width + x] & 0xffffff;
}

#endif
