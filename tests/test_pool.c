/* test_pool.c - the band pool: every band of every call runs once, and idle threads sleep. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pool.h"

#define CALLS 2000

struct tally {
	int runs[CALLS][POOL_MAX];
	int bands_seen[POOL_MAX];
	int call;
};

static void count_band(void *ctx, int band, int bands)
{
	struct tally *t = ctx;

	t->runs[t->call][band]++;
	t->bands_seen[band] = bands;
}

static void test_every_band_runs_once_per_call(void **state)
{
	(void)state;
	for (int threads = 1; threads <= POOL_MAX; threads++) {
		struct tally *t = calloc(1, sizeof(*t));
		struct pool p;

		assert_non_null(t);
		assert_int_equal(pool_init(&p, threads), 0);
		assert_int_equal(p.threads, threads);
		for (t->call = 0; t->call < CALLS; t->call++)
			pool_run(&p, count_band, t);
		for (int c = 0; c < CALLS; c++)
			for (int b = 0; b < POOL_MAX; b++)
				assert_int_equal(t->runs[c][b], b < threads);
		for (int b = 0; b < threads; b++)
			assert_int_equal(t->bands_seen[b], threads);
		pool_free(&p);
		free(t);
	}
}

static void test_bad_thread_counts(void **state)
{
	struct pool p;
	int n = pool_threads_auto();

	(void)state;
	assert_int_equal(pool_init(&p, 0), -22);
	assert_int_equal(pool_init(&p, POOL_MAX + 1), -22);
	assert_true(n >= 1 && n <= POOL_MAX);
}

/* How many of this process's threads are running or runnable right now, the caller included. */
static int threads_awake(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int awake = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], *close_paren;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')))
			awake += close_paren[2] == 'R';
		fclose(f);
	}
	closedir(d);
	return awake;
}

static void test_idle_threads_sleep(void **state)
{
	struct tally *t = calloc(1, sizeof(*t));
	struct pool p;
	int most = 0;

	(void)state;
	assert_int_equal(pool_init(&p, POOL_MAX), 0);
	pool_run(&p, count_band, t);
	for (int i = 0; i < 20; i++) {
		struct timespec ms = { 0, 5000000 };
		int n = threads_awake();

		most = n > most ? n : most;
		nanosleep(&ms, NULL);
	}
	assert_int_equal(most, 1);	/* only this thread, reading /proc */
	pool_free(&p);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_band_runs_once_per_call),
		cmocka_unit_test(test_bad_thread_counts),
		cmocka_unit_test(test_idle_threads_sleep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
