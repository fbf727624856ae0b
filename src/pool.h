/* pool.h - a few threads that share one job per call in bands, and sleep between calls. */
#ifndef FBRIPPLE_POOL_H
#define FBRIPPLE_POOL_H

#include <pthread.h>
#include <stdbool.h>

#define POOL_MAX 4		/* threads, the caller's included */

/* Runs band `band` of `bands`; every band of one call runs at the same time on its own thread. */
typedef void pool_fn(void *ctx, int band, int bands);

struct pool {
	int threads;			/* the caller's included; 1: no thread of its own */
	pthread_t thread[POOL_MAX - 1];
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	pool_fn *fn;
	void *ctx;
	unsigned call;			/* counts the calls, so a thread runs each once */
	int busy;			/* threads still inside the current call */
	bool stop;
};

/* The default thread count: the CPUs online, at most POOL_MAX. */
int pool_threads_auto(void);

/* threads (1..POOL_MAX) including the caller; 0 or -errno. */
int pool_init(struct pool *p, int threads);
void pool_free(struct pool *p);

/* fn(ctx, band, p->threads) for every band, band 0 on the caller; returns when all are done. */
void pool_run(struct pool *p, pool_fn *fn, void *ctx);

#endif
