/* worker.h - slow work off the loop: one job at a time on a thread of its own, its end
 * reported through the loop, where the results are swapped in. */
#ifndef FBRIPPLE_WORKER_H
#define FBRIPPLE_WORKER_H

#include <pthread.h>
#include <stdbool.h>

#include "loop.h"

struct worker_job;
typedef void worker_fn(struct worker_job *job);

/* Embedded in the caller's own job struct, which must stay valid until done has run. */
struct worker_job {
	worker_fn *run;		/* on the worker's thread: must touch nothing the loop uses */
	worker_fn *done;	/* on the loop's thread, after run; may start the next job */
	bool cancelled;		/* done runs from worker_close: free, apply nothing */
};

struct worker {
	struct loop_source src;	/* an eventfd the thread signals when a job has run */
	struct loop *loop;	/* NULL when closed (as a zeroed struct is) */
	struct worker_job *job;	/* from worker_start until its done, or NULL */
	struct worker_job *next;	/* handed to the thread, not taken yet */
	bool started, stop;	/* the thread runs; it is to end */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
};

/* 0 or -errno. The thread starts with the first job. */
int worker_open(struct worker *w, struct loop *loop);

/* Runs job->run on the worker's thread (every signal blocked there); -EBUSY while a job is
 * under way, -EBADF when the worker is closed. */
int worker_start(struct worker *w, struct worker_job *job);

static inline bool worker_busy(const struct worker *w)
{
	return w->job != NULL;
}

/* Waits for a job under way, runs its done with cancelled set, ends the thread, closes. */
void worker_close(struct worker *w);

#endif
