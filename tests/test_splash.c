/* test_splash.c - the built-in splash's floor: its vector paths against the pixel by pixel one.
 * The file is included whole, to reach its static functions; image_builtin comes from here,
 * not from the library. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../src/image/image_splash.c"
#include "testutil.h"

/* Every row of a w x h floor as each vector path this CPU runs draws it (AVX2: 8 pixels at a
 * time where a tile allows, then 4, the rest one by one; SSE2, SSE4.1, NEON: 4, then one by
 * one), and each pixel again alone: the same value, or the first difference fails. */
static void check_floor(int w, int h)
{
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int npaths = tu_vector_paths(paths);
	struct splash sp;
	struct splash_axis *ax = calloc((size_t)w + (size_t)h, sizeof(*ax)), *ay = ax + w;
	struct floor_cols fc;
	uint32_t *row = calloc((size_t)w, sizeof(*row)), *alone = calloc((size_t)w, sizeof(*alone));

	assert_non_null(ax);
	assert_non_null(row);
	assert_non_null(alone);
	splash_init(&sp, w, h, ax, ay);
	assert_int_equal(floor_cols_init(&fc, &sp, ax), 0);
	for (int y = 0; y < h; y++) {
		struct floor_row r = floor_row_of(&sp, &ay[y]);

		for (int x = 0; x < w; x++) {
			tile_look(&r.tl, ax[x].tile, ay[y].tile);
			alone[x] = floor_pixel(&r, &ax[x]);
		}
		for (int p = 0; p < npaths; p++) {
			memset(row, 0, (size_t)w * sizeof(*row));
			floor_row_for(paths[p])(&sp, ax, &fc, &ay[y], row);
			for (int x = 0; x < w; x++)
				if (row[x] != alone[x])
					fail_msg("%s, %dx%d (%d, %d): %08x in the row, %08x alone",
						 cpu_simd_name(paths[p]), w, h, x, y, row[x], alone[x]);
		}
	}
	floor_cols_free(&fc);
	free(alone);
	free(row);
	free(ax);
}

/* The tiles' widths in the comments: a row's first and last tile are cut. */
static void test_floor_vectors(void **state)
{
	(void)state;
	check_floor(1920, 1080);	/* tiles of 72 and 60: 8 pixels at a time, and 4 */
	check_floor(1080, 1920);	/* 72: whole vectors of 8 */
	check_floor(1366, 768);		/* 51, 46, 45: tails of 3 after 8s, of 1 and 2 after a 4 */
	check_floor(1280, 800);		/* 53, 31, 30: tails of 1, 3 and 2 after a 4 */
	check_floor(800, 480);		/* 32 */
	check_floor(480, 272);		/* 18, 15: tails of 2, and of 3 after a 4 */
	check_floor(333, 257);		/* 17, 5: a tail of 1 after 8s, and after a 4 */
	check_floor(37, 23);		/* 6, 4, 3: no vector of 8 */
}

/* Each path draws the floor with its own width; check_floor holds each to floor_pixel(). */
static void test_floor_paths(void **state)
{
	(void)state;
	assert_true(floor_row_for(CPU_SCALAR) == floor_row1);
#if FLOOR_LANES >= 4 && defined(__aarch64__)
	assert_true(floor_row_for(CPU_NEON) == floor_row4);
#elif FLOOR_LANES >= 4
	assert_true(floor_row_for(CPU_SSE2) == floor_row4);
	assert_true(floor_row_for(CPU_SSE41) == floor_row4);
#endif
#if FLOOR_LANES >= 8
	assert_true(floor_row_for(CPU_AVX2) == floor_row8);
	if (!cpu_simd_supported(CPU_AVX2))
		print_message("no AVX2 here: the floor's 8-pixel path is not run\n");
#endif
}

/* The whole picture, emblem and threads included, on each vector path that FBRIPPLE_SIMD
 * names: the scalar path's to the bit. */
static void test_builtin_paths(void **state)
{
	static const int sizes[][2] = { { 1920, 1080 }, { 1366, 768 }, { 333, 257 }, { 37, 23 } };
	enum cpu_simd paths[CPU_SIMD_COUNT];
	int npaths = tu_vector_paths(paths);
	char *forced = getenv("FBRIPPLE_SIMD") ? strdup(getenv("FBRIPPLE_SIMD")) : NULL;

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int w = sizes[s][0], h = sizes[s][1];
		struct image want, got;

		setenv("FBRIPPLE_SIMD", "scalar", 1);
		assert_int_equal(image_builtin(&want, w, h), 0);
		for (int p = 0; p < npaths; p++) {
			setenv("FBRIPPLE_SIMD", cpu_simd_name(paths[p]), 1);
			assert_int_equal(image_builtin(&got, w, h), 0);
			for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
				if (got.pixels[i] != want.pixels[i])
					fail_msg("%s, %dx%d (%d, %d): %08x, scalar %08x",
						 cpu_simd_name(paths[p]), w, h, (int)(i % (size_t)w),
						 (int)(i / (size_t)w), got.pixels[i], want.pixels[i]);
			image_free(&got);
		}
		image_free(&want);
	}
	if (forced)
		setenv("FBRIPPLE_SIMD", forced, 1);
	else
		unsetenv("FBRIPPLE_SIMD");
	free(forced);
}

/* The whole picture is the floor with the emblem on it: the rows outside the emblem's box are
 * floor_pixel's, pixel for pixel. */
static void test_builtin_is_the_floor(void **state)
{
	struct image img;
	struct splash sp;
	int w = 333, h = 257;
	struct splash_axis *ax = calloc((size_t)w + (size_t)h, sizeof(*ax)), *ay = ax + w;

	(void)state;
	assert_non_null(ax);
	assert_int_equal(image_builtin(&img, w, h), 0);
	splash_init(&sp, w, h, ax, ay);
	for (int y = 0; y < 10; y++) {
		struct floor_row r = floor_row_of(&sp, &ay[y]);

		for (int x = 0; x < w; x++) {
			tile_look(&r.tl, ax[x].tile, ay[y].tile);
			assert_int_equal(img.pixels[(size_t)y * w + x], floor_pixel(&r, &ax[x]));
		}
	}
	image_free(&img);
	free(ax);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor_vectors),
		cmocka_unit_test(test_floor_paths),
		cmocka_unit_test(test_builtin_paths),
		cmocka_unit_test(test_builtin_is_the_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
