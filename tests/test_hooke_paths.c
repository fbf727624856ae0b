/* test_hooke_paths.c - every vector path of the hooke step equals the scalar reference exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "testutil.h"
#include "water.h"
#include "water_engine.h"
#include "water_hooke_kernel.h"

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

static void open_on(struct water *w, enum cpu_simd simd, int width, int height, int vshift,
		    int hshift)
{
	struct water_tuning t = { .velocity_shift = vshift, .height_shift = hshift };

	setenv("FBRIPPLE_SIMD", cpu_simd_name(simd), 1);
	assert_int_equal(water_open(w, &water_hooke, width, height, 1, &t), 0);
	unsetenv("FBRIPPLE_SIMD");
	w->shape = WATER_DISC;
}

/* Whole waters, 300 steps each, every path forced through FBRIPPLE_SIMD beside the scalar
 * one (heights and live rows): odd widths, walls or none, the heaviest stones and the least
 * damping (heights saturate) beside the defaults. */
static void test_every_path_steps_like_scalar(void **state)
{
	static const int sizes[][2] = { { 1, 9 }, { 7, 13 }, { 33, 21 }, { 250, 17 }, { 483, 11 } };
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths), saturated = 0;

	(void)state;
	for (int p = 0; p < n; p++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (int variant = 0; variant < 4; variant++) {
				int width = sizes[i][0], height = sizes[i][1];
				int shift = variant & 2 ? 15 : 5;
				size_t cells;
				struct water a, b;
				uint8_t *mask = calloc((size_t)width * height, 1);

				open_on(&a, paths[p], width, height, shift, shift);
				open_on(&b, CPU_SCALAR, width, height, shift, shift);
				cells = (size_t)a.stride * (a.height + 2);
				for (int c = 0; (variant & 1) && c < width * height; c++)
					mask[c] = tu_random() % 7 == 0;
				if (variant & 1) {
					assert_int_equal(water_set_walls(&a, mask), 0);
					assert_int_equal(water_set_walls(&b, mask), 0);
				}
				for (int step = 0; step < 300; step++) {
					struct water_rain rain = { .rate = 2, .size = 3,
								   .weight = INT16_MAX,
								   .rng = i * 4 + variant + step };

					if (step % 40 == 0) {
						water_drop(&a, width / 2, height / 2, 5, INT16_MAX);
						water_drop(&b, width / 2, height / 2, 5, INT16_MAX);
					}
					if (step < 150) {
						water_rain(&a, &rain, 1.0);
						rain.rng = i * 4 + variant + step;
						water_rain(&b, &rain, 1.0);
					}
					water_step(&a);
					water_step(&b);
					for (int y = -1; y <= height; y++)
						if (a.live[y] != b.live[y] ||
						    a.prev_live[y] != b.prev_live[y])
							fail_msg("%s step %d row %d: live differs",
								 cpu_simd_name(paths[p]), step, y);
					if (memcmp(a.mem[0], b.mem[0], cells * 2) ||
					    memcmp(a.mem[1], b.mem[1], cells * 2))
						fail_msg("%s step %d size %dx%d: heights differ",
							 cpu_simd_name(paths[p]), step, width, height);
					for (size_t c = 0; c < cells; c++)
						saturated += abs(a.mem[0][c]) == INT16_MAX;
				}
				water_free(&a);
				water_free(&b);
				free(mask);
			}
	if (n)
		assert_true(saturated > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_equal_scalar),
		cmocka_unit_test(test_every_path_steps_like_scalar),
	};

	return cmocka_run_group_tests_name("hooke_paths", tests, NULL, NULL);
}
