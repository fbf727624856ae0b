/* water_spring.c - seed 004's springs: Hooke's law with viscosity, then diffusion passes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water.h"
#include "water_engine.h"
#include "water/kernels/water_spring_kernel.h"

/*
 * Fixed point, not float. Integers give the same water on every machine and compiler (float
 * would differ wherever a*b+c is contracted into an FMA, as gcc in GNU mode and clang do on
 * arm64), and truncating toward 0 stops the tiny values at a wave's front from spreading into
 * calm rows: measured at 1920x1080 (480x270 cells), a step costs about 2.4 ms with every row
 * wet against 2.0 ms in float, and 1.0 ms against 1.7 ms after one stone. Displacement and
 * speed are int32 in 1/2^FRAC of the seeds' height unit, whatever the cell (heights are
 * w->scale times finer than that above cell 1); the coefficients have COEF bits and their
 * products are taken in 64 bits.
 *
 * The heights published are WATER_SPRING_GAIN times the displacement: the passes spread a
 * stone's dent into a wide, low swell, which with the shared stone defaults would barely bend
 * the picture; 4 makes the ring read like the classic's while the round-off still never shows.
 */
#define FRAC SPRING_FRAC
#define COEF SPRING_COEF
#define LIMIT SPRING_LIMIT
_Static_assert(WATER_FINE == 1 << 4, "LIMIT is the int16 range in 1/WATER_FINE units");

struct spring {
	int32_t *mem[2];
	int32_t *x, *v;		/* displacement and vertical speed; stride and zero ring as cur */
	int32_t *flux[2];	/* the seed's lp and rp between rows: the edges above, below */
	int16_t *open;		/* a row's keep mask without walls: every cell -1 */
	uint8_t *active;	/* per row: x or v may be non-zero */
	uint8_t *band;		/* per row: within reach of this step's passes */
	int shift;		/* a height is x * WATER_SPRING_GAIN >> shift */
	struct spring_kernels kernels;	/* the row loops of the CPU's path */
};

static void spring_free(struct water *w)
{
	struct spring *s = w->state;

	if (s) {
		for (int i = 0; i < 2; i++)
			free(s->mem[i]);
		for (int i = 0; i < 2; i++)
			free(s->flux[i]);
		free(s->open);
		free(s->active);
		free(s->band);
	}
	free(s);
	w->state = NULL;
}

static int spring_init(struct water *w)
{
	struct spring *s = calloc(1, sizeof(*s));
	size_t cells = (size_t)w->stride * (w->height + 2);
	int ok = s != NULL;
	enum cpu_simd simd;

	for (int i = 0; ok && i < 2; i++)
		ok = (s->mem[i] = calloc(cells, sizeof(int32_t))) != NULL;
	for (int i = 0; ok && i < 2; i++)
		ok = (s->flux[i] = calloc(w->width, sizeof(int32_t))) != NULL;
	ok = ok && (s->open = malloc(w->width * sizeof(int16_t))) &&
	     (s->active = calloc(w->height, 1)) && (s->band = calloc(w->height, 1));
	w->state = s;
	if (!ok) {
		spring_free(w);
		return -ENOMEM;
	}
	s->x = s->mem[0] + w->stride + 1;
	s->v = s->mem[1] + w->stride + 1;
	s->shift = w->scale > 1 ? FRAC - 4 : FRAC;
	cpu_simd_choose(&simd);
	if (spring_kernels_for(simd, &s->kernels) < 0)
		spring_kernels_for(CPU_SCALAR, &s->kernels);
	for (int x = 0; x < w->width; x++)
		s->open[x] = -1;
	return 0;
}

static void spring_clear(struct water *w)
{
	struct spring *s = w->state;
	size_t cells = (size_t)w->stride * (w->height + 2);

	for (int i = 0; i < 2; i++)
		memset(s->mem[i], 0, cells * sizeof(int32_t));
	memset(s->active, 0, w->height);
}

/*
 * A stone sets the displacement to h (its heights then show WATER_SPRING_GAIN times that) and
 * leaves the surface at rest in its dent. A cosine stone that keeps what is there (the surface
 * is already deeper) hands back the height shown: then the springs stay as they are, or a
 * finger held still would deepen its dent by the gain at every step.
 */
static void spring_set(struct water *w, int x, int y, int16_t h)
{
	struct spring *s = w->state;
	size_t i = (size_t)y * w->stride + x;
	int64_t d = (int64_t)h * (1 << s->shift);

	if (h == spring_shown(s->x[i], s->shift))
		return;
	s->x[i] = (int32_t)(d > LIMIT ? LIMIT : d < -LIMIT ? -LIMIT : d);
	s->v[i] = 0;
	s->active[y] = 1;
}

static int32_t coef(double c)
{
	return (int32_t)lround(c * (1 << COEF));
}

static inline const int16_t *keep_row(const struct water *w, int y)
{
	const struct spring *s = w->state;

	return w->walls ? w->walls + y * w->stride : s->open;
}

/* Rows within passes of an active row: the only ones a step can make non-zero. */
static void find_band(const struct water *w, int passes)
{
	const struct spring *s = w->state;
	int last = -passes - 1, next = w->height + passes;

	for (int y = 0; y < w->height; y++) {
		last = s->active[y] ? y : last;
		s->band[y] = y - last <= passes;
	}
	for (int y = w->height - 1; y >= 0; y--) {
		next = s->active[y] ? y : next;
		s->band[y] |= next - y <= passes;
	}
}

/*
 * One pass of the seed over the band: every row along x, then every pair of rows along y,
 * each from the displacement the previous sweep left. A row's y-sweep runs as soon as the row
 * below has had its x-sweep, while both are still in the cache.
 */
static void spread_pass(struct water *w, int32_t spread)
{
	struct spring *s = w->state;
	int width = w->width, stride = w->stride;
	int32_t *up = s->flux[0], *down = s->flux[1];

	for (int y = 0; y < w->height; y++) {
		if (!s->band[y])
			continue;
		int32_t *x = s->x + y * stride, *v = s->v + y * stride;
		bool below = y + 1 < w->height && s->band[y + 1];

		if (y == 0 || !s->band[y - 1]) {
			memset(up, 0, width * sizeof(int32_t));
			s->kernels.spread(x, v, keep_row(w, y), width, spread);
		}
		if (below)
			s->kernels.spread(x + stride, v + stride, keep_row(w, y + 1), width,
					  spread);
		s->kernels.spread_rows(x, v, below ? x + stride : NULL, up, down, keep_row(w, y),
				       below ? keep_row(w, y + 1) : NULL, width, spread);
		int32_t *t = up;
		up = down;
		down = t;
	}
}

/*
 * Truncation toward 0 leaves two kinds of residue that would never calm: a spring at rest
 * whose pull rounds to 0 (k |x| under one unit of the state), and tiny round-off that the
 * gain would show as a shimmer. So a cell at rest within 1 / k is still; above cell 1 so is a
 * cell whose displacement and speed are both under half a height, like the classic's integer
 * heights, which keep nothing finer. At cell 1 only the first, so that the water stays the
 * seed's: there the lake is calm once nothing in it shows or moves by half a height, and not
 * before, so that the small values at a wave's front are never cut while the wave grows.
 */
static void settle(struct water *w)
{
	struct spring *s = w->state;
	int stride = w->stride, shows = 0;
	int32_t half = (1 << (s->shift - 1)) / WATER_SPRING_GAIN;
	struct spring_settle at = { s->shift, half, w->scale > 1 ? half : 0,
				    (int32_t)ceil(1 / w->tuning.stiffness) };

	for (int y = 0; y < w->height; y++) {
		int16_t *out = w->prev + y * stride;

		if (s->band[y]) {
			int r = s->kernels.settle(s->x + y * stride, s->v + y * stride, out,
						  keep_row(w, y), w->width, &at);

			s->active[y] = w->prev_live[y] = r & SPRING_SETTLE_ANY;
			shows |= r & SPRING_SETTLE_SHOWS;
		} else if (w->prev_live[y]) {
			memset(out, 0, w->width * sizeof(int16_t));
			w->prev_live[y] = 0;
		}
	}
	for (int y = 0; !shows && y < w->height; y++)
		if (s->active[y]) {
			memset(s->x + y * stride, 0, w->width * sizeof(int32_t));
			memset(s->v + y * stride, 0, w->width * sizeof(int32_t));
			memset(w->prev + y * stride, 0, w->width * sizeof(int16_t));
			s->active[y] = w->prev_live[y] = 0;
		}
}

static void spring_step(struct water *w)
{
	struct spring *s = w->state;
	const struct water_tuning *t = &w->tuning;
	int passes = t->passes, stride = w->stride;
	/* config.c refuses less; a tuning set by other means is held to it here */
	double m = fmax(t->viscosity, t->stiffness + WATER_SPRING_MARGIN);
	int32_t k = coef(t->stiffness), visc = coef(m), spread = coef(t->spread);

	find_band(w, passes);
	for (int y = 0; y < w->height; y++)
		if (s->active[y])
			s->kernels.push(s->x + y * stride, s->v + y * stride, w->width, k, visc);
	for (int p = 0; p < passes; p++)
		spread_pass(w, spread);
	settle(w);
	water_swap(w);
}

void water_spring_state(const struct water *w, const int32_t **x, const int32_t **v)
{
	const struct spring *s = w->state;

	*x = s->mem[0];
	*v = s->mem[1];
}

const struct water_engine water_spring = {
	.name = "spring",
	.init = spring_init,
	.free = spring_free,
	.clear = spring_clear,
	.step = spring_step,
	.set = spring_set,
};
