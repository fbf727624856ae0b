/* test_spring_paths.c - every vector path of the spring step equals the scalar one exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "util/cpu.h"
#include "testutil.h"
#include "water/water.h"
#include "water/water_engine.h"
#include "water/kernels/water_spring_kernel.h"

#define LIMIT SPRING_LIMIT

/* The settle thresholds of the engine: cell 1 (shift 16, no still) and above (shift 12), the
 * creep of the stiffest and the weakest spring config.c allows. */
static const struct spring_settle settles[] = {
	{ 16, 8192, 0, 2 }, { 12, 512, 512, 2 }, { 16, 8192, 0, 1000 }, { 12, 512, 512, 1000 },
};
#define NSETTLES (int)(sizeof(settles) / sizeof(settles[0]))

/*
 * A state value up to bound: the bounds LIMIT and 2 LIMIT and their neighbours, 0 and 1, the
 * settle thresholds of at and their neighbours (where a cell turns still or starts to show),
 * about 2^SPRING_COEF (where a product with the coefficient 1 rounds toward 0 or not), and any
 * value, each sign alike.
 */
static int32_t random_state(int32_t bound, const struct spring_settle *at)
{
	int32_t special[] = { 0, 0, 0, 1, LIMIT, LIMIT - 1, LIMIT + 1, 2 * LIMIT - 1,
			      at->creep, at->creep + 1, at->shows - 1, at->shows, at->still - 1,
			      at->still, 2048, 2047, (1 << SPRING_COEF) - 1, 1 << SPRING_COEF,
			      (1 << SPRING_COEF) + 1 };
	uint32_t r = tu_random() % 4;
	int32_t v = r ? (int32_t)(tu_random() % (uint32_t)bound)
		      : special[tu_random() % (sizeof(special) / sizeof(special[0]))];

	v = v > bound ? bound : v;
	return tu_random() % 2 ? -v : v;
}

/* A row's cells with room for the vector loads past it, which must never be read. */
struct row {
	int32_t *x, *v, *x2, *v2, *xd, *up, *down, *down2;
	int16_t *keep, *keepd, *out, *out2;
};

static void row_fill(struct row *r, int width, int32_t xbound, int32_t vbound, bool walls,
		     const struct spring_settle *at)
{
	for (int i = 0; i < width; i++) {
		r->x[i] = r->x2[i] = random_state(xbound, at);
		r->v[i] = r->v2[i] = random_state(vbound, at);
		r->xd[i] = random_state(xbound, at);
		r->up[i] = random_state(LIMIT / 4, at);
		r->down[i] = r->down2[i] = 7;
		r->keep[i] = walls && tu_random() % 5 == 0 ? 0 : -1;
		r->keepd[i] = walls && tu_random() % 5 == 0 ? 0 : -1;
		r->out[i] = r->out2[i] = 5;
	}
}

/* Past each row PAD cells that a kernel must neither read (they would change its result) nor
 * write. */
enum { PAD = 16 };
#define POISON 0x2bad5a5a

static void row_alloc(struct row *r, int width)
{
	int32_t **ints[] = { &r->x, &r->v, &r->x2, &r->v2, &r->xd, &r->up, &r->down, &r->down2 };
	int16_t **shorts[] = { &r->keep, &r->keepd, &r->out, &r->out2 };

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		*ints[i] = malloc((size_t)(width + PAD) * sizeof(int32_t));
		for (int j = width; j < width + PAD; j++)
			(*ints[i])[j] = POISON;
	}
	for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++) {
		*shorts[i] = malloc((size_t)(width + PAD) * sizeof(int16_t));
		for (int j = width; j < width + PAD; j++)
			(*shorts[i])[j] = -1;
	}
}

static void row_free(struct row *r)
{
	int32_t *ints[] = { r->x, r->v, r->x2, r->v2, r->xd, r->up, r->down, r->down2 };
	int16_t *shorts[] = { r->keep, r->keepd, r->out, r->out2 };

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		free(ints[i]);
	for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
		free(shorts[i]);
}

static void same_ints(const int32_t *got, const int32_t *want, int width, const char *what,
		      enum cpu_simd simd)
{
	for (int i = 0; i < width; i++)
		if (got[i] != want[i])
			fail_msg("%s %s width %d cell %d: %d, scalar %d", cpu_simd_name(simd), what,
				 width, i, got[i], want[i]);
	for (int i = width; i < width + PAD; i++)
		if (got[i] != POISON)
			fail_msg("%s %s width %d: wrote past the row", cpu_simd_name(simd), what, width);
}

static void same_shorts(const int16_t *got, const int16_t *want, int width, const char *what,
			enum cpu_simd simd)
{
	for (int i = 0; i < width; i++)
		if (got[i] != want[i])
			fail_msg("%s %s width %d cell %d: %d, scalar %d", cpu_simd_name(simd), what,
				 width, i, got[i], want[i]);
	for (int i = width; i < width + PAD; i++)
		if (got[i] != -1)
			fail_msg("%s %s width %d: wrote past the row", cpu_simd_name(simd), what, width);
}

static const int widths[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 481 };
#define NWIDTHS (int)(sizeof(widths) / sizeof(widths[0]))

/* The coefficients (of 2^24) of config.c's ranges, a negative one the vector paths must also
 * get right or leave to the scalar code, 0, and 1 (its products round at every boundary). */
static const int32_t stiffs[] = { 16777, 335544, 8388608, 0, 1 };
static const int32_t viscs[] = { 25166, 838861, 16777216, 8397000, 1 };
static const int32_t spreads[] = { 16777, 419430, 1677722, -419430, 0, 1 };
#define NCOEFS(a) (int)(sizeof(a) / sizeof(a[0]))

/* Row by row, each kernel of a path beside the scalar one from the same random state: the
 * state within the bounds a step keeps it to (water_spring_kernel.h) and past them. */
static void test_kernels_equal_scalar(void **state)
{
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths);
	struct spring_kernels ref, k;

	(void)state;
	assert_int_equal(spring_kernels_for(CPU_SCALAR, &ref), 0);
	for (int p = 0; p < n; p++) {
		assert_int_equal(spring_kernels_for(paths[p], &k), 0);
		for (int wi = 0; wi < NWIDTHS; wi++) {
			int width = widths[wi];
			struct row r;

			row_alloc(&r, width);
			for (int round = 0; round < 60; round++) {
				const struct spring_settle *at = &settles[round % NSETTLES];
				bool walls = round % 2;
				int32_t kc = stiffs[round % NCOEFS(stiffs)];
				int32_t mc = viscs[round / 2 % NCOEFS(viscs)];
				int32_t sc = spreads[round % NCOEFS(spreads)];
				int got, want;

				row_fill(&r, width, LIMIT, LIMIT, walls, at);
				k.push(r.x, r.v, width, kc, mc);
				ref.push(r.x2, r.v2, width, kc, mc);
				same_ints(r.x, r.x2, width, "push x", paths[p]);
				same_ints(r.v, r.v2, width, "push v", paths[p]);

				row_fill(&r, width, 2 * LIMIT, 14 * LIMIT, walls, at);
				k.spread(r.x, r.v, r.keep, width, sc);
				ref.spread(r.x2, r.v2, r.keep, width, sc);
				same_ints(r.x, r.x2, width, "spread x", paths[p]);
				same_ints(r.v, r.v2, width, "spread v", paths[p]);

				for (int below = 0; below < 2; below++) {
					row_fill(&r, width, 2 * LIMIT, 14 * LIMIT, walls, at);
					k.spread_rows(r.x, r.v, below ? r.xd : NULL, r.up, r.down,
						      r.keep, below ? r.keepd : NULL, width, sc);
					ref.spread_rows(r.x2, r.v2, below ? r.xd : NULL, r.up, r.down2,
							r.keep, below ? r.keepd : NULL, width, sc);
					same_ints(r.x, r.x2, width, "spread_rows x", paths[p]);
					same_ints(r.v, r.v2, width, "spread_rows v", paths[p]);
					same_ints(r.down, r.down2, width, "spread_rows down", paths[p]);
				}

				/* past LIMIT (the clamp), and mostly small (still cells, all 0 rows) */
				row_fill(&r, width, round % 3 ? 15 * LIMIT : 3 * at->shows, 15 * LIMIT,
					 walls, at);
				if (round % 4 == 3)
					for (int i = 0; i < width; i++)
						r.v[i] = r.v2[i] = 0;
				got = k.settle(r.x, r.v, r.out, r.keep, width, at);
				want = ref.settle(r.x2, r.v2, r.out2, r.keep, width, at);
				same_ints(r.x, r.x2, width, "settle x", paths[p]);
				same_ints(r.v, r.v2, width, "settle v", paths[p]);
				same_shorts(r.out, r.out2, width, "settle heights", paths[p]);
				if (got != want)
					fail_msg("%s settle width %d: flags %d, scalar %d",
						 cpu_simd_name(paths[p]), width, got, want);
			}
			row_free(&r);
		}
	}
}

/* One moving cell in a row, in every lane and in the tail: settle's flags must see it. */
static void test_settle_flags_see_every_cell(void **state)
{
	static const struct {
		int settle;
		int32_t v;
		int want;
	} cases[] = {
		{ 1, 511, 0 },	/* still */
		{ 1, 512, SPRING_SETTLE_ANY | SPRING_SETTLE_SHOWS },
		{ 0, 100, SPRING_SETTLE_ANY },	/* moves, too little to show */
		{ 0, -8192, SPRING_SETTLE_ANY | SPRING_SETTLE_SHOWS },
	};
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths);

	(void)state;
	for (int p = 0; p < n; p++) {
		struct spring_kernels k;
		int32_t x[19], v[19];
		int16_t keep[19], out[19];

		assert_int_equal(spring_kernels_for(paths[p], &k), 0);
		for (int i = 0; i < 19; i++)
			keep[i] = -1;
		for (int cell = 0; cell < 19; cell++)
			for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
				int got;

				memset(x, 0, sizeof(x));
				memset(v, 0, sizeof(v));
				v[cell] = cases[c].v;
				got = k.settle(x, v, out, keep, 19, &settles[cases[c].settle]);
				if (got != cases[c].want)
					fail_msg("%s cell %d v %d: flags %d, want %d",
						 cpu_simd_name(paths[p]), cell, cases[c].v, got,
						 cases[c].want);
			}
	}
}

/* A water the spring engine runs on one path, width x height cells: cell 4 from variant 2 on
 * (their settle differs), and from variant 4 on config.c's extremes (the widest spread with
 * the most passes, the weakest spring, whose creep is the largest) in place of the defaults. */
static void open_on(struct water *w, enum cpu_simd simd, int width, int height, int variant)
{
	int cell = variant & 2 ? 4 : 1;
	struct water_tuning t;
	struct config cfg;

	config_defaults(&cfg);
	t = config_water_tuning(&cfg);
	if (variant & 4) {
		t.spread = 0.1;
		t.passes = 8;
		t.stiffness = 0.001;
		t.viscosity = 0.001 + WATER_SPRING_MARGIN;
	}
	tu_water_open_on(w, &water_spring, simd, width * cell, height * cell, cell, &t);
	w->shape = WATER_DISC;
}

/* The heaviest stones, and rain of them for a while: then the water calms. */
static void disturb(struct water *w, int step, uint64_t seed)
{
	struct water_rain rain = { .rate = 2, .size = 3 * w->cell, .weight = INT16_MAX,
				   .rng = seed + step };

	if (step % 40 == 0) {
		water_drop(w, w->screen_width / 2, w->screen_height / 2, 5 * w->cell, INT16_MAX);
		water_drop(w, w->screen_width / 3, w->screen_height / 3, 3 * w->cell, -INT16_MAX);
	}
	if (step < 150)
		water_rain(w, &rain, 1.0);
}

/* The springs' displacement and speed, beyond the heights they show. */
static void same_springs(const struct water *a, const struct water *b, const char *label,
			 int step)
{
	const int32_t *ax, *av, *bx, *bv;

	water_spring_state(a, &ax, &av);
	water_spring_state(b, &bx, &bv);
	tu_same_grid(a, ax, bx, sizeof(int32_t), label, step, "displacement");
	tu_same_grid(a, av, bv, sizeof(int32_t), label, step, "speed");
}

/* Cells whose displacement reached the clamp at LIMIT (within 1/64 of it). */
static int saturated_cells(const struct water *w)
{
	size_t cells = (size_t)w->stride * (w->height + 2);
	const int32_t *x, *v;
	int n = 0;

	water_spring_state(w, &x, &v);
	for (size_t i = 0; i < cells; i++)
		n += abs(x[i]) >= LIMIT - LIMIT / 64;
	return n;
}

/*
 * Whole waters, 300 steps each, every path forced through FBRIPPLE_SIMD beside the scalar one
 * (heights, live rows, and the springs' displacement and speed): odd widths, cell 1 and 4,
 * walls or none, the heaviest stones (the state reaches LIMIT), the defaults beside config.c's
 * extremes.
 */
static void test_every_path_steps_like_scalar(void **state)
{
	static const int sizes[][2] = { { 1, 9 }, { 7, 13 }, { 33, 21 }, { 250, 17 }, { 483, 11 } };
	const struct tu_lockstep run = {
		.sizes = sizes, .nsizes = (int)(sizeof(sizes) / sizeof(sizes[0])), .variants = 8,
		.steps = 300, .open = open_on, .disturb = disturb, .same = same_springs,
		.saturated = saturated_cells,
	};

	(void)state;
	tu_lockstep_run(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels_equal_scalar),
		cmocka_unit_test(test_settle_flags_see_every_cell),
		cmocka_unit_test(test_every_path_steps_like_scalar),
	};

	return cmocka_run_group_tests_name("spring_paths", tests, NULL, NULL);
}
