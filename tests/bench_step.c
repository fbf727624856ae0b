/* bench_step.c - ms per water step alone over busy water: size, engine, cell and damping.
 * Usage: bench_step [REPEATS [CASE...]], CASE a row's number (all rows without);
 * FBRIPPLE_SIMD picks the path of every engine's step. Each figure is the median of REPEATS timings
 * of the thread's CPU time over a batch of steps, so that a shared machine's other work does
 * not count (its cache traffic still does); between batches the stones fall again, untimed, so
 * that every row stays wet. "hot": the steps back to back, the heights in cache; "in frame":
 * an untimed render_frame (XRGB8888) between two steps, as in the daemon's loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "config/config.h"
#include "util/cpu.h"
#include "image/image.h"
#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"
#include "water/water_engine.h"

struct case_ {
	int width, height;	/* the screen's */
	const char *engine;	/* "classic", "hooke", "spring" */
	bool look;		/* the default cell and stones; else cell 1 and the seeds' stones */
	double damping;		/* classic: the fraction kernel; 0: the shift kernel */
};

/* steps per timed batch */
#define BATCH 10

/* bench.c's busy scene: stones every 90 px over the whole screen, the seeds' or the look's */
static void stones(struct water *w, const struct case_ *k, const struct config *cfg)
{
	bench_drop_busy(w, w->screen_width, w->screen_height, k->look ? cfg->stone.size : 6,
			k->look ? cfg->stone.weight : 128);
}

static int wet_rows(const struct water *w)
{
	int n = 0;

	for (int y = 0; y < w->height; y++)
		n += w->live[y];
	return n;
}

/* A screen the size of the case's to render into between steps. */
struct frame {
	struct render r;
	struct image splash;
	uint8_t *fb;
	size_t stride;
};

static void frame_open(struct frame *f, const struct water *w)
{
	struct pixfmt fmt;

	pixfmt_by_name(&fmt, "XRGB8888");
	render_init(&f->r, w->screen_width, w->screen_height, 0, w->cell, &fmt);
	f->stride = (size_t)w->screen_width * fmt.bytes;
	f->fb = malloc(f->stride * w->screen_height);
	image_builtin(&f->splash, f->r.width, f->r.height);
	render_set_splash(&f->r, &f->splash);
}

static void frame_close(struct frame *f)
{
	image_free(&f->splash);
	render_free(&f->r);
	free(f->fb);
}

/* The median ms per step of repeats batches, with a render between two steps or not. */
static double time_steps(struct water *w, const struct case_ *k, const struct config *cfg,
			 int repeats, struct frame *f, int *wet)
{
	double t[32];

	for (int i = 0; i < repeats; i++) {
		stones(w, k, cfg);
		water_step(w);
		t[i] = 0;
		for (int s = 0; s < BATCH; s++) {
			double t0;

			if (f)
				render_frame(&f->r, w, f->fb, f->stride, 0, true);
			t0 = bench_seconds(CLOCK_THREAD_CPUTIME_ID);
			water_step(w);
			t[i] += bench_seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
		}
		t[i] = t[i] / BATCH * 1e3;
		*wet = wet_rows(w) < *wet ? wet_rows(w) : *wet;
	}
	return bench_median(t, repeats);
}

static int time_case(const struct case_ *k, struct config *cfg, int repeats, double ms[2],
		     int *wet)
{
	struct water w;
	struct water_tuning tuning;
	struct frame f;
	int cell;

	cfg->water.engine = !strcmp(k->engine, "hooke") ? 1 : !strcmp(k->engine, "spring") ? 2 : 0;
	cfg->water.damping = k->damping;
	tuning = config_water_tuning(cfg);
	cell = k->look ? water_cell_auto(k->width, k->height) : 1;
	if (water_open(&w, config_water_engine(cfg), k->width, k->height, cell, &tuning) < 0)
		return -1;
	w.shape = k->look ? cfg->stone.shape : WATER_DISC;
	stones(&w, k, cfg);
	for (int i = 0; i < 60; i++)
		water_step(&w);
	*wet = w.height;
	ms[0] = time_steps(&w, k, cfg, repeats, NULL, wet);
	frame_open(&f, &w);
	ms[1] = time_steps(&w, k, cfg, repeats, &f, wet);
	frame_close(&f);
	water_free(&w);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct case_ cases[] = {
		{ 1920, 1080, "classic", false, 0 },	{ 1920, 1080, "classic", false, 0.97 },
		{ 1920, 1080, "classic", true, 0 },	{ 1920, 1080, "hooke", true, 0 },
		{ 1920, 1080, "spring", true, 0 },	{ 3840, 2160, "classic", false, 0 },
		{ 3840, 2160, "classic", false, 0.97 }, { 3840, 2160, "classic", true, 0 },
		{ 3840, 2160, "hooke", true, 0 },	{ 3840, 2160, "spring", true, 0 },
		{ 1920, 1080, "hooke", false, 0 },	{ 1920, 1080, "spring", false, 0 },
	};
	int repeats = argc > 1 ? atoi(argv[1]) : 9;
	struct config cfg;
	enum cpu_simd simd;

	repeats = repeats < 1 ? 1 : repeats > 32 ? 32 : repeats;
	config_defaults(&cfg);
	cpu_simd_choose(&simd);
	printf("water_step alone, busy water, CPU ms per step, median of %d batches of %d (path %s)\n",
	       repeats, BATCH, cpu_simd_name(simd));
	printf("%-3s %-11s %-8s %-5s %-8s %9s %9s %9s\n", "#", "size", "engine", "cell", "damping",
	       "wet rows", "hot", "in frame");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *k = &cases[i];
		bool chosen = argc <= 2;
		double ms[2] = { 0, 0 };
		int wet = 0;
		char damping[16];

		for (int a = 2; a < argc; a++)
			chosen |= (size_t)atoi(argv[a]) == i;
		if (!chosen)
			continue;
		if (k->damping)
			snprintf(damping, sizeof(damping), "%.2f", k->damping);
		else
			snprintf(damping, sizeof(damping), ">> %d", cfg.water.damping_shift);
		if (time_case(k, &cfg, repeats, ms, &wet) < 0)
			return 1;
		printf("%-3zu %4dx%-6d %-8s %-5d %-8s %9d %9.3f %9.3f\n", i, k->width, k->height,
		       k->engine, k->look ? water_cell_auto(k->width, k->height) : 1, damping, wet,
		       ms[0], ms[1]);
		fflush(stdout);
	}
	return 0;
}
