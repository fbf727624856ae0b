/* test_memory.c - the fbripple binary's anonymous memory at 1080p, measured at its peak. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/image.h"
#include "testutil.h"

/* The bound (kB as /proc counts them): today's splash, water and renderer fit it with
 * room; the splash twice over (24.7 MB before) does not. */
#define ANON_MAX_KB 17000
enum { W = 1920, H = 1080 };

struct ctx {
	char *dir;
	char preload[PATH_MAX];
	char out[8192];
};

/* tests/rss_peak.so, built beside this program. */
static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	ssize_t n = readlink("/proc/self/exe", c->preload, sizeof(c->preload) - 32);

	assert_true(n > 0);
	c->preload[n] = '\0';
	strcpy(strrchr(c->preload, '/') + 1, "rss_peak.so");
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

/* A sanitizer's shadow memory is anonymous too, and under qemu-user /proc/self is the
 * emulator's: only a plain native build is measured. */
static bool measurable(void)
{
#ifdef UNDER_ASAN
	return false;
#else
	return !getenv("FBRIPPLE_RUNNER");
#endif
}

/* The highest anonymous RSS of one headless run at 1080p32 with heavy rain, in kB. */
static long peak_of_run(struct ctx *c, const char *splash, int rotate)
{
	const char *conf = tu_path(c->dir, "mem.conf"), *peak = tu_path(c->dir, "peak");
	char text[512];
	long kb = -1;
	FILE *f;

	snprintf(text, sizeof(text),
		 "splash: { image = \"%s\"; };\ndisplay: { rotate = %d; };\n"
		 "rain: { enabled = true; rate = 1000.0; };\n", splash, rotate);
	tu_write(conf, text);
	remove(peak);
	setenv("LD_PRELOAD", c->preload, 1);
	setenv("FBRIPPLE_RSS_PEAK", peak, 1);
	assert_int_equal(tu_run(c->out, sizeof(c->out), "-c", conf, "--fbdev",
				tu_path(c->dir, "fb.raw"), "--size", "1920x1080", "--bpp", "32",
				"--frames", "60", "--drop", "960,540", NULL), 0);
	unsetenv("LD_PRELOAD");
	unsetenv("FBRIPPLE_RSS_PEAK");
	f = fopen(peak, "r");
	assert_non_null(f);	/* the preloaded library ran */
	assert_int_equal(fscanf(f, "%ld", &kb), 1);
	fclose(f);
	print_message("splash '%s', rotate %d: anonymous RSS at most %ld kB\n", splash, rotate,
		      kb);
	return kb;
}

static void test_builtin_splash(void **state)
{
	if (!measurable())
		skip();
	assert_in_range(peak_of_run(*state, "", 0), 1, ANON_MAX_KB);
}

/* No copy of the picture in the physical layout at a quarter turn either. */
static void test_builtin_splash_rotated(void **state)
{
	if (!measurable())
		skip();
	assert_in_range(peak_of_run(*state, "", 90), 1, ANON_MAX_KB);
}

/* A photo the screen's size: decoded, composited and converted without a second copy. */
static void test_png_splash(void **state)
{
	struct ctx *c = *state;
	const char *png = tu_path(c->dir, "photo.png");
	struct image img = { W, H, NULL };

	if (!measurable())
		skip();
	img.pixels = malloc((size_t)W * H * sizeof(uint32_t));
	assert_non_null(img.pixels);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			img.pixels[(size_t)y * W + x] = image_argb(x & 255, y & 255, (x ^ y) & 255,
								   y < H / 2 ? 255 : 128);
	assert_int_equal(image_write_png(&img, png), 0);
	image_free(&img);
	assert_in_range(peak_of_run(c, png, 0), 1, ANON_MAX_KB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_builtin_splash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builtin_splash_rotated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_png_splash, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
