/* test_render_turn.c - every path turns a band onto physical columns exactly as pixel-by-pixel
 * copying does, at odd sizes, both ways, and writes nothing else. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "render_turn.h"

enum { SENTINEL = 0xC3, PAD = 3 };

/* Logical row widths and band heights around the tiles' 4, 8 and 16 pixels and a cache line's
 * 16 and 32; band heights up to what a frame turns at once. */
static const int widths[] = { 1, 5, 16, 33, 67, 130 };
static const int heights[] = { 1, 3, 4, 8, 15, 16, 17, 33, 40 };

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Pixel x of band row k goes to physical row x (90) or width - 1 - x (270), column first +
 * n - 1 - k (90) or first + k (270). */
static void turn_reference(uint8_t *dst, size_t stride, const uint8_t *band, int width, int n,
			   int first, bool cw, int x0, int x1, int bytes)
{
	for (int x = x0; x < x1; x++)
		for (int k = 0; k < n; k++)
			memcpy(dst + (size_t)(cw ? x : width - 1 - x) * stride +
				       (size_t)(first + (cw ? n - 1 - k : k)) * bytes,
			       band + ((size_t)k * width + x) * bytes, bytes);
}

/* One case on every path against the reference, padding and unturned pixels included. */
static int compare_case(int width, int n, int x0, int x1, bool cw, int bytes, uint64_t *seed)
{
	int first = 2, compared = 0;
	size_t stride = (size_t)(first + n + PAD) * bytes, size = stride * width;
	size_t band_size = (size_t)width * n * bytes;
	uint8_t *band = malloc(band_size), *want = malloc(size), *got = malloc(size);

	for (size_t i = 0; i < band_size; i++)
		band[i] = (uint8_t)next(seed);
	memset(want, SENTINEL, size);
	turn_reference(want, stride, band, width, n, first, cw, x0, x1, bytes);
	for (int p = 0; p < RENDER_PATHS; p++) {
		if (!render_path_available(p))
			continue;
		memset(got, SENTINEL, size);
		render_turn(p, got, stride, band, width, n, first, cw, x0, x1, bytes);
		for (size_t i = 0; i < size; i++)
			if (got[i] != want[i])
				fail_msg("%s: %d bpp, band %d x %d, pixels [%d, %d), rotate %d: byte %zu "
					 "(physical row %zu) is %02x, not %02x", render_path_name(p),
					 8 * bytes, width, n, x0, x1, cw ? 90 : 270, i, i / stride,
					 got[i], want[i]);
		compared++;
	}
	free(band);
	free(want);
	free(got);
	return compared;
}

static void test_turn_matches_pixel_by_pixel(void **state)
{
	uint64_t seed = 0x243f6a8885a308d3ull;
	int compared = 0;

	(void)state;
	for (int bytes = 2; bytes <= 4; bytes++)
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
			for (size_t h = 0; h < sizeof(heights) / sizeof(heights[0]); h++)
				for (int cw = 0; cw <= 1; cw++) {
					int width = widths[w], n = heights[h];

					compared += compare_case(width, n, 0, width, cw, bytes, &seed);
					/* a strip of the band: columns the frame draws apart */
					if (width > 6)
						compared += compare_case(width, n, 3, width - 2, cw, bytes,
									 &seed);
				}
	assert_true(compared > 0);
}

/* A whole band of a frame's height at 32 and 16 bpp, as rotated frames turn them. */
static void test_turn_full_bands(void **state)
{
	uint64_t seed = 0x13198a2e03707344ull;

	(void)state;
	for (int bytes = 2; bytes <= 4; bytes += 2)
		for (int cw = 0; cw <= 1; cw++)
			compare_case(97, render_turn_rows(bytes), 0, 97, cw, bytes, &seed);
}

/* Mirroring reverses the pixels of a row, at every length around the vectors' 16 bytes. */
static void test_mirror_reverses(void **state)
{
	uint8_t src[40 * 4], got[40 * 4 + PAD];

	(void)state;
	for (int i = 0; i < (int)sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (int bytes = 2; bytes <= 4; bytes++)
		for (int n = 0; n <= 40; n++) {
			memset(got, SENTINEL, sizeof(got));
			render_mirror(got, src, n, bytes);
			for (int i = 0; i < n; i++)
				if (memcmp(got + i * bytes, src + (n - 1 - i) * bytes, bytes))
					fail_msg("%d bpp, %d pixels: pixel %d is not pixel %d", 8 * bytes,
						 n, i, n - 1 - i);
			for (int i = n * bytes; i < (int)sizeof(got); i++)
				assert_int_equal(got[i], SENTINEL);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turn_matches_pixel_by_pixel),
		cmocka_unit_test(test_turn_full_bands),
		cmocka_unit_test(test_mirror_reverses),
	};

	return cmocka_run_group_tests_name("render_turn", tests, NULL, NULL);
}
