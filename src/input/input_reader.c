/* input_reader.c - the input devices read on their own thread, so that a slow frame cannot let
 * the kernel's per-client buffer overflow; contacts reach the loop through a bounded queue. */
#include "input_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "input.h"
#include "util/clock.h"
#include "util/thread.h"

/* The reader reads on only while this much room is left: what one event can report, a resync
 * after a SYN_DROPPED being the most (the contacts it ends, then two frames of every slot moved,
 * lifted and touched again, and an activity), and the ends of every contact of every device
 * the loop may close meanwhile (a reload's new screen closes them all). While the loop is
 * behind, the kernel's buffer fills, and a resync catches up once there is room. */
#define INPUT_QUEUE_ROOM (INPUT_SLOTS + 2 * (3 * INPUT_SLOTS + 1) + INPUT_CONTACTS_MAX)

_Static_assert(INPUT_QUEUE_ROOM <= INPUT_QUEUE_MAX / 4, "the queue is mostly for the reader");

static void signal_fd(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the other side will wake */
	}
}

/* The reader re-takes a mutex it lets go faster than a woken loop can take it: the loop says
 * it waits, and the reader steps aside in input_reader_wait_room until the loop is done. */
void input_reader_lock(struct input_reader *r)
{
	atomic_fetch_add(&r->loop_waiting, 1);
	pthread_mutex_lock(&r->lock);
	atomic_fetch_sub(&r->loop_waiting, 1);
}

void input_reader_unlock(struct input_reader *r)
{
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->lock);
}

void input_reader_push(void *ctx, const struct input_contact *c)
{
	struct input_reader *r = ctx;

	if (r->len == INPUT_QUEUE_MAX)
		return;		/* only the loop's own pushes can find it full */
	r->q[(r->head + r->len) % INPUT_QUEUE_MAX] = *c;
	if (r->len++ == 0)
		signal_fd(r->wake.fd);
}

void input_reader_poke(struct input_reader *r)
{
	signal_fd(r->wake.fd);
}

bool input_reader_wait_room(struct input_reader *r)
{
	while (!r->stop && (INPUT_QUEUE_MAX - r->len < INPUT_QUEUE_ROOM ||
			    atomic_load(&r->loop_waiting) > 0))
		pthread_cond_wait(&r->room, &r->lock);
	return !r->stop;
}

int input_reader_add(struct input_reader *r, struct input_reader_source *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0 ? -errno : 0;
}

void input_reader_remove(struct input_reader *r, struct input_reader_source *src)
{
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, src->fd, NULL);
}

static void *reader_main(void *arg)
{
	struct input_reader *r = arg;
	struct epoll_event ev[16];

	for (;;) {
		int n = epoll_wait(r->epfd, ev, 16, -1);

		if (n < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&r->lock);
		for (int i = 0; i < n && !r->stop; i++) {
			struct input_reader_source *src = ev[i].data.ptr;

			if (src)
				src->fn(src);
		}
		n = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (n)
			break;
	}
	return NULL;
}

/* The loop's next slice of contacts at CLOCK_MONOTONIC ms when; without a timer, at once. */
static void rest_until(struct input_reader *r, int64_t when)
{
	struct itimerspec its = { .it_value = { (time_t)(when / 1000),
						(long)(when % 1000) * 1000000 } };

	if (r->resume.fd >= 0 && timerfd_settime(r->resume.fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		r->resting = true;
	else
		signal_fd(r->wake.fd);
}

/* The first n (at most 16) contacts of the queue, left in it. */
static unsigned peek_contacts(struct input_reader *r, struct input_contact *batch, unsigned n)
{
	input_reader_lock(r);
	if (n > r->len)
		n = r->len;
	for (unsigned i = 0; i < n; i++)
		batch[i] = r->q[(r->head + i) % INPUT_QUEUE_MAX];
	input_reader_unlock(r);
	return n;
}

/* Takes the first n contacts off the queue; how many are left. */
static unsigned drop_contacts(struct input_reader *r, unsigned n)
{
	unsigned left;

	input_reader_lock(r);
	r->head = (r->head + n) % INPUT_QUEUE_MAX;
	r->len -= n;
	left = r->len;
	input_reader_unlock(r);
	return left;
}

/*
 * On the loop: contacts, a batch at a time so that the reader never waits for the loop's
 * callbacks, for at most INPUT_SLICE_MS, so that a frame or a client waits for no more than
 * that; what is left comes next, after whatever else is ready. A contact that fn cannot be done
 * with stays first in the queue for the next wake-up. A queue still over half full after a
 * slice is a panel reporting faster than the water can take: its next slice waits until
 * INPUT_PERIOD_MS after this one began, so it costs a bounded share of the loop, and what it
 * sends meanwhile waits in the kernel, which drops it (SYN_DROPPED; the decoder resyncs).
 */
static void take_contacts(struct input_reader *r)
{
	struct input_contact batch[16];
	int64_t start = clock_ms();
	unsigned n, done, left;

	do {
		n = peek_contacts(r, batch, 16);
		for (done = 0; done < n && r->fn(r->fn_ctx, &batch[done]); done++)
			;
		left = drop_contacts(r, done);
	} while (done == n && left && clock_ms() - start < INPUT_SLICE_MS);
	if (left > INPUT_QUEUE_MAX / 2)
		rest_until(r, start + INPUT_PERIOD_MS);
	else if (left)
		signal_fd(r->wake.fd);
}

/* On the loop: the tending first (it may end contacts), then the contacts unless resting. */
static void on_wake(struct loop_source *src, uint32_t events)
{
	struct input_reader *r = src->ctx;
	uint64_t count;

	(void)events;
	if (read(src->fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return;
	input_reader_lock(r);
	if (r->tend)
		r->tend(r->tend_ctx);
	input_reader_unlock(r);
	if (!r->resting)
		take_contacts(r);
}

static void on_resume(struct loop_source *src, uint32_t events)
{
	struct input_reader *r = src->ctx;
	uint64_t count;

	(void)events;
	if (read(src->fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return;
	r->resting = false;
	take_contacts(r);
}

static int open_fds(struct input_reader *r)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->resume.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->epfd < 0 || r->stop_fd < 0 || r->wake.fd < 0 || r->resume.fd < 0)
		return -errno;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->stop_fd, &ev) < 0)
		return -errno;
	return 0;
}

int input_reader_start(struct input_reader *r, struct loop *loop, input_take_fn *fn,
		       void *fn_ctx, void (*tend)(void *ctx), void *tend_ctx)
{
	int rc;

	*r = (struct input_reader){ .epfd = -1, .stop_fd = -1, .loop = loop, .fn = fn,
				    .fn_ctx = fn_ctx, .tend = tend, .tend_ctx = tend_ctx };
	r->wake = (struct loop_source){ -1, on_wake, r };
	r->resume = (struct loop_source){ -1, on_resume, r };
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->room, NULL);
	r->q = calloc(INPUT_QUEUE_MAX, sizeof(*r->q));
	rc = r->q ? open_fds(r) : -ENOMEM;
	if (rc == 0)
		rc = loop_add(loop, &r->wake);
	if (rc == 0)
		rc = loop_add(loop, &r->resume);
	if (rc < 0)
		return rc;
	rc = thread_start(&r->thread, reader_main, r);
	r->running = rc == 0;
	return rc;
}

void input_reader_stop(struct input_reader *r)
{
	if (r->running) {
		input_reader_lock(r);
		r->stop = true;
		pthread_cond_broadcast(&r->room);
		input_reader_unlock(r);
		signal_fd(r->stop_fd);
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	if (r->wake.fd >= 0) {
		loop_remove(r->loop, &r->wake);
		close(r->wake.fd);
	}
	if (r->resume.fd >= 0) {
		loop_remove(r->loop, &r->resume);
		close(r->resume.fd);
	}
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	if (r->epfd >= 0)
		close(r->epfd);
	r->wake.fd = r->resume.fd = r->stop_fd = r->epfd = -1;
	free(r->q);
	r->q = NULL;
	pthread_cond_destroy(&r->room);
	pthread_mutex_destroy(&r->lock);
}
