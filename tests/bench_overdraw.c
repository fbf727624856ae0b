/* bench_overdraw.c - what drawing only what changes leaves to draw: per frame of the default
 * look, the pixels render_frame writes (a twin renderer, fed the same water, draws each frame
 * again over a marker no pixel it writes can equal) against the pixels that differ from the
 * picture and those that differ from the frame before (the fewest any drawing into one page
 * could write and show the same). Rain at the configured rate (2 drops a second by default) over a minute
 * of frames after 10 s of it, and one stone in the middle over its whole life, both at 60
 * frames a second. Usage: bench_overdraw [WxH...] (default 1280x800, 1920x1080, 3840x2160).
 * Counts, not times: the same on any machine for a given path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "image/image.h"
#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

#define FPS 60
#define RAIN_WARM_S 10
#define RAIN_S 60
#define STONE_MAX_S 30

struct counts {
	long frames;
	double drawn, differ, changed;	/* pixels, summed over the frames */
};

struct scene {
	struct render r, twin;
	struct water w;
	struct water_rain rain;
	uint8_t *fb, *before, *marked;
	uint32_t marker;
	size_t bytes;
	long steps_due;
	int steps_per_second;
};

/* Pixels of a and b (n pixels of 4 bytes) that differ. */
static long differing(const uint8_t *a, const uint8_t *b, size_t n)
{
	const uint32_t *p = (const uint32_t *)a, *q = (const uint32_t *)b;
	long d = 0;

	for (size_t i = 0; i < n; i++)
		d += p[i] != q[i];
	return d;
}

/* Pixels of a (n of them) that are still marker. */
static long unchanged(const uint8_t *a, uint32_t marker, size_t n)
{
	const uint32_t *p = (const uint32_t *)a;
	long k = 0;

	for (size_t i = 0; i < n; i++)
		k += p[i] == marker;
	return k;
}

static void frame(struct scene *s, struct counts *c)
{
	size_t n = (size_t)s->r.width * s->r.height;
	int steps = water_clock_steps(&s->steps_due, 1, s->steps_per_second, FPS);

	for (int i = 0; i < steps; i++) {
		water_rain(&s->w, &s->rain, 1.0 / s->steps_per_second);
		water_step(&s->w);
	}
	memcpy(s->before, s->fb, s->bytes);
	render_frame(&s->r, &s->w, s->fb, (size_t)s->r.width * 4, 0, false);
	if (!c) {
		render_frame(&s->twin, &s->w, s->marked, (size_t)s->r.width * 4, 0, false);
		return;
	}
	for (size_t i = 0; i < n; i++)
		((uint32_t *)s->marked)[i] = s->marker;
	render_frame(&s->twin, &s->w, s->marked, (size_t)s->r.width * 4, 0, false);
	c->frames++;
	c->drawn += n - unchanged(s->marked, s->marker, n);
	c->differ += differing(s->fb, s->r.splash, n);
	c->changed += differing(s->fb, s->before, n);
}

static uint32_t field_mask(const struct pixfmt_field *f)
{
	return (uint32_t)((1ull << f->length) - 1) << f->offset;
}

static int scene_open(struct scene *s, const struct config *cfg, int width, int height)
{
	struct water_tuning tuning = config_water_tuning(cfg);
	struct render_light light = { cfg->water.light, cfg->water.light_direction,
				      cfg->water.specular };
	int cell = cfg->water.cell ? cfg->water.cell : water_cell_auto(width, height);
	struct pixfmt fmt;
	struct image splash;

	*s = (struct scene){ .steps_per_second = cfg->water.steps_per_second,
			     .rain = { .size = cfg->rain.size, .weight = cfg->rain.weight,
				       .rng = 0x9e3779b97f4a7c15ull } };
	s->bytes = (size_t)width * height * 4;
	if (pixfmt_by_name(&fmt, "XRGB8888") < 0 ||
	    render_init(&s->r, width, height, 0, cell, &fmt) < 0 ||
	    render_init(&s->twin, width, height, 0, cell, &fmt) < 0 ||
	    water_open(&s->w, config_water_engine(cfg), width, height, cell, &tuning) < 0 ||
	    image_builtin(&splash, width, height) < 0)
		return -1;
	s->w.shape = cfg->stone.shape;
	render_set_light(&s->r, &light);
	render_set_light(&s->twin, &light);
	if (render_set_splash(&s->r, &splash) < 0 || render_set_splash(&s->twin, &splash) < 0) {
		image_free(&splash);
		return -1;
	}
	image_free(&splash);
	s->fb = malloc(s->bytes);
	s->before = malloc(s->bytes);
	s->marked = malloc(s->bytes);
	if (!s->fb || !s->before || !s->marked)
		return -1;
	render_frame(&s->r, &s->w, s->fb, (size_t)width * 4, 0, true);
	render_frame(&s->twin, &s->w, s->marked, (size_t)width * 4, 0, true);
	/* every pixel written is the picture's, its colour shaded at most: its other byte is
	 * the picture's, and the marker's is not */
	s->marker = ((const uint32_t *)s->fb)[0] ^ ~(field_mask(&fmt.red) | field_mask(&fmt.green) |
						      field_mask(&fmt.blue));
	return 0;
}

static void scene_close(struct scene *s)
{
	free(s->fb);
	free(s->before);
	free(s->marked);
	render_free(&s->r);
	render_free(&s->twin);
	water_free(&s->w);
}

static void print_row(const char *what, int width, int height, const struct counts *c)
{
	double n = c->frames > 0 ? c->frames : 1, all = (double)width * height;

	printf("%-9s %4dx%-6d %6ld %9.0f %5.1f%% %9.0f %5.1f%% %9.0f %5.1f%% %7.2f\n", what, width,
	       height, c->frames, c->drawn / n, 100 * c->drawn / n / all, c->differ / n,
	       100 * c->differ / n / all, c->changed / n, 100 * c->changed / n / all,
	       c->changed ? c->drawn / c->changed : 0);
}

static int measure(const struct config *cfg, int width, int height)
{
	struct counts rain = { 0 }, stone = { 0 };
	struct scene s;

	if (scene_open(&s, cfg, width, height) < 0)
		return -1;
	s.rain.rate = cfg->rain.rate;
	for (int i = 0; i < RAIN_WARM_S * FPS; i++)
		frame(&s, NULL);
	for (int i = 0; i < RAIN_S * FPS; i++)
		frame(&s, &rain);
	scene_close(&s);
	print_row("rain", width, height, &rain);

	if (scene_open(&s, cfg, width, height) < 0)
		return -1;
	water_drop(&s.w, width / 2, height / 2, cfg->stone.size, cfg->stone.weight);
	while (!water_calm(&s.w) && stone.frames < STONE_MAX_S * FPS)
		frame(&s, &stone);
	scene_close(&s);
	print_row("one stone", width, height, &stone);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const int sizes[][2] = { { 1280, 800 }, { 1920, 1080 }, { 3840, 2160 } };
	struct config cfg;

	config_defaults(&cfg);
	printf("pixels per frame, default look, XRGB8888, one page, %d fps: written by the frame, "
	       "differing\nfrom the picture, changed since the frame before; rain %.3g drops/s "
	       "for %d s after %d s,\none stone its whole life (FBRIPPLE_DRAW=live: every live "
	       "pixel drawn)\n", FPS, cfg.rain.rate, RAIN_S, RAIN_WARM_S);
	printf("%-9s %-11s %6s %16s %16s %16s %7s\n", "scene", "size", "frames", "written",
	       "differing", "changed", "w/c");
	for (int i = 1; i < argc || (argc == 1 && i <= 3); i++) {
		int w, h;

		if (argc > 1 ? sscanf(argv[i], "%dx%d", &w, &h) != 2 || w < 16 || h < 16
			     : (w = sizes[i - 1][0], h = sizes[i - 1][1], false)) {
			fprintf(stderr, "usage: bench_overdraw [WxH...]\n");
			return 2;
		}
		if (measure(&cfg, w, h) < 0) {
			fprintf(stderr, "bench_overdraw: out of memory at %dx%d\n", w, h);
			return 1;
		}
	}
	return 0;
}
