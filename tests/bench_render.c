/* bench_render.c - ms per render_frame alone (no step) over frozen busy water: size, format,
 * rotation, classic cell 1 or the default look. Usage: bench_render [REPEATS [CASE...]], CASE
 * a row's number (all rows without); FBRIPPLE_SIMD picks the render path. Each figure is the
 * median of REPEATS timings of the thread's CPU time, so that a shared machine's other work
 * does not count (its cache traffic still does). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "config/config.h"
#include "image/image.h"
#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

struct case_ {
	int width, height;	/* the framebuffer's */
	const char *format;
	int rotate;
	bool look;		/* the default look (auto cell, light); else cell 1, no light */
};

/* Stones every 90 px over the whole screen, stepped until every row is wet, then frozen. */
static double time_case(const struct case_ *k, const struct config *cfg, int repeats)
{
	struct pixfmt fmt;
	struct render r;
	struct water w;
	struct image splash;
	double t[32];
	int cell = k->look ? water_cell_auto(k->width, k->height) : 1;
	int frames = (int)(2e8 / ((double)k->width * k->height)) + 3;
	size_t stride;
	uint8_t *fb;

	pixfmt_by_name(&fmt, k->format);
	render_init(&r, k->width, k->height, k->rotate, cell, &fmt);
	stride = (size_t)k->width * fmt.bytes;
	fb = aligned_alloc(4096, (stride * k->height + 4095) / 4096 * 4096);	/* a framebuffer is page aligned */
	image_builtin(&splash, r.width, r.height);
	render_set_splash(&r, &splash);
	if (k->look) {
		struct water_tuning tuning = config_water_tuning(cfg);
		struct render_light light = { cfg->water.light, cfg->water.light_direction,
					      cfg->water.specular };

		water_open(&w, config_water_engine(cfg), r.width, r.height, cell, &tuning);
		w.shape = cfg->stone.shape;
		render_set_light(&r, &light);
	} else {
		water_init(&w, r.width, r.height, cell, 5);
	}
	/* bench.c's busy scene: the seeds' stones, or the look's */
	bench_drop_busy(&w, r.width, r.height, k->look ? cfg->stone.size : 6,
			k->look ? cfg->stone.weight : 128);
	for (int i = 0; i < 60; i++)
		water_step(&w);
	render_frame(&r, &w, fb, stride, 0, true);
	for (int i = 0; i < repeats; i++) {
		double t0 = bench_seconds(CLOCK_THREAD_CPUTIME_ID);

		for (int f = 0; f < frames; f++)
			render_frame(&r, &w, fb, stride, 0, false);
		t[i] = (bench_seconds(CLOCK_THREAD_CPUTIME_ID) - t0) / frames * 1e3;
	}
	image_free(&splash);
	water_free(&w);
	render_free(&r);
	free(fb);
	return bench_median(t, repeats);
}

int main(int argc, char **argv)
{
	static const struct case_ cases[] = {
		{ 1920, 1080, "XRGB8888", 0, false }, { 1920, 1080, "RGB565", 0, false },
		{ 1920, 1080, "XRGB8888", 0, true },  { 1920, 1080, "RGB565", 0, true },
		{ 3840, 2160, "XRGB8888", 0, false }, { 3840, 2160, "XRGB8888", 90, false },
		{ 3840, 2160, "XRGB8888", 180, false }, { 3840, 2160, "XRGB8888", 270, false },
		{ 3840, 2160, "RGB565", 0, false },   { 3840, 2160, "RGB565", 90, false },
		{ 3840, 2160, "XRGB8888", 0, true },  { 3840, 2160, "XRGB8888", 90, true },
		{ 3840, 2160, "RGB565", 0, true },    { 3840, 2160, "RGB565", 90, true },
		{ 1920, 1080, "RGB888", 0, false },   { 1920, 1080, "RGB888", 0, true },
		{ 3840, 2160, "RGB565", 180, false },
		/* rotated, the logical rows 4 KiB apart */
		{ 1280, 1024, "XRGB8888", 0, false }, { 1280, 1024, "XRGB8888", 90, false },
	};
	int repeats = argc > 1 ? atoi(argv[1]) : 5;
	struct config cfg;

	repeats = repeats < 1 ? 1 : repeats > 32 ? 32 : repeats;
	config_defaults(&cfg);
	printf("render_frame alone, busy water, CPU ms per frame, median of %d (FBRIPPLE_SIMD=%s)\n", repeats,
	       getenv("FBRIPPLE_SIMD") ? getenv("FBRIPPLE_SIMD") : "");
	printf("%-3s %-11s %-9s %-7s %-8s %9s\n", "#", "size", "format", "rotate", "look", "ms/frame");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *k = &cases[i];
		bool chosen = argc <= 2;

		for (int a = 2; a < argc; a++)
			chosen |= (size_t)atoi(argv[a]) == i;
		if (!chosen)
			continue;

		printf("%-3zu %4dx%-6d %-9s %-7d %-8s %9.3f\n", i, k->width, k->height, k->format, k->rotate,
		       k->look ? "default" : "cell 1", time_case(k, &cfg, repeats));
		fflush(stdout);
	}
	return 0;
}
