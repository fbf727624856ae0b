/* test_pool.c - the chunk pool: every chunk of every call runs once, a slow thread holds up no
 * other chunk, idle threads sleep, and a fault on one runs the process's handler. */
#include <dirent.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "util/pool.h"

#define CALLS 2000
#define MOST_CHUNKS 37

struct tally {
	int runs[CALLS][MOST_CHUNKS];
	int chunks_seen[MOST_CHUNKS];
	atomic_int on_thread[POOL_MAX];
	atomic_int bad_thread;
	int call;
};

static void count_chunk(void *ctx, int chunk, int chunks, int thread)
{
	struct tally *t = ctx;

	t->runs[t->call][chunk]++;
	t->chunks_seen[chunk] = chunks;
	if (thread < 0 || thread >= POOL_MAX)
		atomic_fetch_add(&t->bad_thread, 1);
	else
		atomic_fetch_add(&t->on_thread[thread], 1);
}

static void test_every_chunk_runs_once_per_call(void **state)
{
	static const int chunk_counts[] = { 0, 1, 2, 3, 4, 5, 16, MOST_CHUNKS };

	(void)state;
	for (int threads = 1; threads <= POOL_MAX; threads++)
		for (size_t k = 0; k < sizeof(chunk_counts) / sizeof(chunk_counts[0]); k++) {
			struct tally *t = calloc(1, sizeof(*t));
			int chunks = chunk_counts[k], runs = 0;
			struct pool p;

			assert_non_null(t);
			assert_int_equal(pool_init(&p, threads), 0);
			assert_int_equal(p.threads, threads);
			for (t->call = 0; t->call < CALLS; t->call++)
				pool_run(&p, count_chunk, t, chunks);
			for (int c = 0; c < CALLS; c++)
				for (int b = 0; b < MOST_CHUNKS; b++)
					assert_int_equal(t->runs[c][b], b < chunks);
			for (int b = 0; b < chunks; b++)
				assert_int_equal(t->chunks_seen[b], chunks);
			assert_int_equal(atomic_load(&t->bad_thread), 0);
			for (int i = 0; i < POOL_MAX; i++) {
				if (i >= threads)
					assert_int_equal(atomic_load(&t->on_thread[i]), 0);
				runs += atomic_load(&t->on_thread[i]);
			}
			assert_int_equal(runs, CALLS * chunks);
			pool_free(&p);
			free(t);
		}
}

/* Each of the pool's threads stops in the first chunk it takes of a call until every other
 * chunk is done (or 10 s pass): only the caller's thread can then do them. */
struct stall {
	atomic_int done, stalled, timed_out;
};

static void stall_chunk(void *ctx, int chunk, int chunks, int thread)
{
	struct stall *s = ctx;

	(void)chunk;
	if (thread) {
		struct timespec ms = { 0, 1000000 };
		int waits = 0;

		atomic_fetch_add(&s->stalled, 1);
		/* the chunks done and those held by stalled threads: all of them */
		while (atomic_load(&s->done) + atomic_load(&s->stalled) < chunks && ++waits < 10000)
			nanosleep(&ms, NULL);
		if (waits == 10000)
			atomic_fetch_add(&s->timed_out, 1);
	}
	atomic_fetch_add(&s->done, 1);
}

/* A thread the machine slows (here: one that stalls) does not hold the call's other chunks. */
static void test_slow_thread_does_not_hold_the_rest(void **state)
{
	(void)state;
	for (int threads = 2; threads <= POOL_MAX; threads++) {
		struct pool p;

		assert_int_equal(pool_init(&p, threads), 0);
		for (int call = 0; call < 20; call++) {
			struct stall s = { 0 };

			pool_run(&p, stall_chunk, &s, 4 * threads);
			assert_int_equal(atomic_load(&s.done), 4 * threads);
			assert_int_equal(atomic_load(&s.timed_out), 0);
		}
		pool_free(&p);
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

/* The pool's threads (by name), and how many of them are running or runnable right now. */
static void pool_threads(int *found, int *awake)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	*found = *awake = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], *open_paren, *close_paren;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (open_paren = strchr(buf, '(')) &&
		    (close_paren = strrchr(buf, ')')) &&
		    !strncmp(open_paren + 1, POOL_THREAD_NAME, strlen(POOL_THREAD_NAME))) {
			(*found)++;
			*awake += close_paren[2] == 'R';
		}
		fclose(f);
	}
	closedir(d);
}

static void test_idle_threads_sleep(void **state)
{
	struct tally *t = calloc(1, sizeof(*t));
	struct pool p;
	int most = 0, found, awake;

	(void)state;
	assert_int_equal(pool_init(&p, POOL_MAX), 0);
	pool_run(&p, count_chunk, t, 2 * POOL_MAX);
	/* a worker may still be on its way back to sleep after the call: give it time */
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	for (int i = 0; i < 20; i++) {
		struct timespec ms = { 0, 5000000 };

		pool_threads(&found, &awake);
		assert_int_equal(found, POOL_MAX - 1);
		most = awake > most ? awake : most;
		nanosleep(&ms, NULL);
	}
	assert_int_equal(most, 0);
	pool_free(&p);
	free(t);
}

/* A fault on a pool thread (a page past the end of a mapped file: SIGBUS, a real fault on
 * every architecture) runs the process's handler, as the daemon's crash handler must run to
 * give the console back; a thread that blocked it would be killed outright. In a child; the
 * handler jumps back, so that the pool ends as it should. */
#define HANDLED 42

static sigjmp_buf faulted;
static atomic_int handled;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(faulted, 1);
}

static void fault_on_a_pool_thread(void *ctx, int chunk, int chunks, int thread)
{
	const volatile char *past_end = ctx;
	struct timespec ms = { 0, 1000000 };

	(void)chunk;
	(void)chunks;
	if (thread > 0) {
		if (!sigsetjmp(faulted, 1))
			(void)past_end[0];
		else
			atomic_fetch_add(&handled, 1);
	}
	/* the caller leaves the chunks to the pool's thread */
	for (int i = 0; thread == 0 && !atomic_load(&handled) && i < 2000; i++)
		nanosleep(&ms, NULL);
}

static void test_a_fault_on_a_pool_thread_runs_the_handler(void **state)
{
	char path[] = "/tmp/fbripple-pool-XXXXXX";
	struct sigaction sa = { .sa_handler = on_bus };
	int fd = mkstemp(path), status;
	void *map;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);	/* an empty file: all past its end */
	assert_true(map != MAP_FAILED);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pool p;

		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		if (pool_init(&p, 2) < 0)
			_exit(1);
		pool_run(&p, fault_on_a_pool_thread, map, 8);
		pool_free(&p);
		_exit(atomic_load(&handled) ? HANDLED : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	munmap(map, 4096);
	close(fd);
	if (WIFSIGNALED(status))
		fail_msg("killed by signal %d, its handler never run", WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), HANDLED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_chunk_runs_once_per_call),
		cmocka_unit_test(test_slow_thread_does_not_hold_the_rest),
		cmocka_unit_test(test_bad_thread_counts),
		cmocka_unit_test(test_idle_threads_sleep),
		cmocka_unit_test(test_a_fault_on_a_pool_thread_runs_the_handler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
