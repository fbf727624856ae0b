/* testutil.c - helpers for the tests that run the fbripple binary and look at its output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	assert_true(asprintf(&dir, "%s/fbripple-test.XXXXXX", base ? base : "/tmp") > 0);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmtree(char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

const char *tu_path(const char *dir, const char *name)
{
	static char ring[8][512];
	static int next;
	char *p = ring[next++ % 8];

	snprintf(p, sizeof(ring[0]), "%s/%s", dir, name);
	return p;
}

void tu_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

int tu_run(char *out, size_t outlen, const char *arg, ...)
{
	const char *argv[64] = { getenv("FBRIPPLE_BIN") ? getenv("FBRIPPLE_BIN") : "./fbripple" };
	int pipefd[2], status, n = 1;
	size_t len = 0;
	ssize_t got;
	va_list ap;
	pid_t pid;

	va_start(ap, arg);
	for (const char *a = arg; a && n < 63; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((got = read(pipefd[0], out + len, outlen - 1 - len)) > 0)
		len += got;
	out[len] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tu_call_bounded(tu_call_fn *fn, void *ctx, char *out, size_t outlen, int timeout_ms)
{
	struct pollfd pfd;
	int pipefd[2], rc = 0, status;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		rc = fn(ctx, out, outlen);
		if (write(pipefd[1], &rc, sizeof(rc)) != sizeof(rc) ||
		    write(pipefd[1], out, strnlen(out, outlen - 1) + 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	if (poll(&pfd, 1, timeout_ms) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(pipefd[0]);
		fail_msg("the call did not return within %d ms", timeout_ms);
	}
	assert_int_equal(read(pipefd[0], &rc, sizeof(rc)), sizeof(rc));
	while ((got = read(pipefd[0], out + len, outlen - len)) > 0)
		len += (size_t)got;
	out[outlen - 1] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return rc;
}

void tu_load(struct image *img, const char *path)
{
	char err[256];

	if (image_load(img, path, err, sizeof(err)) < 0)
		fail_msg("%s: %s", path, err);
}

uint32_t tu_random(void)
{
	static uint64_t rng = 88172645463325252ULL;

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

int tu_vector_paths(enum cpu_simd *paths)
{
	int n = 0;

	for (int i = CPU_SCALAR + 1; i < CPU_SIMD_COUNT; i++)
		if (cpu_simd_supported((enum cpu_simd)i))
			paths[n++] = (enum cpu_simd)i;
	return n;
}
