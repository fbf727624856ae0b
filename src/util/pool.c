/* pool.c - a few threads that share one job per call in chunks, and sleep between calls. */
#include "pool.h"
#include "thread.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The chunks still to take, one after the other, on this thread. */
static void take_chunks(struct pool *p, pool_fn *fn, void *ctx, int chunks, int thread)
{
	for (int c; (c = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < chunks;)
		fn(ctx, c, chunks, thread);
}

static void *pool_main(void *arg)
{
	struct pool *p = arg;
	int thread = atomic_fetch_add(&p->ids, 1) + 1;
	unsigned seen = 0;

	pthread_setname_np(pthread_self(), POOL_THREAD_NAME);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->call == seen && !p->stop)
			pthread_cond_wait(&p->go, &p->lock);
		if (p->stop)
			break;
		seen = p->call;
		if (!p->open)	/* woke after its caller had taken the last chunk */
			continue;
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		take_chunks(p, p->fn, p->ctx, p->chunks, thread);
		pthread_mutex_lock(&p->lock);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pool_threads_auto(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > POOL_MAX ? POOL_MAX : (int)n;
}

int pool_init(struct pool *p, int threads)
{
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (threads < 1 || threads > POOL_MAX)
		return -EINVAL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->threads = 1;
	for (int i = 1; i < threads && ret == 0; i++) {
		ret = thread_start(&p->thread[i - 1], pool_main, p);
		if (ret == 0)
			p->threads++;
	}
	if (ret < 0)
		pool_free(p);
	return ret;
}

void pool_free(struct pool *p)
{
	if (!p->threads)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_broadcast(&p->go);
	for (int i = 0; i < p->threads - 1; i++)
		pthread_join(p->thread[i], NULL);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}

void pool_run(struct pool *p, pool_fn *fn, void *ctx, int chunks)
{
	if (p->threads <= 1 || chunks <= 1) {
		for (int c = 0; c < chunks; c++)
			fn(ctx, c, chunks, 0);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->ctx = ctx;
	p->chunks = chunks;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	p->open = true;
	p->call++;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_broadcast(&p->go);
	take_chunks(p, fn, ctx, chunks, 0);
	/* every chunk is taken: wait only for the threads still in one */
	pthread_mutex_lock(&p->lock);
	p->open = false;
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
