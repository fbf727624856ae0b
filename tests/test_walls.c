/* test_walls.c - walls in the water: reflection, a slit's diffraction, stones on walls, masks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "testutil.h"
#include "water/walls.h"
#include "water/water.h"
#include "water/water_engine.h"

/*
 * The scene in cells: a wall two cells thick at columns WALL..WALL + 1 across the whole field
 * but for a slit of SLIT cells centred on row MID, and a stone at STONE on row MID, 30 cells
 * before it. After STEPS steps (waves travel about 0.7 cells a step) the direct wave has
 * crossed the wall's line, the wave through the slit has spread about 30 cells past it, and
 * the wall's echo has come back most of the way to the stone.
 */
enum { W = 200, H = 160, WALL = 100, MID = 80, SLIT = 8, STONE = 70, STEPS = 90 };

static int16_t at(const struct water *w, int x, int y)
{
	return water_row(w, y)[x];
}

static bool wall_cell(int x, int y)
{
	return (x == WALL || x == WALL + 1) && (y < MID - SLIT / 2 || y >= MID + SLIT / 2);
}

/* The scene's walls as a screen mask: every pixel of a wall cell dark. */
static void scene_mask(struct walls *m, int cell)
{
	m->width = W * cell;
	m->height = H * cell;
	m->mask = calloc((size_t)m->width * m->height, 1);
	assert_non_null(m->mask);
	for (int y = 0; y < m->height; y++)
		for (int x = 0; x < m->width; x++)
			m->mask[(size_t)y * m->width + x] = wall_cell(x / cell, y / cell);
}

/* The scene at cell, with or without its walls, after STEPS steps of engine e with its
 * defaults (the classic one a little livelier than its default). */
static void run_scene(struct water *w, const struct water_engine *e, int cell, bool walls,
		      int steps)
{
	struct config cfg;
	struct water_tuning tuning;
	struct walls m;

	config_defaults(&cfg);
	cfg.water.damping_shift = 6;
	tuning = config_water_tuning(&cfg);
	assert_int_equal(water_open(w, e, W * cell, H * cell, cell, &tuning), 0);
	assert_int_equal(w->width, W);
	if (walls) {
		scene_mask(&m, cell);
		assert_int_equal(walls_apply(&m, w), 0);
		walls_free(&m);
	}
	water_drop(w, STONE * cell + cell / 2, MID * cell + cell / 2, 4 * cell, 300);
	for (int i = 0; i < steps; i++)
		water_step(w);
}

/* The largest height in cells x0..x1, rows y0..y1 and their mirror images across MID. */
static int peak(const struct water *w, int x0, int x1, int y0, int y1)
{
	int m = 0;

	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			int a = abs(at(w, x, y)), b = abs(at(w, x, 2 * MID - y));

			m = a > m ? a : m;
			m = b > m ? b : m;
		}
	return m;
}

static int peak_difference(const struct water *a, const struct water *b, int x0, int x1,
			   int y0, int y1)
{
	int m = 0;

	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			int d = abs(at(a, x, y) - at(b, x, y));

			m = d > m ? d : m;
		}
	return m;
}

/* steps: STEPS for waves of the classic's speed, more for slower ones. */
static void check_slit(const struct water_engine *e, int cell, int steps)
{
	struct water walled, open;
	int lit, shadow_open, shadow, spread, cone, echo;

	run_scene(&walled, e, cell, true, steps);
	run_scene(&open, e, cell, false, steps);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			if (wall_cell(x, y) && at(&walled, x, y))
				fail_msg("cell %d: wall (%d,%d) is %d", cell, x, y, at(&walled, x, y));
	/* behind the wall, 40 to 60 rows off the slit: the open water's wave is there, the
	 * slit's has not come that far */
	shadow_open = peak(&open, WALL + 2, WALL + 25, MID + 40, MID + 60);
	shadow = peak(&walled, WALL + 2, WALL + 25, MID + 40, MID + 60);
	/* straight on behind the slit, and 14 to 24 rows off it, well outside the lines from
	 * the stone through the slit's edges (6 rows off at WALL + 20) */
	lit = peak(&walled, WALL + 10, WALL + 25, MID - 3, MID + 3);
	spread = peak(&walled, WALL + 10, WALL + 25, MID + 14, MID + 24);
	cone = SLIT / 2 * (WALL + 25 - STONE) / (WALL - STONE);
	/* before the wall: the echo is what the wall adds to the open water's waves */
	echo = peak_difference(&walled, &open, STONE + 5, WALL - 5, MID - 30, MID + 30);
	printf("# %s, cell %d: behind the wall %d (open water %d), behind the slit %d, %d rows off "
	       "it %d, echo %d\n", e->name, cell, shadow, shadow_open, lit, 14, spread, echo);
	assert_true(cone < 14);
	assert_true(shadow_open > 8 * cell);
	assert_true(shadow * 10 <= shadow_open);
	assert_true(lit > 8 * cell);
	assert_true(spread * 4 >= lit);
	assert_true(echo * 2 >= shadow_open);
	water_free(&walled);
	water_free(&open);
}

/* Waves reflect off a wall and come through a slit only, spreading out past it. */
static void test_slit_at_cell_1(void **state)
{
	(void)state;
	check_slit(&water_classic, 1, STEPS);
}

static void test_slit_at_cell_4(void **state)
{
	(void)state;
	check_slit(&water_classic, 4, STEPS);
}

/* The spring engine's waves go sqrt(passes * spread) = 0.37 cells a step against the
 * classic's 0.7: the same scene 16/9 as many steps later. */
static void test_spring_slit(void **state)
{
	(void)state;
	check_slit(&water_spring, 4, STEPS * 16 / 9);
}

/* (at cell 1, the seeds' scale, the hooke engine's 300-deep stone is still by step 90) */
static void test_slit_hooke(void **state)
{
	(void)state;
	check_slit(&water_hooke, 4, STEPS);
}

/* A stone on a wall does nothing; one half on a wall falls only into the water. */
static void test_stone_on_a_wall(void **state)
{
	struct walls m;
	struct water w;

	(void)state;
	for (int cell = 1; cell <= 3; cell += 2) {
		scene_mask(&m, cell);
		assert_int_equal(water_init(&w, W * cell, H * cell, cell, 6), 0);
		assert_int_equal(walls_apply(&m, &w), 0);
		water_drop(&w, WALL * cell + cell, 20 * cell, cell, 500);
		water_step(&w);
		assert_true(water_calm(&w));
		water_drop(&w, WALL * cell + cell, 20 * cell, 3 * cell, 500);
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				if (wall_cell(x, y) && at(&w, x, y))
					fail_msg("cell %d: wall (%d,%d) is %d", cell, x, y, at(&w, x, y));
		assert_true(at(&w, WALL - 1, 20) < 0);
		assert_true(at(&w, WALL + 2, 20) < 0);
		/* rain and trails go through the same door */
		water_trail(&w, WALL * cell, 5 * cell, WALL * cell, 15 * cell, cell, 500, 1);
		for (int y = 0; y < 20; y++)
			assert_int_equal(at(&w, WALL, y), 0);
		water_free(&w);
		walls_free(&m);
	}
}

/* No mask, or one for another screen size, takes the walls away; the water keeps its waves. */
static void test_walls_removed(void **state)
{
	struct walls m, none = { 0 };
	struct water w;

	(void)state;
	scene_mask(&m, 1);
	assert_int_equal(water_init(&w, W, H, 1, 6), 0);
	assert_int_equal(walls_apply(&m, &w), 0);
	assert_non_null(w.walls);
	water_drop(&w, 50, 50, 5, 100);
	assert_int_equal(walls_apply(&none, &w), 0);
	assert_null(w.walls);
	assert_int_equal(at(&w, 50, 50), -100);
	assert_int_equal(walls_apply(&m, &w), 0);
	m.width--;
	assert_int_equal(walls_apply(&m, &w), 0);
	assert_null(w.walls);
	water_free(&w);
	walls_free(&m);
}

static void write_picture(const char *path, int width, int height, const uint32_t *rgb)
{
	struct image img = { width, height, malloc((size_t)width * height * 4) };

	for (int i = 0; i < width * height; i++)
		img.pixels[i] = 0xff000000u | rgb[i];
	assert_int_equal(image_write_png(&img, path), 0);
	image_free(&img);
}

/* Dark is a luma below 128; the picture is scaled like the splash, its margins water. */
static void test_mask_from_picture(void **state)
{
	/* luma 127 and 128 in grey, then pure colours: red 76, green 150, blue 29 */
	static const uint32_t grey[] = { 0x7f7f7f, 0x808080, 0xff0000, 0x00ff00, 0x0000ff,
					 0xffffff };
	static const uint32_t halves[] = { 0x000000, 0xffffff };
	char *dir = tu_tmpdir(), err[512];
	const char *a = tu_path(dir, "grey.png"), *b = tu_path(dir, "halves.png");
	struct walls m = { 0 };

	(void)state;
	write_picture(a, 6, 1, grey);
	assert_int_equal(walls_load(&m, a, SCALE_STRETCH, 6, 1, err, sizeof(err)), 0);
	assert_int_equal(m.width, 6);
	static const uint8_t want[] = { 1, 0, 1, 0, 1, 0 };
	assert_memory_equal(m.mask, want, 6);
	/* 2x1 fitted into 8x2: black on the left half of the picture, the letterbox water */
	write_picture(b, 2, 1, halves);
	assert_int_equal(walls_load(&m, b, SCALE_STRETCH, 8, 2, err, sizeof(err)), 0);
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 8; x++)
			assert_int_equal(m.mask[y * 8 + x], x < 4);
	assert_int_equal(walls_load(&m, b, SCALE_FIT, 8, 8, err, sizeof(err)), 0);
	assert_int_equal(m.mask[0], 0);		/* the letterbox above */
	assert_int_equal(m.mask[4 * 8 + 0], 1);
	assert_int_equal(m.mask[4 * 8 + 7], 0);
	assert_int_equal(walls_load(&m, "", SCALE_FIT, 8, 8, err, sizeof(err)), 0);
	assert_null(m.mask);
	walls_free(&m);
	tu_rmtree(dir);
}

/* Source column (or row) 11 is a wall one pixel wide; 20..30 a wide one with a one-pixel gap
 * at 25. */
static bool thin_wall(int i)
{
	return i == 11 || (i >= 20 && i <= 30 && i != 25);
}

/* A small mask grown to the screen keeps its walls where they were: a screen pixel is a wall
 * exactly when its centre lies on a wall pixel of the picture (the picture's odd size puts no
 * centre on a border), so a one-pixel wall neither vanishes nor doubles, nor does the gap. */
static void test_thin_walls_grown(void **state)
{
	static const int screens[][2] = { { 160, 90 }, { 64, 50 } };
	char *dir = tu_tmpdir(), err[512];
	const char *across = tu_path(dir, "across.png"), *down = tu_path(dir, "down.png");
	uint32_t cols[37 * 21], rows[21 * 37];
	struct walls m = { 0 };

	(void)state;
	for (int y = 0; y < 21; y++)
		for (int x = 0; x < 37; x++) {
			cols[y * 37 + x] = thin_wall(x) ? 0x000000 : 0xffffff;
			rows[x * 21 + y] = thin_wall(x) ? 0x000000 : 0xffffff;
		}
	write_picture(across, 37, 21, cols);
	write_picture(down, 21, 37, rows);
	for (int s = 0; s < 2; s++) {
		int w = screens[s][0], h = screens[s][1];

		assert_int_equal(walls_load(&m, across, SCALE_STRETCH, w, h, err, sizeof(err)), 0);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				assert_int_equal(m.mask[y * w + x], thin_wall((2 * x + 1) * 37 / (2 * w)));
		assert_int_equal(walls_load(&m, down, SCALE_STRETCH, h, w, err, sizeof(err)), 0);
		for (int y = 0; y < w; y++)
			for (int x = 0; x < h; x++)
				assert_int_equal(m.mask[y * h + x], thin_wall((2 * y + 1) * 37 / (2 * w)));
	}
	walls_free(&m);
	tu_rmtree(dir);
}

/* A file that is not a picture: a one-line error naming it, and the walls as they were. */
static void test_bad_mask_keeps_walls(void **state)
{
	static const uint32_t black[] = { 0 };
	char *dir = tu_tmpdir(), err[512], want[512];
	const char *good = tu_path(dir, "good.png"), *bad = tu_path(dir, "bad.png");
	struct walls m = { 0 };
	uint8_t *before;

	(void)state;
	write_picture(good, 1, 1, black);
	tu_write(bad, "not a picture\n");
	assert_int_equal(walls_load(&m, good, SCALE_FILL, 4, 4, err, sizeof(err)), 0);
	before = m.mask;
	assert_int_equal(walls_load(&m, bad, SCALE_FILL, 4, 4, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "obstacles %s: ", bad);
	assert_memory_equal(err, want, strlen(want));
	assert_null(strchr(err, '\n'));
	assert_ptr_equal(m.mask, before);
	assert_int_equal(m.mask[15], 1);
	assert_int_equal(walls_load(&m, tu_path(dir, "missing.png"), SCALE_FILL, 4, 4, err,
				    sizeof(err)), -ENOENT);
	assert_ptr_equal(m.mask, before);
	printf("# %s\n", err);
	walls_free(&m);
	tu_rmtree(dir);
}

/*
 * The binary on a 480x320 file framebuffer, cells of 2 pixels: the scene above, with the
 * mask a PNG at half the screen's size (scaled like the splash) over a checkerboard splash.
 * Three runs of STEPS frames: calm (walls, no stone), walled (walls and a --drop) and open
 * (the --drop without walls). Behind the wall away from the slit the walled screen is the
 * calm one where the open one has changed; beyond the slit it has changed, also well off
 * the lines from the stone through the slit's edges.
 */
enum { SW = 2 * W + 80, SH = 2 * H, SCELL = 2 };

static uint32_t checker(int x, int y)
{
	static const uint32_t colours[] = { 0xff0000, 0x00ff00, 0x0000ff, 0xffffff,
					    0x000000, 0xffff00, 0x00ffff, 0xff00ff };

	return colours[(x / 8 + 3 * (y / 8)) % 8];
}

static void run_binary(const char *dir, const char *conf, const char *drop, const char *shot)
{
	char out[8192], frames[16], size[32];
	int ret;

	snprintf(frames, sizeof(frames), "%d", STEPS);
	snprintf(size, sizeof(size), "%dx%d", SW, SH);
	if (drop)
		ret = tu_run(out, sizeof(out), "-c", conf, "--fbdev", tu_path(dir, "fb.raw"),
			     "--size", size, "--frames", frames, "--drop", drop, "--screenshot",
			     shot, NULL);
	else
		ret = tu_run(out, sizeof(out), "-c", conf, "--fbdev", tu_path(dir, "fb.raw"),
			     "--size", size, "--frames", frames, "--screenshot", shot, NULL);
	if (ret != 0 || strstr(out, "without walls"))
		fail_msg("fbripple exited %d: %s", ret, out);
}

/* How many pixels of x0..x1, y0..y1 (and their mirror images across the slit) differ. */
static int changed(const struct image *a, const struct image *b, int x0, int x1, int y0,
		   int y1)
{
	int n = 0;

	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++)
			n += (tu_rgb(a, x, y) != tu_rgb(b, x, y)) +
			     (tu_rgb(a, x, SH - 1 - y) != tu_rgb(b, x, SH - 1 - y));
	return n;
}

static void test_binary_slit(void **state)
{
	char *dir = tu_tmpdir(), text[1024], drop[32];
	uint32_t *mask = malloc((size_t)(SW / 2) * (SH / 2) * 4);
	uint32_t *splash = malloc((size_t)SW * SH * 4);
	char walled_conf[512], open_conf[512];
	struct image calm, walled, open;
	int mid = MID * SCELL, wall = WALL * SCELL;
	int shadow, shadow_open, lit, spread;

	(void)state;
	snprintf(walled_conf, sizeof(walled_conf), "%s/walled.conf", dir);
	snprintf(open_conf, sizeof(open_conf), "%s/open.conf", dir);
	for (int y = 0; y < SH / 2; y++)
		for (int x = 0; x < SW / 2; x++)
			mask[y * (SW / 2) + x] = wall_cell(x, y) ? 0x000000 : 0xffffff;
	write_picture(tu_path(dir, "mask.png"), SW / 2, SH / 2, mask);
	for (int y = 0; y < SH; y++)
		for (int x = 0; x < SW; x++)
			splash[y * SW + x] = checker(x, y);
	write_picture(tu_path(dir, "splash.png"), SW, SH, splash);
	free(mask);
	free(splash);
	snprintf(text, sizeof(text), "splash = { image = \"%s\"; scale = \"stretch\"; };\n"
		 "water = { cell = %d; obstacles = \"%s\"; };\n", tu_path(dir, "splash.png"), SCELL,
		 tu_path(dir, "mask.png"));
	tu_write(walled_conf, text);
	snprintf(text, sizeof(text), "splash = { image = \"%s\"; scale = \"stretch\"; };\n"
		 "water = { cell = %d; };\n", tu_path(dir, "splash.png"), SCELL);
	tu_write(open_conf, text);
	snprintf(drop, sizeof(drop), "%d,%d", STONE * SCELL + 1, mid + 1);
	run_binary(dir, walled_conf, NULL, tu_path(dir, "calm.png"));
	run_binary(dir, walled_conf, drop, tu_path(dir, "walled.png"));
	run_binary(dir, open_conf, drop, tu_path(dir, "open.png"));
	tu_load(&calm, tu_path(dir, "calm.png"));
	tu_load(&walled, tu_path(dir, "walled.png"));
	tu_load(&open, tu_path(dir, "open.png"));
	shadow = changed(&walled, &calm, wall + 4, wall + 50, mid + 80, mid + 120);
	shadow_open = changed(&open, &calm, wall + 4, wall + 50, mid + 80, mid + 120);
	lit = changed(&walled, &calm, wall + 20, wall + 50, mid - 6, mid + 5);
	spread = changed(&walled, &calm, wall + 20, wall + 50, mid + 28, mid + 48);
	printf("# pixels changed behind the wall %d (open water %d), behind the slit %d, 28 to 48 "
	       "rows off it %d\n", shadow, shadow_open, lit, spread);
	assert_int_equal(shadow, 0);
	assert_true(shadow_open > 100);
	assert_true(lit > 100);
	assert_true(spread > 100);
	image_free(&calm);
	image_free(&walled);
	image_free(&open);
	tu_rmtree(dir);
}

/* A mask that does not load: one line naming it, and the water runs without walls. */
static void test_binary_bad_mask(void **state)
{
	char *dir = tu_tmpdir(), text[512], out[8192];
	const char *conf = tu_path(dir, "bad.conf"), *bad = tu_path(dir, "bad.png");
	int lines = 0;

	(void)state;
	tu_write(bad, "\x89PNG\r\n\x1a\n truncated");
	snprintf(text, sizeof(text), "water = { obstacles = \"%s\"; };\n", bad);
	tu_write(conf, text);
	assert_int_equal(tu_run(out, sizeof(out), "-c", conf, "--fbdev", tu_path(dir, "fb.raw"),
				"--size", "64x48", "--frames", "3", "--drop", "20,20", NULL), 0);
	for (const char *p = out; (p = strstr(p, "obstacles ")); p++)
		lines++;
	if (lines != 1 || !strstr(out, bad) || !strstr(out, "; running without walls"))
		fail_msg("expected one line naming %s: %s", bad, out);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slit_at_cell_1),
		cmocka_unit_test(test_slit_at_cell_4),
		cmocka_unit_test(test_slit_hooke),
		cmocka_unit_test(test_spring_slit),
		cmocka_unit_test(test_stone_on_a_wall),
		cmocka_unit_test(test_walls_removed),
		cmocka_unit_test(test_mask_from_picture),
		cmocka_unit_test(test_thin_walls_grown),
		cmocka_unit_test(test_bad_mask_keeps_walls),
		cmocka_unit_test(test_binary_slit),
		cmocka_unit_test(test_binary_bad_mask),
	};

	return cmocka_run_group_tests_name("walls", tests, NULL, NULL);
}
