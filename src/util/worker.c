/* worker.c - one job at a time on a thread of its own; an eventfd brings its end to the loop. */
#include "worker.h"
#include "thread.h"

#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#define WORKER_NICE 10		/* added to the daemon's own niceness for the worker's thread */

/* The thread: takes each job handed over, runs it, tells the loop; ends when told to. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t one = 1;
	int nice;

	/* the loop comes first: on one core it must still draw and answer while a job runs */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (errno == 0)
		setpriority(PRIO_PROCESS, (id_t)gettid(), nice + WORKER_NICE);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct worker_job *job;

		while (!w->next && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		job = w->next;
		w->next = NULL;
		pthread_mutex_unlock(&w->lock);
		job->run(job);
		/* an eventfd write of 1 cannot block or fail short of a counter near 2^64 */
		while (write(w->src.fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void finish(struct worker *w, bool cancelled)
{
	struct worker_job *job = w->job;

	w->job = NULL;
	job->cancelled = cancelled;
	job->done(job);
}

static void on_worker(struct loop_source *src, uint32_t events)
{
	struct worker *w = src->ctx;
	uint64_t n;

	(void)events;
	if (read(w->src.fd, &n, sizeof(n)) == sizeof(n) && w->job)
		finish(w, false);
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
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->loop = loop;
	return 0;
}

static int start_thread(struct worker *w)
{
	int ret = thread_start(&w->thread, worker_main, w);

	w->started = ret == 0;
	return ret;
}

int worker_start(struct worker *w, struct worker_job *job)
{
	int ret;

	if (!w->loop)
		return -EBADF;
	if (w->job)
		return -EBUSY;
	if (!w->started && (ret = start_thread(w)) < 0)
		return ret;
	job->cancelled = false;
	w->job = job;
	pthread_mutex_lock(&w->lock);
	w->next = job;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

void worker_close(struct worker *w)
{
	if (!w->loop)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);	/* after the job under way, if any */
	}
	if (w->job)
		finish(w, true);
	loop_remove(w->loop, &w->src);
	close(w->src.fd);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	w->loop = NULL;
}
