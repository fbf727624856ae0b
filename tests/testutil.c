/* testutil.c - helpers for the tests that run the fbripple binary and look at its output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

char *tu_device_file(const char *name, size_t len, struct stat *st)
{
	char *dir = tu_tmpdir(), *path;
	int fd;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	free(dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	assert_int_equal(fstat(fd, st), 0);
	close(fd);
	return path;
}

void tu_device_file_remove(char *path)
{
	*strrchr(path, '/') = '\0';
	tu_rmtree(path);
}

void tu_draw_frame(struct display *d, uint32_t n)
{
	struct display_buffer buf = display_buffer(d);

	for (int y = 0; y < d->mode.height; y++) {
		uint32_t *row = (uint32_t *)(buf.pixels + (size_t)y * d->mode.stride);

		for (int x = 0; x < d->mode.width; x++)
			row[x] = n;
	}
}

void tu_log_open(struct tu_log *log)
{
	const char *base = getenv("TMPDIR");

	assert_true(snprintf(log->path, sizeof(log->path), "%s/fbripple-test-log.XXXXXX",
			     base ? base : "/tmp") < (int)sizeof(log->path));
	log->fd = mkstemp(log->path);
	log->err = dup(2);
	assert_true(log->fd >= 0 && log->err >= 0);
}

void tu_log_start(const struct tu_log *log)
{
	dup2(log->fd, 2);
}

void tu_log_stop(const struct tu_log *log)
{
	dup2(log->err, 2);
}

void tu_log_text(const struct tu_log *log, char *text, size_t len)
{
	ssize_t got = pread(log->fd, text, len - 1, 0);

	assert_true(got > 0);
	text[got] = '\0';
}

void tu_log_close(struct tu_log *log)
{
	close(log->fd);
	close(log->err);
	unlink(log->path);
}

/* argv's program run as tu_run says, its address space limited to as_kib KiB (0: as ours). */
static int run_argv(long as_kib, char *out, size_t outlen, const char **argv)
{
	int pipefd[2], status;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim;

		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		if (as_kib && getrlimit(RLIMIT_AS, &lim) == 0) {
			lim.rlim_cur = (rlim_t)as_kib * 1024;
			if (setrlimit(RLIMIT_AS, &lim) < 0)
				_exit(126);
		}
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

static int run_va(long as_kib, char *out, size_t outlen, const char *arg, va_list ap)
{
	const char *argv[128] = { getenv("FBRIPPLE_BIN") ? getenv("FBRIPPLE_BIN") : "./fbripple" };
	int n = 1;

	for (const char *a = arg; a && n < 127; a = va_arg(ap, const char *))
		argv[n++] = a;
	argv[n] = NULL;
	return run_argv(as_kib, out, outlen, argv);
}

int tu_run(char *out, size_t outlen, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = run_va(0, out, outlen, arg, ap);
	va_end(ap);
	return rc;
}

int tu_run_limited(long as_kib, char *out, size_t outlen, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = run_va(as_kib, out, outlen, arg, ap);
	va_end(ap);
	return rc;
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

void tu_water_open_on(struct water *w, const struct water_engine *engine, enum cpu_simd simd,
		      int screen_width, int screen_height, int cell,
		      const struct water_tuning *tuning)
{
	setenv("FBRIPPLE_SIMD", cpu_simd_name(simd), 1);
	assert_int_equal(water_open(w, engine, screen_width, screen_height, cell, tuning), 0);
	unsetenv("FBRIPPLE_SIMD");
}

void tu_disturb(struct water *w, int step, uint64_t seed, int radius)
{
	struct water_rain rain = { .rate = 2, .size = 3 * w->cell, .weight = INT16_MAX,
				   .rng = seed + step };

	if (step % 40 == 0)
		water_drop(w, w->screen_width / 2, w->screen_height / 2, radius * w->cell,
			   INT16_MAX);
	if (step < 150)
		water_rain(w, &rain, 1.0);
}

static long grid_value(const void *grid, size_t size, size_t i)
{
	return size == sizeof(int16_t) ? ((const int16_t *)grid)[i] : ((const int32_t *)grid)[i];
}

void tu_same_grid(const struct water *w, const void *got, const void *want, size_t size,
		  const char *label, int step, const char *what)
{
	size_t cells = (size_t)w->stride * (w->height + 2);

	assert_true(size == sizeof(int16_t) || size == sizeof(int32_t));
	if (!memcmp(got, want, cells * size))
		return;
	for (size_t i = 0; i < cells; i++)
		if (grid_value(got, size, i) != grid_value(want, size, i))
			fail_msg("%s step %d: %s at x %d y %d: %ld, scalar %ld", label, step, what,
				 (int)(i % w->stride) - 1, (int)(i / w->stride) - 1,
				 grid_value(got, size, i), grid_value(want, size, i));
}

static void same_live_and_heights(const struct water *a, const struct water *b,
				  const char *label, int step)
{
	for (int y = -1; y <= a->height; y++)
		if (a->live[y] != b->live[y] || a->prev_live[y] != b->prev_live[y])
			fail_msg("%s step %d row %d: live %d/%d, scalar %d/%d", label, step, y,
				 a->live[y], a->prev_live[y], b->live[y], b->prev_live[y]);
	tu_same_grid(a, a->cur - a->stride - 1, b->cur - b->stride - 1, sizeof(int16_t), label,
		     step, "height");
	tu_same_grid(a, a->prev - a->stride - 1, b->prev - b->stride - 1, sizeof(int16_t), label,
		     step, "previous height");
}

/* One size and variant on one path: the run's saturated cells. */
static int lockstep_one(const struct tu_lockstep *run, enum cpu_simd simd, int size,
			int variant)
{
	int width = run->sizes[size][0], height = run->sizes[size][1], saturated = 0;
	uint64_t seed = (uint64_t)size * run->variants + variant;
	uint8_t *mask = calloc((size_t)width * height, 1);
	struct water a, b;
	char label[96];

	assert_non_null(mask);
	snprintf(label, sizeof(label), "%s %dx%d variant %d", cpu_simd_name(simd), width, height,
		 variant);
	run->open(&a, simd, width, height, variant);
	run->open(&b, CPU_SCALAR, width, height, variant);
	if (variant & 1) {
		for (int c = 0; c < width * height; c++)
			mask[c] = tu_random() % 7 == 0;
		assert_int_equal(water_set_walls(&a, mask), 0);
		assert_int_equal(water_set_walls(&b, mask), 0);
	}
	for (int step = 0; step < run->steps; step++) {
		run->disturb(&a, step, seed);
		run->disturb(&b, step, seed);
		water_step(&a);
		water_step(&b);
		same_live_and_heights(&a, &b, label, step);
		if (run->same)
			run->same(&a, &b, label, step);
		saturated += run->saturated(&a);
	}
	water_free(&a);
	water_free(&b);
	free(mask);
	return saturated;
}

void tu_lockstep_run(const struct tu_lockstep *run)
{
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths), saturated = 0;

	for (int p = 0; p < n; p++)
		for (int i = 0; i < run->nsizes; i++)
			for (int variant = 0; variant < run->variants; variant++)
				saturated += lockstep_one(run, paths[p], i, variant);
	/* the premise: the heavy stones did drive the waters to the engine's limit */
	if (n && saturated == 0)
		fail_msg("no cell reached the engine's limit in %d steps", run->steps);
}
