/* test_render_turn.c - every path turns a band onto physical columns exactly as pixel-by-pixel
 * copying does, at odd sizes, both ways, and writes nothing else. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "render/render_turn.h"

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

/* Pixel x of band row k (pitch bytes apart) goes to physical row x (90) or width - 1 - x
 * (270), column first + n - 1 - k (90) or first + k (270). */
static void turn_reference(uint8_t *dst, size_t stride, const uint8_t *band, size_t pitch,
			   int width, int n, int first, bool cw, int x0, int x1, int bytes)
{
	for (int x = x0; x < x1; x++)
		for (int k = 0; k < n; k++)
			memcpy(dst + (size_t)(cw ? x : width - 1 - x) * stride +
				       (size_t)(first + (cw ? n - 1 - k : k)) * bytes,
			       band + k * pitch + (size_t)x * bytes, bytes);
}

/* A destination as a framebuffer is: page aligned, its rows a multiple of 64 bytes apart,
 * where the turn may stream its stores past the cache; or packed at any address. The band's
 * rows packed or as frames lay them out (render_turn_pitch). */
struct dest {
	int first;	/* the band's first physical column */
	bool aligned;
	int offset;	/* bytes the destination starts past a page */
	bool padded;
};

/* One case on every path against the reference, padding and unturned pixels included. */
static int dest_case(int width, int n, int x0, int x1, bool cw, int bytes, struct dest d,
		     uint64_t *seed)
{
	int first = d.first, compared = 0;
	size_t stride = (size_t)(first + n + PAD) * bytes;
	size_t pitch = d.padded ? render_turn_pitch(width, bytes) : (size_t)width * bytes;
	size_t size, band_size = pitch * n;

	stride = d.aligned ? (stride + 63) / 64 * 64 : stride;
	size = stride * width;

	size_t room = (size + d.offset + 4095) / 4096 * 4096;
	uint8_t *band = malloc(band_size), *want = malloc(size), *page = aligned_alloc(4096, room);
	uint8_t *got = page + d.offset;

	for (size_t i = 0; i < band_size; i++)
		band[i] = (uint8_t)next(seed);
	memset(want, SENTINEL, size);
	turn_reference(want, stride, band, pitch, width, n, first, cw, x0, x1, bytes);
	for (int p = 0; p < RENDER_PATHS; p++) {
		if (!render_path_available(p))
			continue;
		memset(got, SENTINEL, size);
		render_turn(p, got, stride, band, pitch, width, n, first, cw, x0, x1, bytes);
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
	free(page);
	return compared;
}

static int compare_case(int width, int n, int x0, int x1, bool cw, int bytes, uint64_t *seed)
{
	return dest_case(width, n, x0, x1, cw, bytes, (struct dest){ 2, false, 0, false }, seed);
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

/* Where the stores may stream (aligned rows, columns on 32 bytes) and where they land just
 * off it: band heights off the tiles' and odd strips, both ways. */
static void test_turn_aligned_destinations(void **state)
{
	static const struct dest dests[] = {
		{ 0, true, 0, true }, { 16, true, 0, false }, { 8, true, 0, true },
		{ 3, true, 0, false }, { 0, true, 8, true }, { 0, true, 32, false },
		{ 16, false, 0, true },
	};
	static const int ns[] = { 8, 16, 17, 24, 32, 40, 64, 67 };
	uint64_t seed = 0xa4093822299f31d0ull;
	int compared = 0;

	(void)state;
	for (int bytes = 2; bytes <= 4; bytes += 2)
		for (size_t d = 0; d < sizeof(dests) / sizeof(dests[0]); d++)
			for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
				for (int cw = 0; cw <= 1; cw++) {
					compared += dest_case(67, ns[i], 0, 67, cw, bytes, dests[d],
							      &seed);
					compared += dest_case(130, ns[i], 5, 121, cw, bytes, dests[d],
							      &seed);
				}
	assert_true(compared > 0);
}

/* A band's rows are an odd number of whole cache lines apart, room for the row and no more. */
static void test_pitch_odd_lines(void **state)
{
	(void)state;
	for (int bytes = 2; bytes <= 4; bytes++)
		for (int width = 1; width <= 4200; width++) {
			size_t pitch = render_turn_pitch(width, bytes);

			assert_true(pitch >= (size_t)width * bytes);
			assert_true(pitch < (size_t)width * bytes + 128);
			assert_int_equal(pitch % 64, 0);
			assert_int_equal(pitch / 64 % 2, 1);
		}
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
		cmocka_unit_test(test_turn_aligned_destinations),
		cmocka_unit_test(test_pitch_odd_lines),
		cmocka_unit_test(test_mirror_reverses),
	};

	return cmocka_run_group_tests_name("render_turn", tests, NULL, NULL);
}
