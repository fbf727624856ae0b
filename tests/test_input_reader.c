/* test_input_reader.c - the input reader thread: contacts read on it reach the loop in order,
 * through a bounded queue that makes the reader wait rather than lose any. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "input/input.h"
#include "input/input_reader.h"

struct got {
	int n, in_order, tended;
};

static bool on_contact(void *ctx, const struct input_contact *c)
{
	struct got *g = ctx;

	g->in_order += c->id == g->n && c->action == INPUT_MOVE;
	g->n++;
	return true;
}

/* Refuses every tenth contact the first time it comes, as the daemon's touch does a contact
 * whose stones the wake-up's work does not cover; counts the wake-ups it came again in. */
struct refusing {
	struct got got;
	const struct loop *loop;
	uint64_t refused_in;	/* the wake-up of the last refusal */
	int refused, again_later;
};

static bool refuse_some(void *ctx, const struct input_contact *c)
{
	struct refusing *f = ctx;

	if (c->id % 10 == 0 && c->id / 10 == f->refused) {
		f->refused++;
		f->refused_in = f->loop->wakeups;
		return false;
	}
	f->again_later += c->id % 10 == 0 && f->loop->wakeups > f->refused_in;
	return on_contact(&f->got, c);
}

static void tend(void *ctx)
{
	struct got *g = ctx;

	g->tended++;
}

/* On the reader thread: a 32-bit count from the pipe, then that many contacts, waiting for
 * room in the queue as a device's reader does. */
static void on_pipe(struct input_reader_source *src)
{
	struct input_reader *r = src->ctx;
	uint32_t n;

	if (read(src->fd, &n, sizeof(n)) != sizeof(n))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct input_contact c = { .action = INPUT_MOVE, .id = (int)i };

		if (!input_reader_wait_room(r))
			return;
		input_reader_push(r, &c);
	}
}

/* A reader on a loop, reading a pipe that is asked for count contacts, each to fn. */
static void start(struct input_reader *r, struct loop *loop, input_take_fn *fn, void *fn_ctx,
		  struct got *got, struct input_reader_source *src, int fd[2], uint32_t count)
{
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(loop_init(loop), 0);
	assert_int_equal(input_reader_start(r, loop, fn, fn_ctx, tend, got), 0);
	*src = (struct input_reader_source){ fd[0], on_pipe, r };
	input_reader_lock(r);
	assert_int_equal(input_reader_add(r, src), 0);
	input_reader_unlock(r);
	assert_int_equal(write(fd[1], &count, sizeof(count)), sizeof(count));
}

static void stop(struct input_reader *r, struct loop *loop, struct input_reader_source *src,
		 int fd[2])
{
	input_reader_lock(r);
	input_reader_remove(r, src);
	input_reader_unlock(r);
	input_reader_stop(r);
	loop_free(loop);
	close(fd[0]);
	close(fd[1]);
}

static void run(uint32_t count)
{
	struct input_reader r;
	struct loop loop;
	struct got got = { 0 };
	struct input_reader_source src;
	int fd[2];

	start(&r, &loop, on_contact, &got, &got, &src, fd, count);
	for (int i = 0; i < 2000 && got.n < (int)count; i++)
		assert_int_equal(loop_dispatch(&loop, 5000), 0);
	assert_int_equal(got.n, count);
	assert_int_equal(got.in_order, count);
	assert_true(got.tended > 0);
	stop(&r, &loop, &src, fd);
}

/* A contact the loop cannot take yet comes again, first, in a later wake-up: none is lost,
 * none comes twice once taken, and all come in order. */
static void test_a_refused_contact_comes_again_first(void **state)
{
	enum { COUNT = 1000 };
	struct input_reader r;
	struct loop loop;
	struct refusing f = { { 0 }, &loop, 0, 0, 0 };
	struct input_reader_source src;
	int fd[2];

	(void)state;
	start(&r, &loop, refuse_some, &f, &f.got, &src, fd, COUNT);
	for (long end = now_ms() + 10000; f.got.n < COUNT && now_ms() < end;)
		assert_int_equal(loop_dispatch(&loop, 100), 0);
	assert_int_equal(f.got.n, COUNT);
	assert_int_equal(f.got.in_order, COUNT);
	assert_int_equal(f.refused, COUNT / 10);
	assert_int_equal(f.again_later, COUNT / 10);
	stop(&r, &loop, &src, fd);
}

static void test_a_few(void **state)
{
	(void)state;
	run(3);
}

/* Two and a half queues' worth from one read: the reader waits for the loop, nothing is lost,
 * and the order holds. */
static void test_more_than_the_queue(void **state)
{
	(void)state;
	run(INPUT_QUEUE_MAX * 5 / 2);
}

/* With the reader waiting for room, the loop can still push the ends of every contact of every
 * device it closes (a reload's new screen closes them all): none is dropped. */
static void test_room_left_for_the_loops_own_pushes(void **state)
{
	struct input_reader r;
	struct loop loop;
	struct got got = { 0 };
	struct input_reader_source src;
	unsigned before;
	int fd[2];

	(void)state;
	start(&r, &loop, on_contact, &got, &got, &src, fd, INPUT_QUEUE_MAX * 2);
	for (long end = now_ms() + 5000; now_ms() < end; usleep(10000)) {
		input_reader_lock(&r);
		before = r.len;
		input_reader_unlock(&r);
		if (before > INPUT_QUEUE_MAX / 2)
			break;
	}
	usleep(50000);		/* the reader waits for room now */
	input_reader_lock(&r);
	before = r.len;
	for (int i = 0; i < INPUT_CONTACTS_MAX; i++) {
		struct input_contact c = { .action = INPUT_UP, .id = i };

		input_reader_push(&r, &c);
	}
	assert_int_equal(r.len - before, INPUT_CONTACTS_MAX);
	input_reader_unlock(&r);
	input_reader_stop(&r);
	loop_free(&loop);
	close(fd[0]);
	close(fd[1]);
}

/* Stopping while the reader waits for room ends it: the loop never drained the queue. */
static void test_stop_while_full(void **state)
{
	struct input_reader r;
	struct loop loop;
	struct got got = { 0 };
	struct input_reader_source src;
	uint32_t count = INPUT_QUEUE_MAX * 2;
	int fd[2];

	(void)state;
	start(&r, &loop, on_contact, &got, &got, &src, fd, count);
	usleep(100000);
	input_reader_stop(&r);
	assert_int_equal(got.n, 0);
	loop_free(&loop);
	close(fd[0]);
	close(fd[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_few),
		cmocka_unit_test(test_more_than_the_queue),
		cmocka_unit_test(test_room_left_for_the_loops_own_pushes),
		cmocka_unit_test(test_stop_while_full),
		cmocka_unit_test(test_a_refused_contact_comes_again_first),
	};

	return cmocka_run_group_tests_name("input reader", tests, NULL, NULL);
}
