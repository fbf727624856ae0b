/* test_water.c - the height field against the seed code, and its physics and bookkeeping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "seed_port.h"
#include "testutil.h"
#include "water/water.h"
#include "water/water_engine.h"
#include "water/kernels/water_kernel.h"

static int16_t at(const struct water *w, int x, int y)
{
	return water_row(w, y)[x];
}

/* Our cell (x, y) is the seed's (x + 1, y + 1): the seed's first and last rows are our border. */
static void assert_same_as_seed(const struct water *w, const struct seed *s, int step)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++) {
			int16_t want = s->buf1[(y + 1) * s->width + x + 1];

			if (at(w, x, y) != want)
				fail_msg("step %d cell (%d,%d): %d, seed %d", step, x, y, at(w, x, y),
					 want);
		}
}

/* Seed 000 as written, step for step. Its 1-D loop also updates its first and last columns
 * through a wrap from row to row; the drops are far enough from those columns that no wave
 * reaches them in 200 steps (a wave front moves one cell per step), which is asserted. */
static void test_equals_seed_port(void **state)
{
	enum { W = 480, H = 300, STEPS = 200, R = 6 };
	static const int drops[][4] = {	/* step, x, y, weight */
		{ 0, 240, 150, 128 }, { 0, 220, 6, 100 }, { 0, 250, 290, 64 },
		{ 37, 230, 100, 90 }, { 120, 260, 200, 128 }, { 150, 244, 151, 50 },
	};
	struct water w;
	struct seed s;

	(void)state;
	assert_int_equal(water_init(&w, W, H, 1, 5), 0);
	assert_int_equal(seed_init(&s, W + 2, H + 2, 5), 0);
	for (int step = 0; step < STEPS; step++) {
		for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
			if (drops[i][0] != step)
				continue;
			water_drop(&w, drops[i][1], drops[i][2], R, drops[i][3]);
			seed_dropstone(&s, drops[i][1] + 1, drops[i][2] + 1, R, drops[i][3]);
		}
		water_step(&w);
		seed_ripplespread(&s);
		assert_same_as_seed(&w, &s, step);
		for (int y = 0; y < H + 2; y++) {
			assert_int_equal(s.buf1[y * s.width], 0);
			assert_int_equal(s.buf1[y * s.width + s.width - 1], 0);
		}
	}
	assert_false(water_calm(&w));
	water_free(&w);
	seed_free(&s);
}

/* The kernel over a field whose four borders stay 0, written plainly (no row skipping). */
struct plain {
	int w, h, shift;
	int16_t *cur, *prev;
};

static int16_t *plain_at(int16_t *buf, const struct plain *p, int x, int y)
{
	return &buf[(y + 1) * (p->w + 2) + x + 1];
}

static void plain_step(struct plain *p)
{
	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++) {
			int sum = *plain_at(p->cur, p, x - 1, y) + *plain_at(p->cur, p, x + 1, y) +
				  *plain_at(p->cur, p, x, y - 1) + *plain_at(p->cur, p, x, y + 1);
			int16_t v = (int16_t)((sum >> 1) - *plain_at(p->prev, p, x, y));

			*plain_at(p->prev, p, x, y) = (int16_t)(v - (v >> p->shift));
		}
	int16_t *t = p->cur;
	p->cur = p->prev;
	p->prev = t;
}

static void plain_drop(struct plain *p, int cx, int cy, int r, int weight)
{
	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++)
			if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r)
				*plain_at(p->cur, p, x, y) = (int16_t)-weight;
}

/* Edges included: drops on and across every edge and corner, 300 steps, exact equality. */
static void test_equals_plain_kernel_at_edges(void **state)
{
	enum { W = 61, H = 37 };
	static const int drops[][3] = { { 0, 0, 5 }, { 60, 18, 4 }, { 30, 36, 6 }, { -2, 20, 5 },
					{ 58, 1, 3 }, { 30, 18, 2 } };
	size_t cells = (size_t)(W + 2) * (H + 2);
	struct plain p = { W, H, 4, calloc(cells, 2), calloc(cells, 2) };
	struct water w;

	(void)state;
	assert_int_equal(water_init(&w, W, H, 1, 4), 0);
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		water_drop(&w, drops[i][0], drops[i][1], drops[i][2], 120);
		plain_drop(&p, drops[i][0], drops[i][1], drops[i][2], 120);
	}
	for (int step = 0; step < 300; step++) {
		water_step(&w);
		plain_step(&p);
		for (int y = -1; y <= H; y++)
			for (int x = -1; x <= W; x++)
				if (at(&w, x, y) != *plain_at(p.cur, &p, x, y))
					fail_msg("step %d cell (%d,%d): %d, plain %d", step, x, y,
						 at(&w, x, y), *plain_at(p.cur, &p, x, y));
	}
	water_free(&w);
	free(p.cur);
	free(p.prev);
}

static void test_central_drop_is_symmetric(void **state)
{
	enum { N = 101, C = 50 };
	struct water w;
	int nonzero = 0;

	(void)state;
	assert_int_equal(water_init(&w, N, N, 1, 5), 0);
	water_drop(&w, C, C, 7, 128);
	for (int step = 0; step < 400; step++) {
		water_step(&w);
		for (int y = 0; y < N; y++)
			for (int x = 0; x < N; x++) {
				int16_t v = at(&w, x, y);

				nonzero += v != 0;
				if (v != at(&w, N - 1 - x, y) || v != at(&w, x, N - 1 - y) ||
				    v != at(&w, y, x))
					fail_msg("step %d: (%d,%d)=%d breaks the symmetry", step, x, y, v);
			}
	}
	assert_true(nonzero > 1000);
	water_free(&w);
}

static bool all_zero(const struct water *w)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			if (at(w, x, y) || w->prev[y * w->stride + x])
				return false;
	return true;
}

static void test_decays_to_calm(void **state)
{
	struct water w;
	int step;

	(void)state;
	assert_int_equal(water_init(&w, 320, 240, 1, 5), 0);
	assert_true(water_calm(&w));
	water_drop(&w, 160, 120, 20, 4096);
	water_drop(&w, 3, 3, 10, 1000);
	water_drop(&w, 300, 200, 1, 77);
	assert_false(water_calm(&w));
	for (step = 0; step < 5000 && !water_calm(&w); step++) {
		water_step(&w);
		if (!water_calm(&w) && all_zero(&w))
			fail_msg("step %d: all cells are 0 but the field is not calm", step);
	}
	assert_true(water_calm(&w));
	assert_true(all_zero(&w));
	assert_true(step > 50);
	water_step(&w);
	assert_true(water_calm(&w));
	water_free(&w);
}

/*
 * Seed 003's damping on integer buffers, as written: Buffer2 = Buffer2 * damping, the product
 * a double and the store into the integer buffer a C cast, which truncates toward zero. The
 * rest of the step is the classic kernel (seed 000's ">> 1", which rounds down; seed 003's
 * pseudo-code "/ 2" leaves the rounding open).
 */
static void seed003_step(struct plain *p, double damping)
{
	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++) {
			int16_t *buffer2 = plain_at(p->prev, p, x, y);
			int sum = *plain_at(p->cur, p, x - 1, y) + *plain_at(p->cur, p, x + 1, y) +
				  *plain_at(p->cur, p, x, y - 1) + *plain_at(p->cur, p, x, y + 1);

			*buffer2 = (int16_t)((sum >> 1) - *buffer2);
			*buffer2 = (int16_t)(*buffer2 * damping);
		}
	int16_t *t = p->cur;
	p->cur = p->prev;
	p->prev = t;
}

/* Every height the kernel can make, damped once: with cur all 0 a step makes next = -prev. */
static void assert_damps_every_height_like_seed_003(double damping)
{
	enum { N = 2 * INT16_MAX + 1 };
	struct water_tuning tuning = { .damping_shift = 5, .damping = damping };
	struct water w;

	assert_int_equal(water_open(&w, &water_classic, N, 1, 1, &tuning), 0);
	for (int x = 0; x < N; x++)
		w.prev[x] = (int16_t)(INT16_MAX - x);
	w.prev_live[0] = 1;
	w.prev_span[0] = (struct water_span){ 0, N };
	w.rows = (struct water_span){ 0, 1 };
	water_step(&w);
	for (int x = 0; x < N; x++) {
		int16_t v = (int16_t)(x - INT16_MAX), want = (int16_t)(v * damping);

		if (at(&w, x, 0) != want)
			fail_msg("damping %.17g of %d: %d, seed %d", damping, v, at(&w, x, 0), want);
	}
	water_free(&w);
}

/* water.damping: the classic engine with a fraction equals the port above step for step, for
 * seed 003's 0.94 and two more, with drops along the way (the last at step LAST) until it is
 * calm or for STEPS steps; then it calms in bounded steps. */
static void test_fraction_equals_seed_003(void **state)
{
	enum { W = 97, H = 61, STEPS = 400, LAST = 250 };
	static const double fractions[] = { 0.94, 0.97, 0.9999 };
	static const int drops[][5] = {	/* step, x, y, radius, weight */
		{ 0, 48, 30, 5, 300 }, { 0, 3, 2, 4, 150 }, { 60, 90, 55, 3, 2000 },
		{ 61, 20, 40, 6, 77 }, { 250, 50, 31, 2, 999 },
	};
	size_t cells = (size_t)(W + 2) * (H + 2);

	(void)state;
	for (int i = 0; i < 500; i++)
		assert_damps_every_height_like_seed_003(0.5 + i * 0.001);
	assert_damps_every_height_like_seed_003(0.9999);
	for (size_t f = 0; f < sizeof(fractions) / sizeof(fractions[0]); f++) {
		struct water_tuning tuning = { .damping_shift = 5, .damping = fractions[f] };
		struct plain p = { W, H, 0, calloc(cells, 2), calloc(cells, 2) };
		struct water w;
		int step;

		assert_int_equal(water_open(&w, &water_classic, W, H, 1, &tuning), 0);
		for (step = 0; step < STEPS; step++) {
			for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
				if (drops[i][0] != step)
					continue;
				water_drop(&w, drops[i][1], drops[i][2], drops[i][3], drops[i][4]);
				plain_drop(&p, drops[i][1], drops[i][2], drops[i][3], drops[i][4]);
			}
			if (step > LAST && water_calm(&w))
				break;
			water_step(&w);
			seed003_step(&p, fractions[f]);
			for (int y = -1; y <= H; y++)
				for (int x = -1; x <= W; x++)
					if (at(&w, x, y) != *plain_at(p.cur, &p, x, y))
						fail_msg("damping %g step %d cell (%d,%d): %d, seed %d",
							 fractions[f], step, x, y, at(&w, x, y),
							 *plain_at(p.cur, &p, x, y));
		}
		/* then calm, in bounded steps: the stones' heights are gone, and so is the work */
		for (; step < 200000 && !water_calm(&w); step++)
			water_step(&w);
		assert_true(water_calm(&w));
		assert_true(all_zero(&w));
		printf("# damping %g: calm %d steps after the last stone\n", fractions[f],
		       step - LAST);
		water_free(&w);
		free(p.cur);
		free(p.prev);
	}
}

/* A drop near the left edge in a 300-wide field against the same drop far from any edge in a
 * 700-wide one: the difference is the reflection, and it must travel back across the drop. */
static void test_edges_reflect(void **state)
{
	struct water near, far;
	int max_diff = 0;

	(void)state;
	assert_int_equal(water_init(&near, 300, 60, 1, 6), 0);
	assert_int_equal(water_init(&far, 700, 60, 1, 6), 0);
	water_drop(&near, 20, 30, 4, 400);
	water_drop(&far, 420, 30, 4, 400);
	for (int step = 0; step < 120; step++) {
		water_step(&near);
		water_step(&far);
	}
	for (int y = 0; y < 60; y++)
		for (int x = 40; x < 80; x++) {
			int d = abs(at(&near, x, y) - at(&far, x + 400, y));

			max_diff = d > max_diff ? d : max_diff;
		}
	assert_true(max_diff >= 4);
	for (int y = -1; y <= 60; y++)
		assert_int_equal(at(&near, -1, y), 0);
	water_free(&near);
	water_free(&far);
}

static int count_value(const struct water *w, int16_t v)
{
	int n = 0;

	for (int y = -1; y <= w->height; y++)
		for (int x = -1; x <= w->width; x++)
			n += at(w, x, y) == v;
	return n;
}

static void test_edge_drops_are_clipped_not_lost(void **state)
{
	struct water w;

	(void)state;
	assert_int_equal(water_init(&w, 40, 30, 1, 5), 0);
	water_drop(&w, 0, 0, 3, 50);	/* the quarter of the disc x^2 + y^2 < 9 on screen: 3x3 */
	assert_int_equal(count_value(&w, -50), 9);
	assert_int_equal(at(&w, 2, 2), -50);
	assert_int_equal(at(&w, 3, 0), 0);
	water_drop(&w, -1, 15, 3, 60);	/* centre off screen: columns 0 and 1, rows 13..17 */
	assert_int_equal(count_value(&w, -60), 10);
	assert_int_equal(at(&w, 0, 13), -60);
	assert_int_equal(at(&w, 1, 17), -60);
	assert_int_equal(at(&w, 0, 18), 0);
	assert_int_equal(at(&w, 2, 15), 0);
	water_drop(&w, 39, 29, 2, 70);	/* bottom-right corner: a 2x2 quarter */
	assert_int_equal(count_value(&w, -70), 4);
	water_drop(&w, -9, 5, 3, 80);	/* wholly off screen: nothing */
	assert_int_equal(count_value(&w, -80), 0);
	for (int x = -1; x <= 40; x++)
		assert_int_equal(at(&w, x, -1) | at(&w, x, 30), 0);
	for (int i = 0; i < 10; i++)
		water_step(&w);
	assert_false(water_calm(&w));
	water_free(&w);
}

static void test_trail_hits_every_cell_of_the_line(void **state)
{
	static const int lines[][4] = { { 5, 5, 60, 23 }, { 60, 23, 5, 5 }, { 10, 40, 12, 1 },
					{ 30, 30, 30, 10 }, { 0, 0, 63, 0 }, { 8, 9, 9, 8 } };
	struct water w;

	(void)state;
	assert_int_equal(water_init(&w, 64, 48, 1, 5), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int x0 = lines[i][0], y0 = lines[i][1], x1 = lines[i][2], y1 = lines[i][3];
		int adx = abs(x1 - x0), ady = abs(y1 - y0);
		int cells = adx > ady ? adx : ady;

		water_clear(&w);
		water_trail(&w, x0, y0, x1, y1, 1, 9, 1);
		assert_int_equal(count_value(&w, -9), cells);
		assert_int_equal(at(&w, x0, y0), 0);
		assert_int_equal(at(&w, x1, y1), -9);
		/* one cell per step of the major axis, each within half a cell of the true line */
		for (int y = 0; y < 48; y++)
			for (int x = 0; x < 64; x++) {
				double cross = (double)(x - x0) * (y1 - y0) - (double)(y - y0) * (x1 - x0);

				if (at(&w, x, y) == -9 && (cross < 0 ? -cross : cross) > cells * 0.5 + 1e-9)
					fail_msg("line %zu: (%d,%d) is off the line", i, x, y);
			}
	}
	water_clear(&w);
	water_trail(&w, 0, 10, 30, 10, 1, 9, 4);	/* cells 4, 8, ... 28 and the end, 30 */
	assert_int_equal(count_value(&w, -9), 8);
	assert_int_equal(at(&w, 4, 10), -9);
	assert_int_equal(at(&w, 28, 10), -9);
	assert_int_equal(at(&w, 30, 10), -9);
	assert_int_equal(at(&w, 29, 10), 0);
	water_free(&w);
}

/* The trail as it was walked before it was clipped: every pixel of the line, a stone every
 * spacing pixels and at the end. With pad >= 0 only the stones centred within pad pixels of
 * the water fall. Returns their work. */
static long walked_trail(struct water *w, const int line[4], int radius, int spacing, int pad)
{
	int x0 = line[0], y0 = line[1], x1 = line[2], y1 = line[3];
	int dx = abs(x1 - x0), dy = -abs(y1 - y0);
	int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	int err = dx + dy, n = 0, right = w->width * w->cell - 1, bottom = w->height * w->cell - 1;
	long work = 0;

	while (x0 != x1 || y0 != y1) {
		int e2 = 2 * err;
		bool near;

		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
		near = x0 >= -pad && x0 <= right + pad && y0 >= -pad && y0 <= bottom + pad;
		if ((++n % spacing == 0 || (x0 == x1 && y0 == y1)) && (pad < 0 || near))
			work += water_drop(w, x0, y0, radius, 77);
	}
	return work;
}

/* Everything a stone can change: the heights with the border, and which rows and columns
 * are wet. */
static void assert_same_water(const struct water *a, const struct water *b, const char *what)
{
	size_t cells = (size_t)a->stride * (a->height + 2);

	if (memcmp(a->mem[0], b->mem[0], cells * sizeof(int16_t)))
		fail_msg("%s: the heights differ", what);
	assert_int_equal(a->live_rows, b->live_rows);
	for (int y = 0; y < a->height; y++) {
		if (a->live[y] != b->live[y] ||
		    (a->live[y] && memcmp(&a->span[y], &b->span[y], sizeof(a->span[y]))))
			fail_msg("%s: row %d is wet differently", what, y);
	}
}

/* input.trail_spacing "auto" (0): WATER_AUTO_TRAIL_CELLS cells, in pixels at the water's cell,
 * so a wake looks alike at 800x480 and at 4K. */
static void test_trail_auto_spacing_is_two_cells(void **state)
{
	struct water a, b;

	(void)state;
	for (int cell = 1; cell <= 8; cell++) {
		assert_int_equal(water_init(&a, 640, 480, cell, 5), 0);
		assert_int_equal(water_init(&b, 640, 480, cell, 5), 0);
		water_trail(&a, 20, 30, 600, 400, 0, 40, 0);
		water_trail(&b, 20, 30, 600, 400, 0, 40, 2 * cell);
		assert_memory_equal(a.cur, b.cur, (size_t)a.stride * a.height * sizeof(*a.cur));
		water_clear(&b);
		water_trail(&b, 20, 30, 600, 400, 0, 40, 2 * cell + 1);
		assert_memory_not_equal(a.cur, b.cur,
					(size_t)a.stride * a.height * sizeof(*a.cur));
		water_free(&a);
		water_free(&b);
	}
}

/* A trail is walked only where its stones can reach the water, and drops there exactly the
 * stones it dropped when every pixel of its line was walked: the same places, the same spacing
 * from its start, in the same order. Whatever lies beyond costs nothing. */
static void test_trail_walks_only_near_the_water(void **state)
{
	static const int far[][4] = { { -65535, -65535, 65535, 65535 },
				      { 65535, 100, -65535, 20 },
				      { -65535, 65535, 65535, -65535 },
				      { 100, -65535, 150, 65535 },
				      { -65535, -300, 65535, -280 },
				      { -400, -65535, -380, 65535 } };
	static const int cells[] = { 1, 3, 4 }, radii[] = { 0, 1, 7, 30 }, spacings[] = { 1, 3, 8 };
	struct water got, want;

	(void)state;
	for (int c = 0; c < 3; c++) {
		int cell = cells[c], wide = 160, high = 120;

		assert_int_equal(water_init(&got, wide, high, cell, 5), 0);
		assert_int_equal(water_init(&want, wide, high, cell, 5), 0);
		for (int i = 0; i < 300; i++) {
			int radius = radii[i % 4], spacing = spacings[i / 4 % 3];
			int pad = (radius ? radius : WATER_AUTO_STONE_CELLS * cell) + cell;
			int line[4];
			char what[96];
			long work;

			if (i < 6) {
				memcpy(line, far[i], sizeof(line));
			} else {
				for (int j = 0; j < 4; j++) {
					int side = j % 2 ? high : wide;

					line[j] = (int)(tu_random() % (5 * side)) - 2 * side;
				}
			}
			got.shape = want.shape = (enum water_shape)(i % 3);
			water_clear(&got);
			water_clear(&want);
			work = water_trail(&got, line[0], line[1], line[2], line[3], radius, 77,
					   spacing);
			snprintf(what, sizeof(what), "cell %d, %d,%d to %d,%d, radius %d, "
				 "spacing %d", cell, line[0], line[1], line[2], line[3], radius,
				 spacing);
			walked_trail(&want, line, radius, spacing, -1);
			assert_same_water(&got, &want, what);
			water_clear(&want);
			if (work != walked_trail(&want, line, radius, spacing, pad))
				fail_msg("%s: work %ld, its stones near the water %ld", what, work,
					 walked_trail(&want, line, radius, spacing, pad));
		}
		water_free(&got);
		water_free(&want);
	}
	/* beside the water, or its far side: not a stone */
	assert_int_equal(water_init(&got, 1920, 1080, 4, 5), 0);
	assert_int_equal(water_trail(&got, -65535, -200, 65535, -100, 100, 48, 1), 0);
	assert_int_equal(water_trail(&got, -65535, -65535, -300, 65535, 0, 48, 8), 0);
	assert_int_equal(water_trail(&got, 65535, 65535, 5000, 5000, 0, 48, 8), 0);
	assert_true(water_calm(&got));
	water_free(&got);
}

/* A trail dropped a budget at a time leaves the water it leaves dropped whole, and each part
 * stops at the first stone that brings its work to the budget. */
static void test_trail_in_parts_is_the_trail_whole(void **state)
{
	enum { BUDGET = 10000, STONE = 41 * 41 + 1 };	/* radius 20: a box 41 cells wide */
	struct water_trail t = { -500, -40, 319, 239, 20, 77, 1, 0, false };
	struct water parts, whole;
	long work = 0, all;
	int n = 0;

	(void)state;
	assert_int_equal(water_init(&parts, 320, 240, 1, 5), 0);
	assert_int_equal(water_init(&whole, 320, 240, 1, 5), 0);
	all = water_trail(&whole, t.x0, t.y0, t.x1, t.y1, t.radius, t.weight, t.spacing);
	assert_int_equal(water_trail_part(&parts, &t, 0), 0);
	assert_false(t.done);
	while (!t.done) {
		long part = water_trail_part(&parts, &t, BUDGET);

		assert_true(part < BUDGET + STONE);
		assert_true(part >= BUDGET || t.done);
		work += part;
		n++;
	}
	printf("# a trail of work %ld in %d parts of %d\n", all, n, BUDGET);
	assert_int_equal(work, all);
	assert_true(n > 10);
	assert_same_water(&parts, &whole, "in parts");
	assert_int_equal(water_trail_part(&parts, &t, BUDGET), 0);
	water_free(&parts);
	water_free(&whole);
}

static void test_rain_rate_and_placement(void **state)
{
	struct water w;
	struct water_rain rain = { .rate = 10, .size = 1, .weight = 7, .rng = 12345 };
	struct water_rain half = { .rate = 2.5, .size = 1, .weight = 7, .rng = 99 };
	int n = 0;

	(void)state;
	assert_int_equal(water_init(&w, 500, 400, 1, 5), 0);
	assert_int_equal(water_rain(&w, &rain, 1.0), 10);
	assert_int_equal(count_value(&w, -7), 10);
	for (int i = 0; i < 5; i++)
		n += water_rain(&w, &half, 0.4);
	assert_int_equal(n, 5);
	rain.rate = 0;
	assert_int_equal(water_rain(&w, &rain, 100.0), 0);
	water_free(&w);
}

/* Whether every non-zero cell of buf (cur or prev) lies in a live row, within its span. */
static void assert_covered(const struct water *w, const int16_t *buf, const uint8_t *live,
			   const struct water_span *span, const char *which, int step)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			if (buf[y * w->stride + x] &&
			    (!live[y] || x < span[y].lo || x >= span[y].hi))
				fail_msg("step %d %s cell (%d,%d) is wet but outside the live %s", step,
					 which, x, y, live[y] ? "span" : "rows");
}

/* The next step of every cell of w, no row or column skipped, into next (stride x height + 2). */
static void step_everything(const struct water *w, int16_t *next, const int16_t *open)
{
	size_t cells = (size_t)w->stride * (w->height + 2);

	memcpy(next, w->prev - w->stride - 1, cells * sizeof(int16_t));
	for (int y = 0; y < w->height; y++) {
		const int16_t *mid = water_row(w, y);

		water_row_shift_scalar(mid - w->stride, mid, mid + w->stride,
				       next + (y + 1) * w->stride + 1,
				       w->walls ? w->walls + y * w->stride : open, w->width,
				       w->tuning.damping_shift);
	}
}

/* The row flags and their column spans are what lets calm water cost nothing: they must never
 * miss a wet cell, whatever falls (rain, stones across the edges, trails) and with walls, and
 * stepping only what they cover gives what stepping everything gives. */
static void test_live_rows_never_miss_a_wet_row(void **state)
{
	struct water w;
	struct water_rain rain = { .rate = 3, .size = 4, .weight = 300, .rng = 7 };
	uint8_t *mask = calloc(97 * 83, 1);
	int16_t *want = malloc(99 * 85 * sizeof(int16_t)), open[97];
	int narrow = 0;

	(void)state;
	for (int x = 0; x < 97; x++)
		open[x] = -1;
	for (int wall = 0; wall < 2; wall++) {
		assert_int_equal(water_init(&w, 97, 83, 1, 4), 0);
		for (int i = 0; wall && i < 97 * 83; i += 13)
			mask[i] = 1;
		assert_int_equal(water_set_walls(&w, wall ? mask : NULL), 0);
		for (int step = 0; step < 600; step++) {
			if (step < 300)
				water_rain(&w, &rain, 1.0);
			if (step % 97 == 5)
				water_drop(&w, step % 2 ? -2 : 98, step % 83, 5, 200);
			if (step == 150)
				water_trail(&w, 3, 80, 90, 2, 1, 150, 7);
			step_everything(&w, want, open);
			water_step(&w);
			if (memcmp(w.cur - w.stride - 1, want, 99 * 85 * sizeof(int16_t)))
				fail_msg("step %d differs from stepping every cell", step);
			for (int y = 0; y < w.height; y++)
				if ((w.live[y] | w.prev_live[y]) && (y < w.rows.lo || y >= w.rows.hi))
					fail_msg("step %d row %d is live outside rows %d..%d", step, y,
						 w.rows.lo, w.rows.hi);
			assert_covered(&w, w.cur, w.live, w.span, "cur", step);
			assert_covered(&w, w.prev, w.prev_live, w.prev_span, "prev", step);
			for (int y = 0; y < w.height; y++)
				narrow += w.live[y] && w.span[y].hi - w.span[y].lo < w.width / 2;
		}
		water_free(&w);
	}
	free(mask);
	free(want);
	/* the premise: spans were narrower than the rows, so the check had something to catch */
	assert_true(narrow > 0);
}

/* One stone in a wide field: the step works on the ring's columns, not the whole rows. */
static void test_spans_follow_one_stone(void **state)
{
	struct water w;

	(void)state;
	assert_int_equal(water_init(&w, 3840, 100, 1, 5), 0);
	water_drop(&w, 1000, 50, 6, 128);
	assert_int_equal(w.span[50].lo, 995);
	assert_int_equal(w.span[50].hi, 1006);
	for (int step = 0; step < 40; step++)
		water_step(&w);
	for (int y = 0; y < w.height; y++)
		if (w.live[y] && (w.span[y].lo < 1000 - 6 - 41 || w.span[y].hi > 1006 + 41))
			fail_msg("row %d spans %d..%d after 40 steps", y, w.span[y].lo,
				 w.span[y].hi);
	assert_true(w.live[50]);
	water_free(&w);
}

/* The water's memory is the process's from water_open on: a wave reaching new rows does not
 * fault their pages in during a frame (it did, one page at a time, before). Under an emulator
 * or valgrind the counts are theirs, not the daemon's. */
static void test_steps_do_not_fault(void **state)
{
	struct water w;
	struct rusage before, after;

	(void)state;
#ifdef UNDER_ASAN
	skip();	/* its shadow memory faults in too */
#endif
	if (getenv("FBRIPPLE_RUNNER") || getenv("FBRIPPLE_VALGRIND"))
		skip();
	assert_int_equal(water_init(&w, 1920, 1080, 1, 5), 0);
	water_drop(&w, 960, 540, 6, 128);
	water_step(&w);
	getrusage(RUSAGE_SELF, &before);
	for (int step = 0; step < 120; step++)
		water_step(&w);
	getrusage(RUSAGE_SELF, &after);
	assert_true(w.rows.lo <= 480 && w.rows.hi >= 600);	/* the wave crossed ~100 new rows */
	assert_in_range(after.ru_minflt - before.ru_minflt, 0, 16);
	water_free(&w);
}

/* The heaviest stone the config allows, with the least damping: heights saturate instead of
 * wrapping round into noise, and the water still comes to rest. */
static void test_heavy_stones_saturate_and_calm(void **state)
{
	struct water w;
	int step, lowest = 0;

	(void)state;
	assert_int_equal(water_init(&w, 160, 120, 1, 12), 0);
	water_drop(&w, 80, 60, 100, 4096);
	for (step = 0; step < 100000 && !water_calm(&w); step++) {
		water_step(&w);
		for (int x = 0; x < 160; x++)
			lowest = water_row(&w, 60)[x] < lowest ? water_row(&w, 60)[x] : lowest;
	}
	assert_true(water_calm(&w));
	assert_true(lowest >= -INT16_MAX);
	water_free(&w);
}

static void test_clock_keeps_water_time(void **state)
{
	long due = 0;
	int steps = 0;

	(void)state;
	assert_int_equal(water_clock_steps(&due, 1, 60, 60), 1);
	assert_int_equal(water_clock_steps(&due, 1, 60, 30), 2);
	for (int i = 0; i < 3; i++)		/* 60 steps over 45 frames: 4 every 3 */
		steps += water_clock_steps(&due, 1, 60, 45);
	assert_int_equal(steps, 4);
	steps = 0;
	for (int i = 0; i < 4; i++)		/* faster display than water: every other frame */
		steps += water_clock_steps(&due, 1, 60, 120);
	assert_int_equal(steps, 2);
	due = 0;				/* a 10-frame stall catches up 2 frames and a step */
	assert_int_equal(water_clock_steps(&due, 10, 60, 60), 3);
	assert_int_equal(water_clock_steps(&due, 1, 60, 60), 1);
}

/* The wave front (the farthest cell above thr) and the highest wave within 4 degrees of the
 * axes [0] and of the diagonals [1], seen from (cx, cy). */
struct ring {
	double front[2];
	int peak[2];
};

static struct ring ring_of(const struct water *w, double cx, double cy, int thr)
{
	struct ring r = { { 0, 0 }, { 0, 0 } };

	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++) {
			int h = abs(at(w, x, y));
			double dx = fabs(x - cx), dy = fabs(y - cy), d = hypot(dx, dy);
			double ang = atan2(dy, dx) * 180 / M_PI;
			int k = ang < 4 || ang > 86 ? 0 : fabs(ang - 45) < 4 ? 1 : -1;

			if (k < 0)
				continue;
			if (h > thr && d > r.front[k])
				r.front[k] = d;
			if (h > r.peak[k])
				r.peak[k] = h;
		}
	return r;
}

/* One second after a default touch on a 1920x1080 grid of 4-pixel cells. */
static struct ring ring_after_touch(enum water_shape shape, int radius)
{
	struct water w;
	struct ring r;

	assert_int_equal(water_init(&w, 1920, 1080, 4, 5), 0);
	w.shape = shape;
	water_drop(&w, 960, 540, radius, 320);
	for (int i = 0; i < 60; i++)
		water_step(&w);
	r = ring_of(&w, 960.5 / 4 - 0.5, 540.5 / 4 - 0.5, 4 * w.scale);
	water_free(&w);
	return r;
}

/* The default cosine stone makes a round ring: its front as far along the diagonals as along
 * the axes, and no higher there. A small flat disc, the seeds' stone, leaves the four-point
 * sparkle at 45 degrees (so this test can tell them apart). */
static void test_cosine_stone_makes_round_rings(void **state)
{
	struct ring cosine = ring_after_touch(WATER_COSINE, 0);
	struct ring disc = ring_after_touch(WATER_DISC, 8);

	(void)state;
	print_message("cosine: front %.1f/%.1f cells, peak %d/%d; disc: peak %d/%d\n",
		      cosine.front[0], cosine.front[1], cosine.peak[0], cosine.peak[1],
		      disc.peak[0], disc.peak[1]);
	assert_true(cosine.front[0] > 30);
	assert_true(fabs(cosine.front[1] / cosine.front[0] - 1) <= 0.10);
	assert_true(cosine.peak[1] <= 1.15 * cosine.peak[0]);
	assert_true(disc.peak[1] > 1.25 * disc.peak[0]);
}

/* Pixels to cells: a grid of ceil(size / cell), stones and rain placed and sized in pixels,
 * heights WATER_FINE times the seeds' above cell 1, and "auto" picking the seeds' scale. */
static void test_grid_in_cells(void **state)
{
	struct water w;

	(void)state;
	assert_int_equal(water_cell_auto(320, 240), 1);
	assert_int_equal(water_cell_auto(800, 480), 2);
	assert_int_equal(water_cell_auto(1920, 1080), 4);
	assert_int_equal(water_cell_auto(1080, 1920), 4);
	assert_int_equal(water_cell_auto(3840, 2160), 8);
	assert_int_equal(water_init(&w, 1921, 1080, 4, 5), 0);
	assert_int_equal(w.width, 481);
	assert_int_equal(w.height, 270);
	assert_int_equal(w.scale, WATER_FINE);
	/* a disc of radius 8 pixels at (100, 50): cells within 2 cells of (24.625, 12.125) */
	water_drop(&w, 100, 50, 8, 10);
	for (int y = 8; y < 17; y++)
		for (int x = 20; x < 30; x++) {
			double d2 = (x - 24.625) * (x - 24.625) + (y - 12.125) * (y - 12.125);

			assert_int_equal(at(&w, x, y), d2 < 4 ? -10 * WATER_FINE : 0);
		}
	/* a stone smaller than a cell still dents the cell under it */
	water_drop(&w, 1001, 601, 1, 7);
	assert_int_equal(at(&w, 250, 150), -7 * WATER_FINE);
	water_free(&w);
}

/* The crater (seed 003's splash) is low in the middle and raised at its rim. */
static void test_crater_profile(void **state)
{
	struct water w;

	(void)state;
	assert_int_equal(water_init(&w, 100, 100, 1, 5), 0);
	w.shape = WATER_CRATER;
	water_drop(&w, 50, 50, 10, 100);
	assert_int_equal(at(&w, 50, 50), -100);
	assert_int_equal(at(&w, 55, 50), 0);
	assert_int_equal(at(&w, 59, 50), 80);
	assert_int_equal(at(&w, 60, 50), 0);	/* d = r is outside */
	water_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cosine_stone_makes_round_rings),
		cmocka_unit_test(test_grid_in_cells),
		cmocka_unit_test(test_steps_do_not_fault),
		cmocka_unit_test(test_crater_profile),
		cmocka_unit_test(test_equals_seed_port),
		cmocka_unit_test(test_equals_plain_kernel_at_edges),
		cmocka_unit_test(test_central_drop_is_symmetric),
		cmocka_unit_test(test_decays_to_calm),
		cmocka_unit_test(test_fraction_equals_seed_003),
		cmocka_unit_test(test_edges_reflect),
		cmocka_unit_test(test_edge_drops_are_clipped_not_lost),
		cmocka_unit_test(test_trail_hits_every_cell_of_the_line),
		cmocka_unit_test(test_trail_auto_spacing_is_two_cells),
		cmocka_unit_test(test_trail_walks_only_near_the_water),
		cmocka_unit_test(test_trail_in_parts_is_the_trail_whole),
		cmocka_unit_test(test_rain_rate_and_placement),
		cmocka_unit_test(test_live_rows_never_miss_a_wet_row),
		cmocka_unit_test(test_spans_follow_one_stone),
		cmocka_unit_test(test_heavy_stones_saturate_and_calm),
		cmocka_unit_test(test_clock_keeps_water_time),
	};

	return cmocka_run_group_tests_name("water", tests, NULL, NULL);
}
