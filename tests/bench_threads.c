/* bench_threads.c - wall-clock ms per frame (classic step + render) of busy water at a size,
 * on 1..4 threads. Usage: bench_threads [REPEATS [WIDTH HEIGHT]]; each figure is the median of
 * REPEATS timings, cell 1 without light and the default look. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "config/config.h"
#include "image/image.h"
#include "image/pixfmt.h"
#include "util/pool.h"
#include "render/render.h"
#include "water/water.h"
#include "water/water_engine.h"

/* Stones every 90 px, stepped until every row is wet; then frames of one step and one render
 * each, new stones now and then so that the water stays busy. */
static double time_case(int width, int height, bool look, int threads, int repeats,
			double *cpu)
{
	struct config cfg;
	struct pixfmt fmt;
	struct render r;
	struct water w;
	struct image splash;
	struct pool p;
	double t[64], c[64];
	int cell = look ? water_cell_auto(width, height) : 1, frames = 20;
	size_t stride = (size_t)width * 4;
	uint8_t *fb = malloc(stride * height);

	config_defaults(&cfg);
	pixfmt_by_name(&fmt, "XRGB8888");
	render_init(&r, width, height, 0, cell, &fmt);
	image_builtin(&splash, r.width, r.height);
	render_set_splash(&r, &splash);
	if (look) {
		struct water_tuning tuning = config_water_tuning(&cfg);
		struct render_light light = { cfg.water.light, cfg.water.light_direction,
					      cfg.water.specular };

		water_open(&w, &water_classic, r.width, r.height, cell, &tuning);
		render_set_light(&r, &light);
	} else {
		water_init(&w, r.width, r.height, cell, 5);
	}
	pool_init(&p, threads);
	render_set_bands(&r, threads);
	for (int i = 0; i < repeats; i++) {
		double t0, c0;

		bench_drop_busy(&w, r.width, r.height, look ? cfg.stone.size : 6,
				look ? cfg.stone.weight : 128);
		for (int s = 0; s < 30; s++)
			water_step(&w);
		t0 = bench_seconds(CLOCK_MONOTONIC);
		c0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
		for (int f = 0; f < frames; f++) {
			water_step_pool(&w, &p);
			render_frame_pool(&r, &w, fb, stride, 0, false, &p);
		}
		t[i] = (bench_seconds(CLOCK_MONOTONIC) - t0) / frames * 1e3;
		c[i] = (bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) / frames * 1e3;
	}
	*cpu = bench_median(c, repeats);
	pool_free(&p);
	image_free(&splash);
	water_free(&w);
	render_free(&r);
	free(fb);
	return bench_median(t, repeats);
}

int main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 9;
	int width = argc > 3 ? atoi(argv[2]) : 3840, height = argc > 3 ? atoi(argv[3]) : 2160;

	repeats = repeats < 1 ? 1 : repeats > 64 ? 64 : repeats;
	printf("%dx%d XRGB8888 busy, step + render, median of %d (ms per frame)\n", width, height,
	       repeats);
	for (int look = 0; look <= 1; look++)
		for (int threads = 1; threads <= pool_threads_auto(); threads++)
		{
			double cpu, wall = time_case(width, height, look, threads, repeats, &cpu);

			printf("%-12s %d thread%s %7.2f wall %7.2f cpu\n",
			       look ? "default look" : "cell 1", threads, threads > 1 ? "s" : " ",
			       wall, cpu);
		}
	return 0;
}
