/* bench.c - ms per frame (step + render) of fbripple beside the plain seed port, same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "image.h"
#include "look.h"
#include "pixfmt.h"
#include "render.h"
#include "seed_port.h"
#include "seed_spring.h"
#include "water.h"

enum scene { BUSY, ONE_STONE, CALM };

static const char *const scene_names[] = { "busy", "one stone", "calm" };

struct setup {
	int width, height;	/* the framebuffer's */
	const char *format;
	enum scene scene;
	int rotate;
	const struct config *look;	/* NULL: classic, cell 1, the seeds' stones, no light */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same stones for both engines: a grid over the whole screen, or one in the middle. */
static void drop_stones(const struct setup *s, void (*drop)(void *, int, int), void *ctx)
{
	if (s->scene == ONE_STONE) {
		drop(ctx, s->width / 2, s->height / 2);
	} else if (s->scene == BUSY) {
		for (int y = 40; y < s->height - 40; y += 90)
			for (int x = 40; x < s->width - 40; x += 90)
				drop(ctx, x, y);
	}
}

static void drop_ours(void *ctx, int x, int y)
{
	water_drop(ctx, x, y, 6, 128);
}

static const struct config *look_of_drops;

static void drop_look(void *ctx, int x, int y)
{
	water_drop(ctx, x, y, look_of_drops->stone.size, look_of_drops->stone.weight);
}

static void drop_seed(void *ctx, int x, int y)
{
	seed_dropstone(ctx, x + 1, y + 1, 6, 128);
}

/* The one-stone scene is timed over the stone's whole life, as a user would see it; the others
 * over enough frames to be steady. */
static int frames_for(const struct setup *s)
{
	long cells = (long)s->width * s->height;
	int n = (int)(4e8 / cells / 10);

	if (s->scene == ONE_STONE)
		return 200;
	return n < 30 ? 30 : n > 400 ? 400 : n;
}

/* Busy water is timed once the rings of neighbouring stones meet and every row is wet, and
 * kept busy by the same stones again every RESTONE_FRAMES. */
#define RESTONE_FRAMES 50

static int warm_up(const struct setup *s)
{
	return s->scene == BUSY ? 60 : 0;
}

static double time_ours(const struct setup *s, const struct image *splash, uint8_t *fb,
			size_t stride)
{
	struct pixfmt fmt;
	struct water w;
	struct render r;
	int frames = frames_for(s);
	double t0;

	struct setup logical = *s;

	const struct config *c = s->look;
	int cell = c ? water_cell_auto(s->width, s->height) : 1;
	void (*drop)(void *, int, int) = c ? drop_look : drop_ours;

	pixfmt_by_name(&fmt, s->format);
	render_init(&r, s->width, s->height, s->rotate, cell, &fmt);
	logical.width = r.width;
	logical.height = r.height;
	if (c) {
		struct water_tuning tuning = config_water_tuning(c);

		water_open(&w, config_water_engine(c), r.width, r.height, cell, &tuning);
	} else {
		water_init(&w, r.width, r.height, cell, 5);
	}
	if (c) {
		struct render_light light = { c->water.light, c->water.light_direction,
					      c->water.specular };

		render_set_light(&r, &light);
		w.shape = c->stone.shape;
		look_of_drops = c;
	}
	render_set_splash(&r, splash);
	render_frame(&r, &w, fb, stride, 0, true);
	drop_stones(&logical, drop, &w);
	for (int i = 0; i < warm_up(s); i++)
		water_step(&w);
	t0 = now();
	for (int i = 0; i < frames; i++) {
		if (i % RESTONE_FRAMES == RESTONE_FRAMES - 1 && s->scene == BUSY)
			drop_stones(&logical, drop, &w);
		water_step(&w);
		render_frame(&r, &w, fb, stride, 0, false);
	}
	t0 = (now() - t0) / frames;
	render_free(&r);
	water_free(&w);
	return t0 * 1e3;
}

/* splash and fb are (width + 2) x (height + 2): the seed's buffers have no border of their own. */
static double time_seed(const struct setup *s, const struct image *splash, uint8_t *fb,
			size_t stride)
{
	struct pixfmt fmt;
	struct seed sd;
	int frames = frames_for(s);
	uint8_t *pic;
	double t0;

	pixfmt_by_name(&fmt, s->format);
	pic = malloc(stride * (s->height + 2));
	pixfmt_convert(&fmt, splash, pic, stride);
	seed_init(&sd, s->width + 2, s->height + 2, 5);
	drop_stones(s, drop_seed, &sd);
	for (int i = 0; i < warm_up(s); i++)
		seed_ripplespread(&sd);
	t0 = now();
	for (int i = 0; i < frames; i++) {
		if (i % RESTONE_FRAMES == RESTONE_FRAMES - 1 && s->scene == BUSY)
			drop_stones(s, drop_seed, &sd);
		seed_ripplespread(&sd);
		seed_renderripple(&sd, pic, stride, fb, stride, fmt.bytes);
	}
	t0 = (now() - t0) / frames;
	seed_free(&sd);
	free(pic);
	return t0 * 1e3;
}

/* What display.rotate costs: the same busy water drawn turned, at 1280x800. */
static int bench_rotations(void)
{
	enum { W = 1280, H = 800 };
	size_t stride = (size_t)W * 4;
	uint8_t *fb = malloc(stride * H);
	double base = 0;

	printf("\ndisplay.rotate at %dx%d XRGB8888, busy water:\n", W, H);
	printf("%-8s %10s %9s\n", "rotate", "ms/frame", "vs 0");
	for (int rotate = 0; rotate <= 270; rotate += 90) {
		struct setup s = { W, H, "XRGB8888", BUSY, rotate, NULL };
		struct image splash;
		double ms;

		image_builtin(&splash, rotate % 180 ? H : W, rotate % 180 ? W : H);
		ms = time_ours(&s, &splash, fb, stride);
		base = rotate ? base : ms;
		printf("%-8d %10.3f %8.2fx\n", rotate, ms, ms / base);
		image_free(&splash);
	}
	free(fb);
	return 0;
}

/* The default look (auto cell, light, smooth stones) on kiosk screens beside the seed port at
 * the same size, then how far and how long one touch shows with the defaults. */
static int bench_look(void)
{
	static const int sizes[][2] = { { 800, 480 }, { 1920, 1080 }, { 3840, 2160 } };
	struct config cfg;

	config_defaults(&cfg);
	printf("\ndefault look (water.cell auto, light %.1f, specular %.1f, %s stones), "
	       "XRGB8888:\n", cfg.water.light, cfg.water.specular,
	       water_shape_name(cfg.stone.shape));
	printf("%-11s %-5s %-10s %10s %10s %9s\n", "size", "cell", "scene", "fbripple", "seed",
	       "speedup");
	for (size_t i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int width = sizes[i][0], height = sizes[i][1];
		size_t stride = (size_t)(width + 2) * 4;
		uint8_t *fb = malloc(stride * (height + 2));
		struct image splash, big;

		image_builtin(&big, width + 2, height + 2);
		image_builtin(&splash, width, height);
		for (int sc = BUSY; sc <= ONE_STONE; sc++) {
			struct setup s = { width, height, "XRGB8888", sc, 0, &cfg };
			double ours = time_ours(&s, &splash, fb, stride);
			double seed = time_seed(&s, &big, fb, stride);

			printf("%4dx%-6d %-5d %-10s %10.3f %10.3f %8.1fx\n", width, height,
			       water_cell_auto(width, height), scene_names[sc], ours, seed,
			       seed / ours);
			fflush(stdout);
		}
		image_free(&splash);
		image_free(&big);
		free(fb);
	}
	printf("\none touch in the centre with the defaults (tests/test_look asserts it):\n");
	printf("%-11s %-9s %-22s %8s\n", "size", "format", "reach (of short side)", "life");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct look l;

		if (look_measure(&cfg, sizes[i][0], sizes[i][1], "XRGB8888", 3, 10, &l) < 0)
			return 1;
		printf("%4dx%-6d %-9s %-22.2f %6.2f s\n", sizes[i][0], sizes[i][1], "XRGB8888",
		       l.reach, l.life);
		fflush(stdout);
	}
	return 0;
}

struct seed_drop {
	struct seed_spring *sd;
	int cell, size, weight;
};

static void drop_seed_spring(void *ctx, int x, int y)
{
	const struct seed_drop *d = ctx;

	seed_spring_drop(d->sd, x / d->cell + 1, y / d->cell + 1, d->size, d->weight);
}

/* Seed 004's loop as written over the same cells as ours, the same stones at the same times;
 * its render is not ported: the loop alone. */
static double time_seed_spring(const struct setup *s, const struct config *c, int cell)
{
	int nx = (s->width + cell - 1) / cell, ny = (s->height + cell - 1) / cell;
	int frames = frames_for(s);
	struct seed_spring sd;
	struct seed_drop d = { &sd, cell, WATER_AUTO_STONE_CELLS, c->stone.weight };
	double t0;

	seed_spring_init(&sd, nx + 2, ny + 2, (float)c->water.spring_stiffness,
			 (float)c->water.spring_viscosity);
	sd.spread = (float)c->water.spring_spread;
	sd.passes = c->water.spring_passes;
	drop_stones(s, drop_seed_spring, &d);
	for (int i = 0; i < warm_up(s); i++)
		seed_spring_step(&sd);
	t0 = now();
	for (int i = 0; i < frames; i++) {
		if (i % RESTONE_FRAMES == RESTONE_FRAMES - 1 && s->scene == BUSY)
			drop_stones(s, drop_seed_spring, &d);
		seed_spring_step(&sd);
	}
	t0 = (now() - t0) / frames;
	seed_spring_free(&sd);
	return t0 * 1e3;
}

/* Our steps alone, the stones as in time_ours. */
static double time_steps(const struct setup *s, const struct config *c)
{
	struct water_tuning tuning = config_water_tuning(c);
	int frames = frames_for(s);
	struct water w;
	double t0;

	water_open(&w, config_water_engine(c), s->width, s->height,
		   water_cell_auto(s->width, s->height), &tuning);
	w.shape = c->stone.shape;
	look_of_drops = c;
	drop_stones(s, drop_look, &w);
	for (int i = 0; i < warm_up(s); i++)
		water_step(&w);
	t0 = now();
	for (int i = 0; i < frames; i++) {
		if (i % RESTONE_FRAMES == RESTONE_FRAMES - 1 && s->scene == BUSY)
			drop_stones(s, drop_look, &w);
		water_step(&w);
	}
	t0 = (now() - t0) / frames;
	water_free(&w);
	return t0 * 1e3;
}

/* water.engine = "spring" with its defaults at 1080p: a frame (step and render), and the step
 * alone beside seed 004's loop on the same cells. */
static int bench_spring(void)
{
	enum { W = 1920, H = 1080 };
	size_t stride = (size_t)W * 4;
	uint8_t *fb = malloc(stride * H);
	struct image splash;
	struct config cfg;

	if (look_defaults_with_engine(&cfg, "spring") < 0 || image_builtin(&splash, W, H) < 0)
		return 1;
	printf("\nwater.engine = \"spring\" (its defaults): a frame, and its step alone beside "
	       "seed 004's loop\nas written on the same %dx%d cells (its render is not ported):\n",
	       (W + 3) / 4, (H + 3) / 4);
	printf("%-11s %-10s %10s %10s %10s\n", "size", "scene", "fbripple", "step", "seed loop");
	for (int sc = BUSY; sc <= ONE_STONE; sc++) {
		struct setup s = { W, H, "XRGB8888", sc, 0, &cfg };
		double ours = time_ours(&s, &splash, fb, stride), step = time_steps(&s, &cfg);
		double seed = time_seed_spring(&s, &cfg, water_cell_auto(W, H));

		printf("%4dx%-6d %-10s %10.3f %10.3f %10.3f\n", W, H, scene_names[sc], ours, step,
		       seed);
		fflush(stdout);
	}
	image_free(&splash);
	free(fb);
	return 0;
}

int main(void)
{
	static const int sizes[][2] = { { 320, 240 }, { 1280, 800 }, { 1920, 1080 } };
	static const char *const formats[] = { "RGB565", "XRGB8888" };

	printf("fbripple bench: ms per frame (water_step + render_frame) beside a plain port of\n"
	       "seed 000 (ripplespread + renderripple), same compiler and flags, same run.\n"
	       "busy = stones every 90 px, again every 50 frames: every row always wet;\n"
	       "one stone = its first 200 frames;\n"
	       "calm = no stones (fbripple then also stops its frame timer: no frames at all).\n\n");
	printf("%-11s %-9s %-10s %10s %10s %9s\n", "size", "format", "scene", "fbripple", "seed",
	       "speedup");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int width = sizes[i][0], height = sizes[i][1];
		struct image splash;
		/* seed pictures are (w+2) x (h+2); ours uses the top-left w x h of the same buffer */
		size_t stride = (size_t)(width + 2) * 4;
		uint8_t *fb = malloc(stride * (height + 2));
		struct image big;

		image_builtin(&big, width + 2, height + 2);
		image_builtin(&splash, width, height);
		for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
			for (int sc = BUSY; sc <= CALM; sc++) {
				struct setup s = { width, height, formats[f], sc, 0, NULL };
				double ours = time_ours(&s, &splash, fb, stride);
				double seed = time_seed(&s, &big, fb, stride);
				printf("%4dx%-6d %-9s %-10s %10.3f %10.3f %8.1fx\n", width, height,
				       formats[f], scene_names[sc], ours, seed,
				       ours > 0 ? seed / ours : 0);
				fflush(stdout);
			}
		image_free(&splash);
		image_free(&big);
		free(fb);
	}
	bench_rotations();
	if (bench_spring())
		return 1;
	return bench_look();
}
