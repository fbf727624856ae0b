/* budget.c - one bound on the work of a loop's wake-up, taken in turns by its users. */
#include "budget.h"

#include <stdbool.h>
#include <stddef.h>

void budget_init(struct budget *b, const struct loop *loop, long per_wakeup)
{
	*b = (struct budget){ .loop = loop, .per_wakeup = per_wakeup, .wakeup = UINT64_MAX };
}

/* A new wake-up: all of its work is left. */
static void refill(struct budget *b)
{
	if (b->wakeup == b->loop->wakeups)
		return;
	b->wakeup = b->loop->wakeups;
	b->left = b->per_wakeup;
	b->served = NULL;
}

long budget_left(struct budget *b, const void *user)
{
	bool held;

	refill(b);
	held = b->first && b->first_at == b->wakeup && b->first != user;
	if (b->first == user && b->first_at == b->wakeup)
		b->first = NULL;	/* its turn */
	if (b->left > 0 && !held) {
		b->served = user;
		return b->left;
	}
	/* a user that had its share waits its turn: it must not keep taking the next first; and
	 * a turn already given stands */
	if (user != b->served && (!b->first || b->first_at < b->wakeup)) {
		b->first = user;
		b->first_at = b->wakeup + 1;
	}
	return 0;
}

void budget_spend(struct budget *b, long work)
{
	refill(b);
	b->left -= work;
}
