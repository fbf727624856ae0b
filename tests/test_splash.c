/* test_splash.c - the built-in splash's floor: its vector path against the pixel by pixel one.
 * The file is included whole, to reach its static functions; image_builtin comes from here,
 * not from the library. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../src/image/image_splash.c"

/* Every row of a w x h floor as floor_row() draws it (4 pixels at a time where a tile allows,
 * the rest one by one) and each pixel again alone: the same value, or the first difference
 * fails. */
static void check_floor(int w, int h)
{
	struct splash sp;
	struct splash_axis *ax = calloc((size_t)w + (size_t)h, sizeof(*ax)), *ay = ax + w;
	struct floor_cols fc;
	uint32_t *row = calloc((size_t)w, sizeof(*row));

	assert_non_null(ax);
	assert_non_null(row);
	splash_init(&sp, w, h, ax, ay);
	assert_int_equal(floor_cols_init(&fc, &sp, ax), 0);
	for (int y = 0; y < h; y++) {
		struct floor_row r = floor_row_of(&sp, &ay[y]);

		floor_row(&sp, ax, &fc, &ay[y], row);
		for (int x = 0; x < w; x++) {
			tile_look(&r.tl, ax[x].tile, ay[y].tile);
			if (row[x] != floor_pixel(&r, &ax[x]))
				fail_msg("%dx%d (%d, %d): %08x in the row, %08x alone", w, h, x, y,
					 row[x], floor_pixel(&r, &ax[x]));
		}
	}
	floor_cols_free(&fc);
	free(row);
	free(ax);
}

static void test_floor_vectors(void **state)
{
	(void)state;
	check_floor(1920, 1080);	/* tiles of 72 pixels: whole vectors */
	check_floor(1080, 1920);
	check_floor(800, 480);
	check_floor(333, 257);		/* tiles of 22: a tail of 2 in each */
	check_floor(37, 23);		/* tiles of 6 */
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
		cmocka_unit_test(test_builtin_is_the_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
