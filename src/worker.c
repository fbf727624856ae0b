/* worker.c - one job at a time on a thread of its own; an eventfd brings its end to the loop. */
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t one = 1;

	w->job->run(w->job);
	/* an eventfd write of 1 cannot block or fail short of a counter near 2^64 */
	while (write(w->src.fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The loop's side: the thread has ended; its job's done runs here. */
static void worker_finish(struct worker *w, bool cancelled)
{
	struct worker_job *job = w->job;
	uint64_t n;

	pthread_join(w->thread, NULL);
	while (read(w->src.fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	w->job = NULL;
	job->cancelled = cancelled;
	job->done(job);
}

static void on_worker(struct loop_source *src, uint32_t events)
{
	struct worker *w = src->ctx;

	(void)events;
	if (w->job)
		worker_finish(w, false);
}

int worker_open(struct worker *w, struct loop *loop)
{
	int ret;

	*w = (struct worker){ .src = { eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), on_worker, w } };
	if (w->src.fd < 0)
		return -errno;
	ret = loop_add(loop, &w->src);
	if (ret < 0) {
		close(w->src.fd);
		return ret;
	}
	w->loop = loop;
	return 0;
}

int worker_start(struct worker *w, struct worker_job *job)
{
	sigset_t all, old;
	int ret;

	if (!w->loop)
		return -EBADF;
	if (w->job)
		return -EBUSY;
	/* the loop's signalfd must stay the only taker of its signals */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->job = job;
	job->cancelled = false;
	ret = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0)
		w->job = NULL;
	return ret;
}

void worker_close(struct worker *w)
{
	if (!w->loop)
		return;
	if (w->job)
		worker_finish(w, true);
	loop_remove(w->loop, &w->src);
	close(w->src.fd);
	w->loop = NULL;
}
