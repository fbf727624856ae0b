/* test_hooke_paths.c - every vector path of the hooke step equals the scalar reference exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "util/cpu.h"
#include "testutil.h"
#include "water/water.h"
#include "water/water_engine.h"
#include "water/kernels/water_hooke_kernel.h"

/* Anything an int16 holds, the extremes, 0 and the values about a shift's 2^n often. */
static int16_t random_height(int shift)
{
	const int16_t special[] = { 0, 0, 0, INT16_MAX, -INT16_MAX, INT16_MIN, 1, -1,
				    (int16_t)(1 << shift), (int16_t)((1 << shift) - 1),
				    (int16_t)-(1 << shift) };
	uint32_t r = tu_random();

	return r % 3 ? special[r % (sizeof(special) / sizeof(special[0]))]
		     : (int16_t)(tu_random() & 0xffff);
}

static const int widths[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 481 };
#define NWIDTHS (int)(sizeof(widths) / sizeof(widths[0]))

/* One row through a path's kernel and the scalar one from the same start: heights,
 * velocities and the flag; PAD cells past the row that it must not write. */
static void compare_row(hooke_row_fn *row, hooke_row_fn *ref, const char *path, int width,
			int vshift, int hshift, bool walls)
{
	enum { PAD = 12 };
	int n = width + 2 * PAD;
	int16_t *mem = malloc((size_t)n * 8 * sizeof(int16_t));
	int16_t *up = mem + PAD, *mid = up + n, *down = mid + n, *keep = down + n;
	int16_t *out = keep + n, *want = out + n, *v = want + n, *v2 = v + n;
	uint8_t got_any, want_any;

	for (int i = 0; i < n * 8; i++)
		mem[i] = random_height(i % 2 ? vshift : hshift);
	if (tu_random() % 4 == 0)	/* a calm row: the flag must be 0 */
		for (int i = 0; i < n * 8; i++)
			mem[i] = 0;
	for (int i = -PAD; i < width + PAD; i++) {
		keep[i] = i >= 0 && i < width && walls && tu_random() % 5 == 0 ? 0 : -1;
		want[i] = out[i];
		v2[i] = v[i];
	}
	got_any = row(up, mid, down, out, v, keep, width, vshift, hshift);
	want_any = ref(up, mid, down, want, v2, keep, width, vshift, hshift);
	for (int i = -PAD; i < width + PAD; i++)
		if (out[i] != want[i] || v[i] != v2[i])
			fail_msg("%s width %d shifts %d %d cell %d: h %d v %d, scalar h %d v %d",
				 path, width, vshift, hshift, i, out[i], v[i], want[i], v2[i]);
	if (got_any != want_any)
		fail_msg("%s width %d: non-zero %d, scalar %d", path, width, got_any, want_any);
	free(mem);
}

/* Row by row, every pair of shifts config.c allows (1..15), walls or none. */
static void test_rows_equal_scalar(void **state)
{
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths);
	hooke_row_fn *row, *ref;

	(void)state;
	assert_int_equal(hooke_row_for(CPU_SCALAR, &ref), 0);
	for (int p = 0; p < n; p++) {
		assert_int_equal(hooke_row_for(paths[p], &row), 0);
		for (int i = 0; i < NWIDTHS; i++)
			for (int vshift = 1; vshift <= 15; vshift++)
				for (int hshift = 1; hshift <= 15; hshift++)
					compare_row(row, ref, cpu_simd_name(paths[p]), widths[i],
						    vshift, hshift, (vshift + hshift) % 2);
	}
}

/* A water the hooke engine runs on one path: both shifts 5, or from variant 2 on 15 (the
 * least damping). */
static void open_on(struct water *w, enum cpu_simd simd, int width, int height, int variant)
{
	int shift = variant & 2 ? 15 : 5;
	struct water_tuning t = { .velocity_shift = shift, .height_shift = shift };

	tu_water_open_on(w, &water_hooke, simd, width, height, 1, &t);
	w->shape = WATER_DISC;
}

static void disturb(struct water *w, int step, uint64_t seed)
{
	tu_disturb(w, step, seed, 5);
}

/* Cells at the int16 limit, in the first of the height buffers (cur and prev by turns). */
static int saturated_cells(const struct water *w)
{
	size_t cells = (size_t)w->stride * (w->height + 2);
	int n = 0;

	for (size_t c = 0; c < cells; c++)
		n += abs(w->mem[0][c]) == INT16_MAX;
	return n;
}

/* Whole waters, 300 steps each, every path forced through FBRIPPLE_SIMD beside the scalar
 * one (heights and live rows): odd widths, walls or none, the heaviest stones and the least
 * damping (heights saturate) beside the defaults. */
static void test_every_path_steps_like_scalar(void **state)
{
	static const int sizes[][2] = { { 1, 9 }, { 7, 13 }, { 33, 21 }, { 250, 17 }, { 483, 11 } };
	const struct tu_lockstep run = {
		.sizes = sizes, .nsizes = (int)(sizeof(sizes) / sizeof(sizes[0])), .variants = 4,
		.steps = 300, .open = open_on, .disturb = disturb, .saturated = saturated_cells,
	};

	(void)state;
	tu_lockstep_run(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_equal_scalar),
		cmocka_unit_test(test_every_path_steps_like_scalar),
	};

	return cmocka_run_group_tests_name("hooke_paths", tests, NULL, NULL);
}
