/* pool.c - a few threads that share one job per call in bands, and sleep between calls. */
#include "pool.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

struct start {
	struct pool *pool;
	int band;
};

static void *pool_main(void *arg)
{
	struct pool *p = ((struct start *)arg)->pool;
	int band = ((struct start *)arg)->band;
	unsigned seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->call == seen && !p->stop)
			pthread_cond_wait(&p->go, &p->lock);
		if (p->stop)
			break;
		seen = p->call;
		pthread_mutex_unlock(&p->lock);
		p->fn(p->ctx, band, p->threads);
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
	struct start starts[POOL_MAX];
	sigset_t all, old;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (threads < 1 || threads > POOL_MAX)
		return -EINVAL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->threads = 1;
	/* the loop's thread takes every signal; a worker gets only the faults it causes */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 1; i < threads && ret == 0; i++) {
		starts[i] = (struct start){ p, i };
		ret = -pthread_create(&p->thread[i - 1], NULL, pool_main, &starts[i]);
		if (ret == 0)
			p->threads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* each thread has read its start before the first call can complete: wait for one */
	pool_run(p, NULL, NULL);
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
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->threads - 1; i++)
		pthread_join(p->thread[i], NULL);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}

static void nothing(void *ctx, int band, int bands)
{
	(void)ctx, (void)band, (void)bands;
}

void pool_run(struct pool *p, pool_fn *fn, void *ctx)
{
	if (!fn)
		fn = nothing;
	if (p->threads <= 1) {
		fn(ctx, 0, 1);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->ctx = ctx;
	p->busy = p->threads - 1;
	p->call++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	fn(ctx, 0, p->threads);
	pthread_mutex_lock(&p->lock);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
