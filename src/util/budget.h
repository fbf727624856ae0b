/* budget.h - the work the loop's handlers may do in one wake-up for others (the stones of
 * control commands and of input contacts), shared by all of them: together they stay within
 * one bound, and one that was refused goes first in the next wake-up. */
#ifndef FBRIPPLE_BUDGET_H
#define FBRIPPLE_BUDGET_H

#include <stdint.h>

#include "loop.h"

struct budget {
	const struct loop *loop;
	long per_wakeup;
	long left;			/* in wake-up wakeup */
	uint64_t wakeup;
	const void *served;		/* the last user given work in this wake-up */
	const void *first;		/* refused with nothing: wake-up first_at is its first */
	uint64_t first_at;
};

/* per_wakeup of work in each of loop's wake-ups. */
void budget_init(struct budget *b, const struct loop *loop, long per_wakeup);

/* What user (any pointer that names it) may do now: what is left of this wake-up's work, or 0
 * when it is spent, or while another user that got nothing in the last wake-up has not had its
 * turn in this one. A user refused before it got any work goes first in the next wake-up. */
long budget_left(struct budget *b, const void *user);

/* Takes off work done (it may overrun what was left). */
void budget_spend(struct budget *b, long work);

#endif
