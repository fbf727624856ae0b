/* test_step_paths.c - every vector path of the water step equals the scalar reference exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpu.h"
#include "testutil.h"
#include "water/water.h"
#include "water/water_engine.h"
#include "water/kernels/water_kernel.h"

/* Anything an int16 can hold, with the extremes and 0 often, so saturation and rows that come
 * out all zero both happen. */
static int16_t random_height(void)
{
	static const int16_t special[] = { 0, 0, 0, 0, INT16_MAX, -INT16_MAX, INT16_MIN, 1, -1 };
	uint32_t r = tu_random();

	return r % 3 ? special[r % 9] : (int16_t)(tu_random() & 0xffff);
}

/* Heights about the bounds of the kernels' 16-bit arithmetic (-8192..8191), all of one sign
 * per row: mostly the bound itself, some within, and some past it by up to as much again or
 * at the extremes, so that blocks of cells take the 16-bit path, the 32-bit one, and switch
 * between them; four neighbours past the bound overflow 16 bits. */
static int16_t near_bound_height(bool negative)
{
	uint32_t r = tu_random() % 20, past = tu_random() % 8192;

	if (r < 12)
		return negative ? -8192 : 8191;
	if (r < 16)
		return (int16_t)(tu_random() % 16384 - 8192);
	if (r < 19)
		return (int16_t)(negative ? -8193 - (int)past : 8192 + (int)past);
	return negative ? INT16_MIN : INT16_MAX;
}

enum heights { ANY, SPARSE, NEAR_BOUND };

/* One row through a path's kernel and the scalar one, from the same start: out and the
 * returned flag must be the same. Half the rows have walls, half none (keep NULL). */
static void compare_row(enum cpu_simd simd, bool fraction, int width, int shift, double damping,
			enum heights heights)
{
	enum { PAD = 4 };
	int16_t *rows = malloc((size_t)(width + 2 * PAD) * 6 * sizeof(int16_t));
	int16_t *up = rows + PAD, *mid = up + width + 2 * PAD, *down = mid + width + 2 * PAD;
	int16_t *walls = down + width + 2 * PAD, *out = walls + width + 2 * PAD;
	int16_t *want = out + width + 2 * PAD;
	struct water_kernels k, ref;
	uint8_t got_any, want_any;
	bool negative = tu_random() % 2;
	const int16_t *keep = tu_random() % 2 ? walls : NULL;

	assert_int_equal(water_kernels_for(simd, &k), 0);
	assert_int_equal(water_kernels_for(CPU_SCALAR, &ref), 0);
	for (int i = 0; i < (width + 2 * PAD) * 6; i++)
		rows[i] = heights == SPARSE ? 0 : heights == NEAR_BOUND ? near_bound_height(negative)
								  : random_height();
	if (heights == SPARSE)	/* one cell somewhere: the flag must see it in any lane and in the tail */
		mid[tu_random() % width] = (int16_t)(tu_random() % 64 + 64);
	for (int x = 0; x < width; x++) {
		walls[x] = tu_random() % 5 ? -1 : 0;
		want[x] = out[x];
	}
	if (fraction) {
		got_any = k.fraction(up, mid, down, out, keep, width, damping);
		want_any = ref.fraction(up, mid, down, want, keep, width, damping);
	} else {
		got_any = k.shift(up, mid, down, out, keep, width, shift);
		want_any = ref.shift(up, mid, down, want, keep, width, shift);
	}
	for (int x = 0; x < width; x++)
		if (out[x] != want[x])
			fail_msg("%s width %d shift %d damping %.17g cell %d: %d, scalar %d",
				 cpu_simd_name(simd), width, fraction ? 0 : shift, fraction ? damping : 0,
				 x, out[x], want[x]);
	if (got_any != want_any)
		fail_msg("%s width %d: non-zero %d, scalar %d", cpu_simd_name(simd), width, got_any,
			 want_any);
	free(rows);
}

/* Six rounds of a row: three of any heights, one sparse, two about the 16-bit bounds. */
#define ROUND_HEIGHTS(round) ((round) < 3 ? ANY : (round) == 3 ? SPARSE : NEAR_BOUND)

static const int widths[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1921 };
#define NWIDTHS (int)(sizeof(widths) / sizeof(widths[0]))

/* Row by row, over random heights including every extreme: every shift the config allows,
 * and fractions across the config's 0.5 to 0.9999 with the edges past it (0, 1, negative, and
 * above 1, which the vector paths leave to the scalar code). */
static void test_kernels_equal_scalar(void **state)
{
	static const double fractions[] = { 0.5, 0.94, 0.97, 0.9999, 0.999, 0.6180339887,
					    0.001, 0, 1, -0.5, -1, 1.5 };
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int n = tu_vector_paths(paths);

	(void)state;
	for (int p = 0; p < n; p++)
		for (int i = 0; i < NWIDTHS; i++) {
			for (int shift = 1; shift <= 12; shift++)
				for (int round = 0; round < 6; round++)
					compare_row(paths[p], false, widths[i], shift, 0,
						    ROUND_HEIGHTS(round));
			for (size_t j = 0; j < sizeof(fractions) / sizeof(fractions[0]); j++)
				for (int round = 0; round < 6; round++)
					compare_row(paths[p], true, widths[i], 0, fractions[j],
						    ROUND_HEIGHTS(round));
			for (int j = 0; j <= 500; j += 7)
				compare_row(paths[p], true, widths[i], 0, 0.5 + j * 0.001, ANY);
		}
}

/* A water whose step runs on one path: damped by a shift of 1 in odd variants (those with
 * walls), of 12 in even ones, or by a fraction from variant 2 on. */
static void open_on(struct water *w, enum cpu_simd simd, int width, int height, int variant)
{
	struct water_tuning tuning = { .damping_shift = 1 + 11 * !(variant & 1),
				       .damping = variant & 2 ? 0.995 : 0 };

	tu_water_open_on(w, &water_classic, simd, width, height, 1, &tuning);
}

static void disturb(struct water *w, int step, uint64_t seed)
{
	tu_disturb(w, step, seed, 9);
}

/* Cells near the limit: inside a stone of -INT16_MAX the kernel's raw sum is twice that, so
 * they come from a saturated step (damped by at most 1/2^12 or 0.5%). */
static int saturated_cells(const struct water *w)
{
	int n = 0;

	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			n += abs(water_row(w, y)[x]) >= INT16_MAX - INT16_MAX / 128;
	return n;
}

/* The classic step also tracks the columns of each live row. */
static void same_spans(const struct water *a, const struct water *b, const char *label, int step)
{
	for (int y = -1; y <= a->height; y++)
		if (a->live[y] && memcmp(&a->span[y], &b->span[y], sizeof(a->span[y])))
			fail_msg("%s step %d row %d: span %d..%d, scalar %d..%d", label, step, y,
				 a->span[y].lo, a->span[y].hi, b->span[y].lo, b->span[y].hi);
}

/*
 * Whole waters, 300 steps each, every path forced through FBRIPPLE_SIMD beside the scalar one
 * (heights, live rows and their spans):
 * odd widths, the heaviest stones with the least damping (heights saturate), walls, and both
 * dampings (shift, fraction).
 */
static void test_every_path_steps_like_scalar(void **state)
{
	static const int sizes[][2] = { { 1, 9 }, { 7, 13 }, { 33, 21 }, { 250, 17 }, { 1921, 11 } };
	const struct tu_lockstep run = {
		.sizes = sizes, .nsizes = (int)(sizeof(sizes) / sizeof(sizes[0])), .variants = 4,
		.steps = 300, .open = open_on, .disturb = disturb, .same = same_spans,
		.saturated = saturated_cells,
	};

	(void)state;
	tu_lockstep_run(&run);
}

/* FBRIPPLE_SIMD names the path; a name that is no path, or one this CPU lacks, is an error
 * that still leaves the best path to run. */
static void test_simd_variable(void **state)
{
	enum cpu_simd simd, best;

	(void)state;
	unsetenv("FBRIPPLE_SIMD");
	assert_int_equal(cpu_simd_choose(&best), 0);
	assert_true(cpu_simd_supported(best));
	for (int i = 0; i < CPU_SIMD_COUNT; i++) {
		setenv("FBRIPPLE_SIMD", cpu_simd_name((enum cpu_simd)i), 1);
		if (cpu_simd_supported((enum cpu_simd)i)) {
			assert_int_equal(cpu_simd_choose(&simd), 0);
			assert_int_equal(simd, i);
		} else {
			assert_int_equal(cpu_simd_choose(&simd), -ENOTSUP);
			assert_int_equal(simd, best);
		}
	}
	setenv("FBRIPPLE_SIMD", "mmx", 1);
	assert_int_equal(cpu_simd_choose(&simd), -EINVAL);
	assert_int_equal(simd, best);
	unsetenv("FBRIPPLE_SIMD");
#if defined(__x86_64__)
	assert_true(cpu_simd_supported(CPU_SSE2));
#elif defined(__aarch64__)
	assert_true(cpu_simd_supported(CPU_NEON));
#endif
}

/* The daemon says once that the variable named no path it can run, and goes on. */
static void test_daemon_warns_of_a_bad_simd(void **state)
{
	char out[4096], *dir = tu_tmpdir();

	(void)state;
	setenv("FBRIPPLE_SIMD", "mmx", 1);
	assert_int_equal(tu_run(out, sizeof(out), "-c", "/dev/null", "--fbdev", tu_path(dir, "fb"),
				"--size", "64x48", "--drop", "32,24", "--frames", "3", NULL), 0);
	unsetenv("FBRIPPLE_SIMD");
	if (!strstr(out, "FBRIPPLE_SIMD=mmx: not a path this CPU runs"))
		fail_msg("no warning in: %s", out);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simd_variable),
		cmocka_unit_test(test_daemon_warns_of_a_bad_simd),
		cmocka_unit_test(test_kernels_equal_scalar),
		cmocka_unit_test(test_every_path_steps_like_scalar),
	};

	return cmocka_run_group_tests_name("step_paths", tests, NULL, NULL);
}
