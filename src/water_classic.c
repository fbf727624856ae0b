/* water_classic.c - the seeds' two-buffer integer kernel: next = ((l + r + u + d) >> 1) - prev. */
#include <errno.h>
#include <stdlib.h>

#include "water_engine.h"

/* The keep mask of a row without walls: every cell -1. */
struct classic {
	int16_t *open;
};

static int classic_init(struct water *w)
{
	struct classic *c = calloc(1, sizeof(*c));

	if (!c || !(c->open = malloc(w->width * sizeof(int16_t)))) {
		free(c);
		return -ENOMEM;
	}
	for (int x = 0; x < w->width; x++)
		c->open[x] = -1;
	w->state = c;
	return 0;
}

static void classic_free(struct water *w)
{
	struct classic *c = w->state;

	if (c)
		free(c->open);
	free(c);
	w->state = NULL;
}

static void classic_clear(struct water *w)
{
	(void)w;
}

/* heavy stones with little damping can outgrow int16: saturate, never wrap into noise that
 * would never calm (below that, exactly the seeds' arithmetic) */
static inline int16_t saturate(int v)
{
	return (int16_t)(v > INT16_MAX ? INT16_MAX : v < -INT16_MAX ? -INT16_MAX : v);
}

/* Writes row y of the next step over prev; returns whether the row came out non-zero. */
static uint8_t step_row_shift(const int16_t *restrict up, const int16_t *restrict mid,
			      const int16_t *restrict down, int16_t *restrict out,
			      const int16_t *restrict keep, int width, int shift)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int16_t v = saturate(((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x]);

		v = (int16_t)((v - (v >> shift)) & keep[x]);
		out[x] = v;
		any |= v;
	}
	return any != 0;
}

/* Seed 003's damping, next = next * damping: the product a double and its store a cast that
 * truncates toward zero, as in the seed, so that the water calms. A fixed-point product
 * (v * kept >> 16) rounds some heights the other way whatever kept is. */
static uint8_t step_row_fraction(const int16_t *restrict up, const int16_t *restrict mid,
				 const int16_t *restrict down, int16_t *restrict out,
				 const int16_t *restrict keep, int width, double damping)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int v = saturate(((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x]);
		int16_t h = (int16_t)((int)(v * damping) & keep[x]);

		out[x] = h;
		any |= h;
	}
	return any != 0;
}

static void classic_step(struct water *w)
{
	const struct classic *c = w->state;
	int stride = w->stride, shift = w->tuning.damping_shift;
	double damping = w->tuning.damping;

	for (int y = 0; y < w->height; y++) {
		int16_t *next = w->prev + y * stride;
		const int16_t *mid = w->cur + y * stride;
		const int16_t *keep = w->walls ? w->walls + y * stride : c->open;

		if (!(w->live[y - 1] | w->live[y] | w->live[y + 1] | w->prev_live[y]))
			continue;
		w->prev_live[y] = damping ? step_row_fraction(mid - stride, mid, mid + stride, next,
							      keep, w->width, damping)
				       : step_row_shift(mid - stride, mid, mid + stride, next,
							keep, w->width, shift);
	}
	water_swap(w);
}

const struct water_engine water_classic = {
	.name = "classic",
	.init = classic_init,
	.free = classic_free,
	.clear = classic_clear,
	.step = classic_step,
};
