/* test_budget.c - one budget of work per wake-up shared by its users (util/budget.c): each
 * wake-up's work stays within it, and no user keeps the others from theirs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>

#include "util/budget.h"

enum { WORK = 1000 };

/* user does all the work it is allowed; whether it got any. */
static bool work_all(struct budget *b, const void *user)
{
	long left = budget_left(b, user);

	budget_spend(b, left);
	return left > 0;
}

/* A user alone has the whole budget every wake-up, and never more. */
static void test_alone_every_wake_up(void **state)
{
	struct loop loop = { -1, 0 };
	struct budget b;
	int a;

	(void)state;
	budget_init(&b, &loop, WORK);
	for (int i = 0; i < 10; i++, loop.wakeups++) {
		assert_int_equal(budget_left(&b, &a), WORK);
		budget_spend(&b, 300);
		assert_int_equal(budget_left(&b, &a), WORK - 300);
		budget_spend(&b, WORK);		/* a stone may overrun what is left */
		assert_int_equal(budget_left(&b, &a), 0);
	}
}

/* Two users that each want more than a wake-up's work, always called in the same order (as
 * epoll hands out ready sources), take turns: the one refused goes first in the next wake-up.
 * The first asks again after spending it all, as control does for its next line: that does
 * not make it first again, or the other would never have a turn. */
static void test_two_users_take_turns(void **state)
{
	struct loop loop = { -1, 0 };
	struct budget b;
	int control, input, turns[2] = { 0, 0 };

	(void)state;
	budget_init(&b, &loop, WORK);
	for (int i = 0; i < 100; i++, loop.wakeups++) {
		bool c = work_all(&b, &control);

		assert_int_equal(budget_left(&b, &control), 0);
		turns[0] += c;
		turns[1] += work_all(&b, &input);
		assert_true(b.left <= 0);
	}
	assert_int_equal(turns[0], 50);
	assert_int_equal(turns[1], 50);
}

/* A user refused that does not come in the next wake-up holds the others up for that one
 * wake-up only. */
static void test_a_turn_not_taken_lapses(void **state)
{
	struct loop loop = { -1, 0 };
	struct budget b;
	int control, input;

	(void)state;
	budget_init(&b, &loop, WORK);
	assert_true(work_all(&b, &control));
	assert_false(work_all(&b, &input));	/* input's turn is the next wake-up */
	loop.wakeups++;
	assert_false(work_all(&b, &control));	/* input does not come */
	loop.wakeups++;
	assert_true(work_all(&b, &control));
	loop.wakeups++;
	assert_true(work_all(&b, &control));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone_every_wake_up),
		cmocka_unit_test(test_two_users_take_turns),
		cmocka_unit_test(test_a_turn_not_taken_lapses),
	};

	return cmocka_run_group_tests_name("budget", tests, NULL, NULL);
}
