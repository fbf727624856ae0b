/* input_reader.h - a thread that reads the input devices as their events come, however long
 * the loop spends on a frame, and hands the contacts to the loop through a bounded queue. */
#ifndef FBRIPPLE_INPUT_READER_H
#define FBRIPPLE_INPUT_READER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "input_decode.h"
#include "util/loop.h"

#define INPUT_QUEUE_MAX 4096	/* contacts on their way to the loop */
#define INPUT_SLICE_MS 2	/* the loop's time on contacts in one go; while over half the */
#define INPUT_PERIOD_MS 16	/* queue waits, one slice in this long: a chattering panel gets
				 * an eighth of the loop, and the kernel drops the rest */

/* A device fd, read on the reader thread with the lock held. An entry may be removed while
 * its event is on the way: fn must check that it is still in use. */
struct input_reader_source {
	int fd;
	void (*fn)(struct input_reader_source *src);
	void *ctx;
};

struct input_reader {
	pthread_mutex_t lock;		/* the queue, and whatever the sources' fn touch */
	pthread_cond_t room;		/* the loop took contacts off the queue, or let go the lock */
	atomic_int loop_waiting;	/* the loop waits for the lock: the reader lets it go */
	pthread_t thread;
	bool running, stop;
	int epfd, stop_fd;
	struct loop *loop;
	struct loop_source wake;	/* eventfd: contacts are waiting for the loop */
	struct loop_source resume;	/* timerfd: the loop's next slice of contacts is due */
	bool resting;			/* it used its slice: contacts wait for resume */
	input_take_fn *fn;		/* on the loop, for each contact, without the lock */
	void *fn_ctx;
	void (*tend)(void *ctx);	/* on the loop before the contacts, with the lock held */
	void *tend_ctx;
	struct input_contact *q;	/* INPUT_QUEUE_MAX of them, a ring */
	unsigned head, len;
};

/* Starts the thread and registers the wake-up in loop. 0 or -errno. */
int input_reader_start(struct input_reader *r, struct loop *loop, input_take_fn *fn,
		       void *fn_ctx, void (*tend)(void *ctx), void *tend_ctx);

/* Ends the thread (waiting for it) and closes what start opened; safe if start failed. */
void input_reader_stop(struct input_reader *r);

/* On the loop: the reader thread lets go of the lock within one event. */
void input_reader_lock(struct input_reader *r);
void input_reader_unlock(struct input_reader *r);

/* With the lock held. 0 or -errno. */
int input_reader_add(struct input_reader *r, struct input_reader_source *src);
void input_reader_remove(struct input_reader *r, struct input_reader_source *src);

/* Queues a contact for the loop, with the lock held; an input_fn for the decoders (ctx: r). */
void input_reader_push(void *ctx, const struct input_contact *c);

/* With the lock held, on the reader thread: waits until the queue has room for whatever one
 * more event can report, and lets the loop have the lock first if it waits for it. false: the
 * reader is stopping. */
bool input_reader_wait_room(struct input_reader *r);

/* Has the loop run tend soon, contacts or not. */
void input_reader_poke(struct input_reader *r);

#endif
