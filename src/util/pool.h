/* pool.h - a few threads that share one job per call in chunks, and sleep between calls. */
#ifndef FBRIPPLE_POOL_H
#define FBRIPPLE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define POOL_MAX 4		/* threads, the caller's included */
#define POOL_THREAD_NAME "fbripple-pool"	/* as top -H and /proc show the pool's threads */

/* Runs chunk `chunk` of `chunks` on thread `thread` (0: the caller's; the others: the pool's),
 * which names the thread's scratch: at most one chunk runs on a thread at a time. */
typedef void pool_fn(void *ctx, int chunk, int chunks, int thread);

struct pool {
	int threads;			/* the caller's included; 1: no thread of its own */
	pthread_t thread[POOL_MAX - 1];
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	pool_fn *fn;
	void *ctx;
	int chunks;			/* of the current call */
	atomic_int next;		/* the next chunk to take */
	atomic_int ids;			/* the pool's threads that know their number */
	unsigned call;			/* counts the calls, so a thread joins each at most once */
	int busy;			/* the pool's threads inside the current call */
	bool open;			/* the call still takes threads: its caller is at work */
	bool stop;
};

/* The default thread count: the CPUs online, at most POOL_MAX. */
int pool_threads_auto(void);

/* threads (1..POOL_MAX) including the caller; 0 or -errno. */
int pool_init(struct pool *p, int threads);
void pool_free(struct pool *p);

/* fn(ctx, chunk, chunks, thread) once for every chunk 0..chunks-1: the threads take the next
 * chunk as they come, the caller's thread too, so one that the machine slows holds up at
 * most the chunk it is in, and one that wakes after the last chunk was taken does nothing.
 * Returns when every chunk is done. */
void pool_run(struct pool *p, pool_fn *fn, void *ctx, int chunks);

#endif
