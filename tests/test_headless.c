/* test_headless.c - the fbripple binary against a file framebuffer: pixels, errors, fallbacks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/image.h"
#include "image/pixfmt.h"
#include "testutil.h"

enum { W = 320, H = 240, DROP_X = 150, DROP_Y = 110, FRAMES = 30 };

struct ctx {
	char *dir;
	char out[8192];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	c->dir = tu_tmpdir();
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	tu_rmtree(c->dir);
	free(c);
	return 0;
}

/* 8x8 squares of eight colours: every ripple moves visible edges. */
static uint32_t checker(int x, int y)
{
	static const uint32_t colours[] = { 0xff0000, 0x00ff00, 0x0000ff, 0xffffff,
					    0x000000, 0xffff00, 0x00ffff, 0xff00ff };

	return 0xff000000u | colours[(x / 8 + 3 * (y / 8)) % 8];
}

/* A config whose splash is a checkerboard PNG exactly the screen's size. */
static const char *write_checker_config(const struct ctx *c)
{
	struct image img = { W, H, malloc(W * H * sizeof(uint32_t)) };
	const char *png = tu_path(c->dir, "checker.png");
	const char *conf = tu_path(c->dir, "checker.conf");
	char text[1024];

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			img.pixels[y * W + x] = checker(x, y);
	assert_int_equal(image_write_png(&img, png), 0);
	image_free(&img);
	snprintf(text, sizeof(text), "splash: { image = \"%s\"; scale = \"fill\"; };\n", png);
	tu_write(conf, text);
	return conf;
}

/* The raw file, decoded with the stride and format the test asked for, is the screenshot; the
 * bytes between the end of a row and the stride were never written. */
static void assert_raw_matches(const char *fb, const char *format, size_t stride,
			       const struct image *shot)
{
	struct pixfmt fmt;
	struct image raw = { W, H, malloc(W * H * sizeof(uint32_t)) };
	uint8_t *bytes = malloc(stride * H + 1);
	FILE *f = fopen(fb, "rb");

	assert_non_null(f);
	assert_int_equal(fread(bytes, 1, stride * H + 1, f), stride * H);
	fclose(f);
	assert_int_equal(pixfmt_by_name(&fmt, format), 0);
	pixfmt_unconvert(&fmt, bytes, stride, &raw);
	for (int i = 0; i < W * H; i++)
		assert_int_equal(raw.pixels[i] & 0xffffff, shot->pixels[i] & 0xffffff);
	for (int y = 0; y < H; y++)
		for (size_t i = (size_t)W * fmt.bytes; i < stride; i++)
			assert_int_equal(bytes[y * stride + i], 0);
	free(bytes);
	image_free(&raw);
}

static void run_depth(struct ctx *c, const char *bpp, const char *format, const char *stride)
{
	const char *conf = write_checker_config(c);
	const char *fb = tu_path(c->dir, "fb.raw");
	const char *calm = tu_path(c->dir, "calm.png"), *wet = tu_path(c->dir, "wet.png");
	struct image a, b;
	int near = 0, changed = 0;
	char drop[32], frames[16];

	snprintf(drop, sizeof(drop), "%d,%d", DROP_X, DROP_Y);
	snprintf(frames, sizeof(frames), "%d", FRAMES);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev", fb, "--size",
				"320x240", "--bpp", bpp, "--stride", stride, "--frames", frames,
				"--screenshot", calm, NULL), 0);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev", fb, "--size",
				"320x240", "--bpp", bpp, "--stride", stride, "--frames", frames,
				"--drop", drop, "--screenshot", wet, NULL), 0);
	tu_load(&a, calm);
	tu_load(&b, wet);
	assert_int_equal(a.width, W);
	assert_int_equal(b.height, H);
	assert_raw_matches(fb, format, strtoul(stride, NULL, 10), &b);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			int d2 = (x - DROP_X) * (x - DROP_X) + (y - DROP_Y) * (y - DROP_Y);

			/* every channel is 0x00 or 0xff: exact even in RGB565 */
			if (tu_rgb(&a, x, y) != (checker(x, y) & 0xffffff))
				fail_msg("%s bpp: calm (%d,%d) is %06x, splash %06x", bpp, x, y,
					 tu_rgb(&a, x, y), checker(x, y) & 0xffffff);
			/* a wave front moves at most a cell a step: nothing beyond can change */
			if (d2 > (FRAMES + 8) * (FRAMES + 8) && tu_rgb(&a, x, y) != tu_rgb(&b, x, y))
				fail_msg("%s bpp: (%d,%d) changed far from the drop", bpp, x, y);
			if (d2 < 25 * 25) {
				near++;
				changed += tu_rgb(&a, x, y) != tu_rgb(&b, x, y);
			}
		}
	if (changed * 4 < near)
		fail_msg("%s bpp: only %d of %d pixels near the drop changed", bpp, changed, near);
	image_free(&a);
	image_free(&b);
}

static void test_rings_at_16_bpp(void **state)
{
	run_depth(*state, "16", "RGB565", "660");
}

static void test_rings_at_24_bpp_odd_stride(void **state)
{
	run_depth(*state, "24", "RGB888", "967");
}

static void test_rings_at_32_bpp(void **state)
{
	run_depth(*state, "32", "XRGB8888", "1296");
}

static void test_broken_config_names_file_and_line(void **state)
{
	struct ctx *c = *state;
	const char *conf = tu_path(c->dir, "bad.conf");
	char want[600];

	tu_write(conf, "# a comment\nwater: { damping_shift = 4; };\nstone: { size = 500; };\n");
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--check-config", NULL), 1);
	snprintf(want, sizeof(want), "%s:3: stone.size:", conf);
	if (!strstr(c->out, want))
		fail_msg("expected '%s' in: %s", want, c->out);

	tu_write(conf, "stone: {\n  size = 4;\n  weight = ;\n};\n");
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--check-config", NULL), 1);
	snprintf(want, sizeof(want), "%s:3:", conf);
	if (!strstr(c->out, want))
		fail_msg("expected '%s' in: %s", want, c->out);

	/* two ways to say the damping: both lines named */
	tu_write(conf, "water = {\n  damping = 0.97;\n  damping_shift = 5;\n};\n");
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--check-config", NULL), 1);
	snprintf(want, sizeof(want), "%s:2: water.damping: set together with water.damping_shift "
		 "at %s:3 (expected one or the other)", conf, conf);
	if (!strstr(c->out, want))
		fail_msg("expected '%s' in: %s", want, c->out);

	/* the daemon itself refuses to start on it, before touching the framebuffer */
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev",
				tu_path(c->dir, "never.raw"), "--frames", "1", NULL), 1);
	assert_null(fopen(tu_path(c->dir, "never.raw"), "r"));
}

static void test_good_config_checks_ok(void **state)
{
	struct ctx *c = *state;
	const char *conf = tu_path(c->dir, "good.conf");

	tu_write(conf, "stone: { size = 9; weight = 200; };\nrain: { enabled = true; rate = 3; };\n");
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--check-config", NULL), 0);
	assert_non_null(strstr(c->out, "configuration OK"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", tu_path(c->dir, "missing.conf"),
				"--check-config", NULL), 1);
	assert_non_null(strstr(c->out, "missing.conf"));
}

/* Two screenshots of the same picture, pixel for pixel. */
static void assert_same_png(const char *a, const char *b)
{
	struct image fa, fb;

	tu_load(&fa, a);
	tu_load(&fb, b);
	assert_int_equal(fa.width, fb.width);
	assert_int_equal(fa.height, fb.height);
	assert_memory_equal(fa.pixels, fb.pixels, (size_t)fa.width * fa.height * 4);
	image_free(&fa);
	image_free(&fb);
}

static void test_unreadable_splash_falls_back_to_builtin(void **state)
{
	struct ctx *c = *state;
	const char *conf = tu_path(c->dir, "nosplash.conf");
	const char *none = tu_path(c->dir, "none.conf");
	const char *a = tu_path(c->dir, "fallback.png"), *b = tu_path(c->dir, "builtin.png");
	char text[512];

	snprintf(text, sizeof(text), "splash: { image = \"%s/missing.png\"; };\n", c->dir);
	tu_write(conf, text);
	tu_write(none, "# nothing: all defaults\n");
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev",
				tu_path(c->dir, "fb.raw"), "--frames", "0", "--screenshot", a, NULL),
			 0);
	if (!strstr(c->out, "missing.png") || !strstr(c->out, "built-in"))
		fail_msg("no warning naming the file and the fallback: %s", c->out);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", none, "--fbdev",
				tu_path(c->dir, "fb.raw"), "--frames", "0", "--screenshot", b, NULL),
			 0);
	assert_same_png(a, b);
}

/* An address space too small for the 64 MiB of a 16-megapixel picture, ample for the daemon
 * with the built-in splash (which starts in half of it). */
#define NO_ROOM_KIB	(48L * 1024)

/* A 4096x4096 PPM, black: a sparse file, its pixels never read when they cannot be had. */
static const char *write_huge_ppm(const struct ctx *c, const char *name)
{
	const char *path = tu_path(c->dir, name);

	tu_write(path, "P6\n4096 4096\n255\n");
	assert_int_equal(truncate(path, 17 + 4096L * 4096 * 3), 0);
	return path;
}

/* A picture that cannot be had for want of memory is one that cannot be read: a warning that
 * names it, and the built-in splash. The start stopped with "error: Cannot allocate memory",
 * exit 1. Only a plain native build: a sanitizer's shadow or qemu-user's guest space does not
 * fit in such a limit. */
static void test_splash_out_of_memory_falls_back_to_builtin(void **state)
{
	struct ctx *c = *state;
	const char *conf = tu_path(c->dir, "huge.conf"), *none = tu_path(c->dir, "none.conf");
	const char *fb = tu_path(c->dir, "fb.raw");
	const char *a = tu_path(c->dir, "fallback.png"), *b = tu_path(c->dir, "builtin.png");
	const char *ppm;
	char text[512], want[512];

#ifdef UNDER_ASAN
	skip();
#endif
	if (getenv("FBRIPPLE_RUNNER"))
		skip();
	ppm = write_huge_ppm(c, "huge.ppm");
	snprintf(text, sizeof(text), "display: { threads = 1; };\nsplash: { image = \"%s\"; };\n",
		 ppm);
	tu_write(conf, text);
	tu_write(none, "display: { threads = 1; };\n");
	if (tu_run_limited(NO_ROOM_KIB, c->out, sizeof(c->out), "-c", none, "--fbdev", fb,
			   "--size", "640x480", "--frames", "0", "--screenshot", b, NULL) != 0)
		fail_msg("the built-in splash in %ld KiB: %s", NO_ROOM_KIB, c->out);
	assert_int_equal(tu_run_limited(NO_ROOM_KIB, c->out, sizeof(c->out), "-c", conf,
					"--fbdev", fb, "--size", "640x480", "--frames", "0",
					"--screenshot", a, NULL), 0);
	snprintf(want, sizeof(want), "splash %s: Cannot allocate memory; using the built-in splash",
		 ppm);
	if (!strstr(c->out, want))
		fail_msg("no \"%s\" in: %s", want, c->out);
	assert_same_png(a, b);
}

/* A stone whose disc crosses the corner still ripples there. */
static void test_corner_drop_ripples(void **state)
{
	struct ctx *c = *state;
	const char *conf = write_checker_config(c);
	const char *calm = tu_path(c->dir, "c0.png"), *wet = tu_path(c->dir, "c1.png");
	const char *fb = tu_path(c->dir, "fb.raw");
	struct image a, b;
	int changed = 0;

	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev", fb, "--size",
				"320x240", "--frames", "10", "--screenshot", calm, NULL), 0);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev", fb, "--size",
				"320x240", "--frames", "10", "--drop", "319,0", "--screenshot", wet,
				NULL), 0);
	tu_load(&a, calm);
	tu_load(&b, wet);
	for (int y = 0; y < 20; y++)
		for (int x = W - 20; x < W; x++)
			changed += tu_rgb(&a, x, y) != tu_rgb(&b, x, y);
	assert_true(changed > 20);
	image_free(&a);
	image_free(&b);
}

/*
 * The looks, each a golden picture regenerated by `make readme-picture`
 * (FBRIPPLE_GOLDEN_UPDATE=1) and otherwise a check that the built-in splash, the stones, the
 * grid, the light and the renderer draw what they drew: three stones after 45 frames at
 * 800x450 (cells of 2 pixels), with the default light and without, at 32 and 16 bpp.
 */
static void check_golden(struct ctx *c, const char *name, const char *conf_text,
			 const char *bpp)
{
	char golden[64];
	const char *update = getenv("FBRIPPLE_GOLDEN_UPDATE");
	const char *conf = tu_path(c->dir, "look.conf"), *shot;
	struct image want, got;

	snprintf(golden, sizeof(golden), "tests/golden/%s.png", name);
	shot = update && *update == '1' ? golden : tu_path(c->dir, "look.png");
	tu_write(conf, conf_text);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev",
				tu_path(c->dir, "fb.raw"), "--size", "800x450", "--bpp", bpp,
				"--drop", "250,170", "--drop", "560,290", "--drop", "420,100",
				"--frames", "45", "--screenshot", shot, NULL), 0);
	tu_load(&want, golden);
	tu_load(&got, shot);
	assert_int_equal(got.width, want.width);
	assert_int_equal(got.height, want.height);
	for (int i = 0; i < want.width * want.height; i++)
		if (got.pixels[i] != want.pixels[i])
			fail_msg("%s: pixel (%d,%d) is %08x, golden %08x", golden, i % want.width,
				 i / want.width, got.pixels[i], want.pixels[i]);
	image_free(&want);
	image_free(&got);
}

#define FLAT "water: { light = 0.0; specular = 0.0; };\n"

static void test_readme_picture_is_golden(void **state)
{
	check_golden(*state, "readme", "", "32");
}

static void test_lit_look_at_16_bpp_is_golden(void **state)
{
	check_golden(*state, "lit-16", "", "16");
}

static void test_flat_look_at_32_bpp_is_golden(void **state)
{
	check_golden(*state, "flat-32", FLAT, "32");
}

static void test_flat_look_at_16_bpp_is_golden(void **state)
{
	check_golden(*state, "flat-16", FLAT, "16");
}

static void test_bad_arguments(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(tu_run(c->out, sizeof(c->out), "--bpp", "8", NULL), 2);
	assert_non_null(strstr(c->out, "--bpp"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "12", NULL), 2);
	assert_non_null(strstr(c->out, "--drop"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "2147483647,10", NULL), 2);
	assert_non_null(strstr(c->out, "--drop"));
	/* INT_MIN, whose abs() was itself (and undefined): refused as its neighbour is */
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "-2147483648,0", "-c",
				"/dev/null", "--check-config", NULL), 2);
	assert_non_null(strstr(c->out, "invalid value for --drop: '-2147483648,0'"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "0,-2147483648", "-c",
				"/dev/null", "--check-config", NULL), 2);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "-65535,65535", "-c",
				"/dev/null", "--check-config", NULL), 0);
	/* past 32 bits: 4294967306 is 10 wrapped, and 4294967936x480 would run at 640x480 */
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--drop", "4294967306,20", "-c",
				"/dev/null", "--check-config", NULL), 2);
	assert_non_null(strstr(c->out, "invalid value for --drop: '4294967306,20'"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--size", "4294967936x480", "-c",
				"/dev/null", "--check-config", NULL), 2);
	assert_non_null(strstr(c->out, "invalid value for --size: '4294967936x480'"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--size", "640 x 480", "--drop", "-5,7",
				"-c", "/dev/null", "--check-config", NULL), 0);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--fbdev", tu_path(c->dir, "x.raw"),
				"--format", "RGB444", "-c", "/dev/null", NULL), 1);
	assert_non_null(strstr(c->out, "RGB444"));
	assert_int_equal(tu_run(c->out, sizeof(c->out), "--version", NULL), 0);
	assert_non_null(strstr(c->out, "fbripple "));
#define DROP4 "--drop=1,1", "--drop=1,1", "--drop=1,1", "--drop=1,1"
#define DROP16 DROP4, DROP4, DROP4, DROP4
	/* one past the limit: said so, not that a good value is invalid */
	assert_int_equal(tu_run(c->out, sizeof(c->out), DROP16, DROP16, DROP16, DROP16, "--drop=1,1",
				"-c", "/dev/null", "--check-config", NULL), 2);
	assert_string_equal(c->out, "fbripple: more than 64 --drop options\n");
#undef DROP16
#undef DROP4
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rings_at_16_bpp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rings_at_24_bpp_odd_stride, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rings_at_32_bpp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_config_names_file_and_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_good_config_checks_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_splash_falls_back_to_builtin, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_splash_out_of_memory_falls_back_to_builtin,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_corner_drop_ripples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readme_picture_is_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lit_look_at_16_bpp_is_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flat_look_at_32_bpp_is_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flat_look_at_16_bpp_is_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
	};

	return cmocka_run_group_tests_name("headless", tests, NULL, NULL);
}
