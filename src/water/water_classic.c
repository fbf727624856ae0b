/* water_classic.c - the seeds' two-buffer integer kernel: next = ((l + r + u + d) >> 1) - prev. */
#include <errno.h>
#include <stdlib.h>

#include "util/pool.h"
#include "water.h"
#include "water_engine.h"
#include "water/kernels/water_kernel.h"

/* A chunk of a step shared among threads has at least this many rows. */
#define STEP_POOL_ROWS 32
/* Chunks a step is cut into per thread. */
#define STEP_POOL_CHUNKS 6

/* The row kernels of the CPU's path. */
struct classic {
	struct water_kernels kernels;
};

static int classic_init(struct water *w)
{
	struct classic *c = calloc(1, sizeof(*c));
	enum cpu_simd simd;

	if (!c)
		return -ENOMEM;
	/* an unknown or unavailable FBRIPPLE_SIMD leaves the best path; the daemon warns */
	cpu_simd_choose(&simd);
	if (water_kernels_for(simd, &c->kernels) < 0)
		water_kernels_for(CPU_SCALAR, &c->kernels);
	w->state = c;
	return 0;
}

static void classic_free(struct water *w)
{
	free(w->state);
	w->state = NULL;
}

static void classic_clear(struct water *w)
{
	(void)w;
}

/* The columns row y of the next step must compute: wherever it or its stencil (the row above,
 * the row below, a cell either side, the step before) may be non-zero. False: none. */
static bool row_reach(const struct water *w, int y, int *lo, int *hi)
{
	int a = w->width, b = 0;

	if (w->live[y]) {
		a = w->span[y].lo - 1;
		b = w->span[y].hi + 1;
	}
	for (int dy = -1; dy <= 1; dy += 2)
		if (w->live[y + dy]) {
			a = w->span[y + dy].lo < a ? w->span[y + dy].lo : a;
			b = w->span[y + dy].hi > b ? w->span[y + dy].hi : b;
		}
	if (w->prev_live[y]) {
		a = w->prev_span[y].lo < a ? w->prev_span[y].lo : a;
		b = w->prev_span[y].hi > b ? w->prev_span[y].hi : b;
	}
	*lo = a < 0 ? 0 : a;
	*hi = b > w->width ? w->width : b;
	return *lo < *hi;
}

/* The non-zero cells' columns of a row known to hold one, within lo..hi. */
static struct water_span span_of(const int16_t *row, int lo, int hi)
{
	while (!row[lo])
		lo++;
	while (!row[hi - 1])
		hi--;
	return (struct water_span){ lo, hi };
}

/* The rows a step computes: the live ones and a row either side. */
static void step_rows(const struct water *w, int *y0, int *y1)
{
	*y0 = w->rows.lo > 0 ? w->rows.lo - 1 : 0;
	*y1 = w->rows.hi < w->height ? w->rows.hi + 1 : w->height;
}

/* Rows [y0, y1) of the next step into prev: each reads cur and writes only its own row of prev,
 * prev_live and prev_span, so bands of rows may run at once. */
static void step_band(struct water *w, int y0, int y1)
{
	const struct classic *c = w->state;
	int stride = w->stride, shift = w->tuning.damping_shift;
	double damping = w->tuning.damping;

	for (int y = y0; y < y1; y++) {
		const int16_t *mid, *keep;
		int16_t *next;
		int lo, hi;

		if (!row_reach(w, y, &lo, &hi)) {
			w->prev_live[y] = 0;
			continue;
		}
		next = w->prev + y * stride + lo;
		mid = w->cur + y * stride + lo;
		keep = w->walls ? w->walls + y * stride + lo : NULL;
		w->prev_live[y] = damping ? c->kernels.fraction(mid - stride, mid, mid + stride, next,
								keep, hi - lo, damping)
				       : c->kernels.shift(mid - stride, mid, mid + stride, next, keep,
							  hi - lo, shift);
		if (w->prev_live[y])
			w->prev_span[y] = span_of(next - lo, lo, hi);
	}
}

static void classic_step(struct water *w)
{
	int y0, y1;

	step_rows(w, &y0, &y1);
	step_band(w, y0, y1);
	water_swap_spans(w);
}

static void step_part(void *ctx, int chunk, int chunks, int thread)
{
	struct water *w = ctx;
	int y0, y1, n;

	(void)thread;
	step_rows(w, &y0, &y1);
	n = y1 - y0;
	step_band(w, y0 + n * chunk / chunks, y0 + n * (chunk + 1) / chunks);
}

static void classic_step_pool(struct water *w, struct pool *pool)
{
	int y0, y1, chunks;

	step_rows(w, &y0, &y1);
	/* a few rows are not worth waking anyone; more chunks than threads, so that a thread the
	 * machine slows does not hold the step */
	chunks = pool->threads * STEP_POOL_CHUNKS;
	if (chunks > (y1 - y0) / STEP_POOL_ROWS)
		chunks = (y1 - y0) / STEP_POOL_ROWS;
	if (chunks < 2 || (long)(y1 - y0) * w->width < w->share_min)
		step_band(w, y0, y1);
	else
		pool_run(pool, step_part, w, chunks);
	water_swap_spans(w);
}

const struct water_engine water_classic = {
	.name = "classic",
	.init = classic_init,
	.free = classic_free,
	.clear = classic_clear,
	.step = classic_step,
	.step_pool = classic_step_pool,
};
