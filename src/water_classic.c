/* water_classic.c - the seeds' two-buffer integer kernel: next = ((l + r + u + d) >> 1) - prev. */
#include <errno.h>
#include <stdlib.h>

#include "water_engine.h"
#include "water_kernel.h"

/* The keep mask of a row without walls (every cell -1), and the row kernels of the CPU's path. */
struct classic {
	int16_t *open;
	struct water_kernels kernels;
};

static int classic_init(struct water *w)
{
	struct classic *c = calloc(1, sizeof(*c));
	enum cpu_simd simd;

	if (!c || !(c->open = malloc(w->width * sizeof(int16_t)))) {
		free(c);
		return -ENOMEM;
	}
	for (int x = 0; x < w->width; x++)
		c->open[x] = -1;
	/* an unknown or unavailable FBRIPPLE_SIMD leaves the best path; the daemon warns */
	cpu_simd_choose(&simd);
	water_kernels_for(simd, &c->kernels);
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
		w->prev_live[y] = damping ? c->kernels.fraction(mid - stride, mid, mid + stride, next,
								keep, w->width, damping)
				       : c->kernels.shift(mid - stride, mid, mid + stride, next, keep,
							  w->width, shift);
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
