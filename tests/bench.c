/* bench.c - ms per frame of fbripple beside the seed port and the memory's floor; whole runs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "config/config.h"
#include "image/image.h"
#include "look.h"
#include "image/pixfmt.h"
#include "util/pool.h"
#include "render/render.h"
#include "seed_port.h"
#include "water/water.h"

/*
 * The rows. Each is a configuration (the text of an fbripple.conf on top of the defaults) timed
 * in process: water_step + render_frame, with the stones the configuration gives. A new engine,
 * look or thread count is one more line here; every size, format and scene gets its row.
 * Threads: a row says display.threads; with more than one, frames are stepped and drawn over a
 * pool of that many (water_step_pool, render_frame_pool) and timed by the wall clock.
 */
#define CLASSIC_C1 "water: { engine = \"classic\"; cell = 1; light = 0.0; specular = 0.0; };\n" \
		   "stone: { size = 6; weight = 128; shape = \"disc\"; };\n"
#define ONE_THREAD "display: { threads = 1; };\n"
#define ALL_THREADS "display: { threads = \"auto\"; };\n"

static const struct variant {
	const char *name;
	const char *conf;
} variants[] = {
	{ "classic c1", CLASSIC_C1 ONE_THREAD },
	{ "classic c1 all thr", CLASSIC_C1 ALL_THREADS },
	{ "classic c1 rot 90", CLASSIC_C1 "display: { rotate = 90; threads = 1; };\n" },
	{ "classic c1 rot 180", CLASSIC_C1 "display: { rotate = 180; threads = 1; };\n" },
	{ "classic c1 rot 270", CLASSIC_C1 "display: { rotate = 270; threads = 1; };\n" },
	{ "default look", ONE_THREAD },
	{ "default look all thr", ALL_THREADS },
	{ "hooke", "water: { engine = \"hooke\"; };\n" ONE_THREAD },
	{ "spring", "water: { engine = \"spring\"; };\n" ONE_THREAD },
};

#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static const int sizes[][2] = { { 320, 240 }, { 1280, 800 }, { 1920, 1080 }, { 3840, 2160 } };
static const char *const formats[] = { "RGB565", "XRGB8888" };

enum scene { BUSY, ONE_STONE, CALM };
static const char *const scene_names[] = { "busy", "one stone", "calm" };

/* Busy water: stones every 90 px, again every RESTONE_FRAMES, timed once the rings of
 * neighbouring stones meet and every row is wet. One stone: timed over its first
 * ONE_STONE_FRAMES, as a user sees it. The steady scenes run for at least MIN_FRAMES and
 * BUDGET_S, and each row is the median of CHUNKS equal parts of that: a neighbour on this
 * shared machine taking the CPU for a moment moves one part, not the row. */
#define RESTONE_FRAMES 50
#define WARM_UP_STEPS 60
#define ONE_STONE_FRAMES 200
#define MIN_FRAMES 10
#define MAX_FRAMES 2000
#define BUDGET_S 0.25
#define CHUNKS 5

static double now(void)
{
	return bench_seconds(CLOCK_MONOTONIC);
}

/*
 * The in-process rows count the CPU time the process used: with one thread that is the wall
 * time on an idle machine, and on this shared one it leaves out the turns of the neighbours,
 * which stretch the wall time of every row (3 to 4 times here at times) and not alike. A row
 * with more threads than one must count wall time (now()) instead: its goal is frames a second.
 */
static double row_clock(void)
{
	return bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* The pictures of one size, made once: the logical picture either way round, and the seed's,
 * which has no border of its own: (width + 2) x (height + 2). */
struct pictures {
	struct image wide, tall, seed;
};

/* One thing to time, frame after frame: frame(ctx, i) draws frame i; by the wall clock, or by
 * the process's CPU time (row_clock). */
struct runner {
	void (*frame)(void *ctx, int i);
	void *ctx;
	bool wall;
};

/* ms per frame: the median of CHUNKS parts for steady scenes, the mean over a stone's life;
 * the process's CPU ms per frame over the same frames into cpu_ms. */
static double time_frames(const struct runner *run, bool whole_life, double *cpu_ms)
{
	double stamp[MAX_FRAMES + 1];
	double (*clock)(void) = run->wall ? now : row_clock;
	double parts[CHUNKS], t0 = clock(), cpu0 = row_clock();
	int n = 0;

	stamp[0] = 0;
	while (n < MAX_FRAMES) {
		run->frame(run->ctx, n);
		stamp[++n] = clock() - t0;
		if (whole_life ? n == ONE_STONE_FRAMES : n >= MIN_FRAMES && stamp[n] >= BUDGET_S)
			break;
	}
	*cpu_ms = (row_clock() - cpu0) / n * 1e3;
	if (whole_life)
		return stamp[n] / n * 1e3;
	n -= n % CHUNKS;
	for (int c = 0; c < CHUNKS; c++)
		parts[c] = (stamp[(c + 1) * n / CHUNKS] - stamp[c * n / CHUNKS]) / (n / CHUNKS);
	return bench_median(parts, CHUNKS) * 1e3;
}

/* The same stones for every row: a grid over the whole screen, or one in the middle. */
static void drop_stones(int width, int height, enum scene scene,
			void (*drop)(void *, int, int), void *ctx)
{
	if (scene == ONE_STONE) {
		drop(ctx, width / 2, height / 2);
	} else if (scene == BUSY) {
		for (int y = 40; y < height - 40; y += 90)
			for (int x = 40; x < width - 40; x += 90)
				drop(ctx, x, y);
	}
}

/* ---- fbripple in process ------------------------------------------------------------------ */

struct ours {
	const struct config *cfg;
	enum scene scene;
	struct water w;
	struct render r;
	uint8_t *fb;
	size_t stride;
	struct pool *pool;	/* NULL: one thread */
};

static void drop_ours(void *ctx, int x, int y)
{
	struct ours *o = ctx;

	water_drop(&o->w, x, y, o->cfg->stone.size, o->cfg->stone.weight);
}

static void frame_ours(void *ctx, int i)
{
	struct ours *o = ctx;

	if (o->scene == BUSY && i % RESTONE_FRAMES == RESTONE_FRAMES - 1)
		drop_stones(o->r.width, o->r.height, BUSY, drop_ours, o);
	water_step_pool(&o->w, o->pool);
	render_frame_pool(&o->r, &o->w, o->fb, o->stride, 0, false, o->pool);
}

static int cell_of(const struct config *cfg, int width, int height)
{
	return cfg->water.cell ? cfg->water.cell : water_cell_auto(width, height);
}

static int threads_of(const struct config *cfg)
{
	return cfg->display.threads ? cfg->display.threads : pool_threads_auto();
}

/* fb is width x height at stride bytes a row, or height x width turned. ms per frame; the CPU
 * ms per frame into cpu_ms. */
static double time_ours(const struct config *cfg, int width, int height, const char *format,
			enum scene scene, const struct pictures *pic, uint8_t *fb, size_t stride,
			double *cpu_ms)
{
	struct ours o = { cfg, scene, .fb = fb, .stride = stride };
	struct water_tuning tuning = config_water_tuning(cfg);
	struct render_light light = { cfg->water.light, cfg->water.light_direction,
				      cfg->water.specular };
	struct runner run = { frame_ours, &o, threads_of(cfg) > 1 };
	int cell = cell_of(cfg, width, height);
	struct pixfmt fmt;
	struct pool pool;
	double ms;

	pixfmt_by_name(&fmt, format);
	if (render_init(&o.r, width, height, cfg->display.rotate, cell, &fmt) < 0 ||
	    water_open(&o.w, config_water_engine(cfg), o.r.width, o.r.height, cell, &tuning) < 0) {
		fprintf(stderr, "bench: out of memory at %dx%d\n", width, height);
		exit(1);
	}
	if (run.wall) {
		if (pool_init(&pool, threads_of(cfg)) < 0 ||
		    render_set_bands(&o.r, pool.threads) < 0) {
			fprintf(stderr, "bench: no pool of %d threads\n", threads_of(cfg));
			exit(1);
		}
		o.pool = &pool;
	}
	render_set_light(&o.r, &light);
	o.w.shape = cfg->stone.shape;
	render_set_splash(&o.r, o.r.width == width ? &pic->wide : &pic->tall);
	render_frame(&o.r, &o.w, fb, stride, 0, true);
	drop_stones(o.r.width, o.r.height, scene, drop_ours, &o);
	for (int i = 0; scene == BUSY && i < WARM_UP_STEPS; i++)
		water_step(&o.w);
	ms = time_frames(&run, scene == ONE_STONE, cpu_ms);
	if (o.pool)
		pool_free(o.pool);
	render_free(&o.r);
	water_free(&o.w);
	return ms;
}

/* ---- the seed port: seed 000's ripplespread + renderripple ------------------------------- */

struct seed_run {
	struct seed sd;
	enum scene scene;
	int width, height, bytes;
	const uint8_t *pic;
	uint8_t *fb;
	size_t stride;
};

static void drop_seed(void *ctx, int x, int y)
{
	seed_dropstone(&((struct seed_run *)ctx)->sd, x + 1, y + 1, 6, 128);
}

static void frame_seed(void *ctx, int i)
{
	struct seed_run *s = ctx;

	if (s->scene == BUSY && i % RESTONE_FRAMES == RESTONE_FRAMES - 1)
		drop_stones(s->width, s->height, BUSY, drop_seed, s);
	seed_ripplespread(&s->sd);
	seed_renderripple(&s->sd, s->pic, (int)s->stride, s->fb, (int)s->stride, s->bytes);
}

/* The seed's cost does not depend on the water, so every scene is timed as a steady one. */
static double time_seed(int width, int height, const char *format, enum scene scene,
			const struct pictures *pic, uint8_t *fb, size_t stride)
{
	struct seed_run s = { .scene = scene, .width = width, .height = height, .fb = fb,
			      .stride = stride };
	struct runner run = { frame_seed, &s, false };
	struct pixfmt fmt;
	uint8_t *converted = malloc(stride * (height + 2));
	double ms, cpu_ms;

	pixfmt_by_name(&fmt, format);
	s.bytes = fmt.bytes;
	pixfmt_convert(&fmt, &pic->seed, converted, stride);
	s.pic = converted;
	if (!converted || seed_init(&s.sd, width + 2, height + 2, 5) < 0) {
		fprintf(stderr, "bench: out of memory at %dx%d\n", width, height);
		exit(1);
	}
	drop_stones(width, height, scene, drop_seed, &s);
	for (int i = 0; scene == BUSY && i < WARM_UP_STEPS; i++)
		seed_ripplespread(&s.sd);
	ms = time_frames(&run, false, &cpu_ms);
	seed_free(&s.sd);
	free(converted);
	return ms;
}

/* ---- the floor ------------------------------------------------------------------------------ */

/*
 * What one step + render must move through memory, per pixel, at best: the step reads this
 * step's and the last step's heights and writes the next (3 x 2 bytes per cell; the
 * neighbours come from the cache), and the render reads one splash pixel and writes one screen
 * pixel (2 x the pixel's bytes; the heights it reads were just written and are still cached).
 * 14 bytes at 32 bpp and cell 1, 10 at 16 bpp; a cell of c pixels divides the water's part by
 * c * c. Divided by what a plain copy moves per second over the same working set, in the same
 * run, that is the frame time no code could beat on this machine: the floor.
 */
static double bytes_per_frame(int width, int height, int bytes, int cell)
{
	return (double)width * height * (6.0 / (cell * cell) + 2.0 * bytes);
}

/* Bytes a memcpy reads and writes per second with buffers of total bytes between them. */
static double copy_bandwidth(double total)
{
	size_t half = (size_t)(total / 2);
	uint8_t *a = malloc(half), *b = malloc(half);
	double t[7];

	if (!a || !b) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memset(a, 1, half);
	memset(b, 2, half);
	for (int i = -2; i < 7; i++) {
		double t0 = row_clock();

		memcpy(i % 2 ? a : b, i % 2 ? b : a, half);
		if (i >= 0)
			t[i] = row_clock() - t0;
	}
	free(a);
	free(b);
	return 2.0 * half / bench_median(t, 7);
}

/* ---- the table ------------------------------------------------------------------------------ */

static void load_variant(const struct variant *v, struct config *cfg)
{
	char path[] = "/tmp/fbripple-bench-XXXXXX", err[512];
	int fd = mkstemp(path);
	size_t len = strlen(v->conf);

	config_defaults(cfg);
	if (fd < 0 || write(fd, v->conf, len) != (ssize_t)len ||
	    config_load(cfg, path, err, sizeof(err), NULL, NULL) < 0) {
		fprintf(stderr, "bench: row '%s': %s\n", v->name, fd < 0 ? strerror(errno) : err);
		exit(1);
	}
	close(fd);
	unlink(path);
}

/* A row timed by the wall clock also says the CPU time it took and what share of a CPU the
 * machine gave it. */
static void print_row(const char *size, const char *format, const char *scene, const char *name,
		      double ms, double seed_ms, double floor_ms, double cpu_ms, bool wall)
{
	printf("%-10s %-8s %-10s %-20s %9.3f %8.2fx %8.1fx", size, format, scene, name, ms,
	       seed_ms / ms, ms / floor_ms);
	if (wall)
		printf("  (CPU %.3f, %.0f%% of a CPU)", cpu_ms, cpu_ms / ms * 100);
	printf("\n");
}

static void bench_size(int width, int height, const struct config *cfgs)
{
	/* room for either orientation and for the seed's border; page aligned, its rows 64 bytes
	 * apart, as a mapped framebuffer's are (rotated frames stream to it only then) */
	size_t stride = ((size_t)((width > height ? width : height) + 2) * 4 + 63) / 64 * 64;
	size_t bytes = (stride * ((width > height ? width : height) + 2) + 4095) / 4096 * 4096;
	uint8_t *fb = aligned_alloc(4096, bytes);
	struct pictures pic;
	char size[24];

	snprintf(size, sizeof(size), "%dx%d", width, height);
	if (!fb || image_builtin(&pic.wide, width, height) < 0 ||
	    image_builtin(&pic.tall, height, width) < 0 ||
	    image_builtin(&pic.seed, width + 2, height + 2) < 0) {
		fprintf(stderr, "bench: out of memory at %s\n", size);
		exit(1);
	}
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct pixfmt fmt;
		double bw;

		pixfmt_by_name(&fmt, formats[f]);
		bw = copy_bandwidth(bytes_per_frame(width, height, fmt.bytes, 1));
		printf("%-10s %-8s %-10s %-20s %9.3f  (a plain copy: %.1f GB/s)\n", size,
		       formats[f], "", "floor, cell 1",
		       bytes_per_frame(width, height, fmt.bytes, 1) / bw * 1e3, bw / 1e9);
		for (int sc = BUSY; sc <= CALM; sc++) {
			double seed = time_seed(width, height, formats[f], sc, &pic, fb, stride);

			print_row(size, formats[f], scene_names[sc], "seed port", seed, seed,
				  bytes_per_frame(width, height, fmt.bytes, 1) / bw * 1e3, seed, false);
			for (size_t v = 0; v < NVARIANTS; v++) {
				int cell = cell_of(&cfgs[v], width, height);
				double cpu, ms = time_ours(&cfgs[v], width, height, formats[f], sc,
							   &pic, fb, stride, &cpu);

				print_row(size, formats[f], scene_names[sc], variants[v].name, ms,
					  seed, bytes_per_frame(width, height, fmt.bytes, cell) /
					  bw * 1e3, cpu, threads_of(&cfgs[v]) > 1);
			}
			fflush(stdout);
		}
	}
	image_free(&pic.wide);
	image_free(&pic.tall);
	image_free(&pic.seed);
	free(fb);
}

/* ---- whole processes ------------------------------------------------------------------------ */

/* A program beside this one: FBRIPPLE_BIN for fbripple, else ../fbripple from tests/. */
static void sibling(char *out, size_t len, const char *name)
{
	char self[2048];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';
	if (strcmp(name, "fbripple") == 0 && getenv("FBRIPPLE_BIN"))
		snprintf(out, len, "%s", getenv("FBRIPPLE_BIN"));
	else if (strcmp(name, "fbripple") == 0)
		snprintf(out, len, "%s/../fbripple", self);
	else
		snprintf(out, len, "%s/%s", self, name);
}

struct process_time {
	double wall, cpu;	/* ms */
};

/* Runs argv to its end, its output thrown away; wall time from fork to wait, its CPU time. */
static struct process_time run_process(char *const argv[])
{
	struct process_time t = { -1, -1 };
	struct rusage ru;
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench: %s did not run to its end\n", argv[0]);
		return t;
	}
	t.wall = (now() - t0) * 1e3;
	t.cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return t;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "bench: cannot write %s\n", path);
		exit(1);
	}
}

/* A 1920x1080 photo stand-in: the built-in splash with grain, so that it compresses like a
 * photo (a few MB), not like a drawing. */
static void write_photo(const char *path)
{
	struct image img;

	if (image_builtin(&img, 1920, 1080) < 0) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < (size_t)1920 * 1080; i++) {
		uint32_t h = (uint32_t)i * 2654435761u;
		int g = (int)(h >> 28) - 8;
		uint32_t p = img.pixels[i];

		img.pixels[i] = image_argb(image_channel((float)((p >> 16 & 255) + g)),
					   image_channel((float)((p >> 8 & 255) + g)),
					   image_channel((float)((p & 255) + g)), 255);
	}
	if (image_write_png(&img, path) < 0) {
		fprintf(stderr, "bench: cannot write %s\n", path);
		exit(1);
	}
	image_free(&img);
}

#define PROCESS_RUNS 3

/* Median wall and CPU time of PROCESS_RUNS runs of each of two programs, taken in turns. */
static void time_pair(char *const a[], char *const b[], struct process_time *ta,
		      struct process_time *tb)
{
	double aw[PROCESS_RUNS], ac[PROCESS_RUNS], bw[PROCESS_RUNS], bc[PROCESS_RUNS];

	for (int i = 0; i < PROCESS_RUNS; i++) {
		struct process_time x = run_process(a), y = b ? run_process(b) : x;

		aw[i] = x.wall, ac[i] = x.cpu, bw[i] = y.wall, bc[i] = y.cpu;
	}
	*ta = (struct process_time){ bench_median(aw, PROCESS_RUNS), bench_median(ac, PROCESS_RUNS) };
	*tb = (struct process_time){ bench_median(bw, PROCESS_RUNS), bench_median(bc, PROCESS_RUNS) };
}

/* A new directory for a run's files, in RAM where it can be, as a framebuffer is: no disk in
 * the timings. */
static void make_dir(char *dir, size_t len, const char *what)
{
	snprintf(dir, len, "%s/fbripple-%s-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", what);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
}

/*
 * fbripple as a kiosk starts it, on a raw file in a RAM-backed directory: `--frames 300` with
 * heavy rain at 1080p32 beside tests/seed_prog.c (seed 000's program loop with the same rain,
 * the same picture, the same file), then exec to the first frame on the screen (`--frames 0`:
 * the first frame and the exit, which unmaps and syncs the file) with the built-in splash and
 * with a 1920x1080 PNG.
 */
static void bench_processes(void)
{
	char dir[64], fbr[4096], seedp[4096], conf[4200], rain[4200], png[4200], pngconf[4200],
	     raw[4200], text[4400];
	struct process_time a, b;

	make_dir(dir, sizeof(dir), "bench");
	sibling(fbr, sizeof(fbr), "fbripple");
	sibling(seedp, sizeof(seedp), "seed_prog");
	snprintf(conf, sizeof(conf), "%s/plain.conf", dir);
	snprintf(rain, sizeof(rain), "%s/rain.conf", dir);
	snprintf(png, sizeof(png), "%s/photo.png", dir);
	snprintf(pngconf, sizeof(pngconf), "%s/photo.conf", dir);
	snprintf(raw, sizeof(raw), "%s/fb.raw", dir);
	write_text(conf, "log: { level = \"warning\"; };\n");
	write_text(rain, "log: { level = \"warning\"; };\n"
			 "rain: { enabled = true; rate = 1000.0; };\n");
	write_photo(png);
	snprintf(text, sizeof(text), "log: { level = \"warning\"; };\nsplash: { image = \"%s\"; };\n",
		 png);
	write_text(pngconf, text);

	printf("\nwhole processes at 1920x1080 XRGB8888 on a raw file, median of %d runs:\n",
	       PROCESS_RUNS);
	printf("%-44s %10s %10s %9s\n", "", "wall ms", "CPU ms", "speedup");
	{
		char *fb_argv[] = { fbr, "-c", rain, "--fbdev", raw, "--size", "1920x1080", "--bpp",
				    "32", "--frames", "300", NULL };
		char *seed_argv[] = { seedp, raw, "1920", "1080", "32", "300", "1000", "60", NULL };

		time_pair(seed_argv, fb_argv, &a, &b);
		printf("%-44s %10.1f %10.1f\n", "seed program, 300 frames, heavy rain", a.wall,
		       a.cpu);
		printf("%-44s %10.1f %10.1f %8.2fx\n", "fbripple --frames 300, heavy rain", b.wall,
		       b.cpu, a.wall / b.wall);
	}
	{
		char *builtin[] = { fbr, "-c", conf, "--fbdev", raw, "--size", "1920x1080",
				    "--frames", "0", NULL };
		char *photo[] = { fbr, "-c", pngconf, "--fbdev", raw, "--size", "1920x1080",
				  "--frames", "0", NULL };

		time_pair(builtin, photo, &a, &b);
		printf("%-44s %10.1f %10.1f\n", "exec to first frame, built-in splash", a.wall,
		       a.cpu);
		printf("%-44s %10.1f %10.1f\n", "exec to first frame, 1920x1080 PNG", b.wall,
		       b.cpu);
	}
	unlink(conf);
	unlink(rain);
	unlink(png);
	unlink(pngconf);
	unlink(raw);
	rmdir(dir);
}

/* ---- the screensaver: paced runs, CPU per second ------------------------------------------ */

/*
 * The daemon as a screensaver runs it, all night: paced at 60 fps into a file on /dev/shm,
 * with rain at 2 drops a second, or one touch every 2 s (a drop through the control socket).
 * Each row runs four fbripple processes side by side over the same seconds, so that the
 * machine's neighbours weigh on them alike (each takes a few percent of a CPU): on one thread
 * and on all, each drawing what changes and with FBRIPPLE_DRAW=live (every live pixel, as
 * before); then the seed program paced at 60 fps alone (seed_prog ... FPS; it takes a whole CPU
 * from 1080p on). A process's CPU time is read from its CPU clock after SAVER_WARM_S (the
 * rain's rings have grown) and again SAVER_SPAN_S later (the seed: after 1 s, SAVER_SEED_S).
 */
#define SAVER_WARM_S 4.0
#define SAVER_SPAN_S 4.0
#define SAVER_TOUCH_S 2.0
#define SAVER_SEED_S 2.0

enum { SAVER_ONE, SAVER_ONE_LIVE, SAVER_ALL, SAVER_ALL_LIVE, SAVER_SEED, SAVER_RUNS };

struct saver_run {
	pid_t pid;
	clockid_t clock;
	double cpu0, cpu_ms_per_s;
	char sock[128];
};

static pid_t spawn(char *const argv[], bool live)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		if (live)
			setenv("FBRIPPLE_DRAW", "live", 1);
		else
			unsetenv("FBRIPPLE_DRAW");
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static double process_cpu(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return -1;
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One line to a daemon's control socket, its answer read and thrown away. */
static void send_line(const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char reply[128];

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    write(fd, line, strlen(line)) == (ssize_t)strlen(line))
		(void)!read(fd, reply, sizeof(reply));
	if (fd >= 0)
		close(fd);
}

static void sleep_until(double t)
{
	double left = t - now();

	if (left > 0) {
		struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

/* CPU ms per second of each of runs[0..n) over the SAVER_SPAN_S after SAVER_WARM_S; touches:
 * a drop to each run's control socket every SAVER_TOUCH_S from half a second in. */
static void saver_measure(struct saver_run *runs, int n, double warm, double span, bool touches,
			  int width, int height)
{
	double t0 = now(), mark = t0 + warm, end = mark + span;
	double next_touch = touches ? t0 + 0.5 : 1e300;
	bool started = false;

	for (;;) {
		sleep_until(next_touch < (started ? end : mark) ? next_touch : started ? end : mark);
		if (now() >= next_touch) {
			char line[64];
			int k = (int)((next_touch - t0) / SAVER_TOUCH_S);

			snprintf(line, sizeof(line), "drop %d %d\n", width / 4 + k * 97 % (width / 2),
				 height / 3 + k * 53 % (height / 3));
			for (int i = 0; i < n; i++)
				send_line(runs[i].sock, line);
			next_touch += SAVER_TOUCH_S;
		}
		if (!started && now() >= mark) {
			for (int i = 0; i < n; i++)
				runs[i].cpu0 = process_cpu(runs[i].clock);
			started = true;
		}
		if (started && now() >= end)
			break;
	}
	for (int i = 0; i < n; i++) {
		runs[i].cpu_ms_per_s = (process_cpu(runs[i].clock) - runs[i].cpu0) / span * 1e3;
		kill(runs[i].pid, SIGTERM);
	}
	for (int i = 0; i < n; i++)
		waitpid(runs[i].pid, NULL, 0);
}

static void start_run(struct saver_run *run, char *const argv[], bool live)
{
	run->pid = spawn(argv, live);
	if (run->pid < 0 || clock_getcpuclockid(run->pid, &run->clock) != 0) {
		fprintf(stderr, "bench: cannot start or clock %s\n", argv[0]);
		exit(1);
	}
}

/* One row: size, bpp, rain or touches; CPU ms per second of each fbripple run into runs
 * (the four side by side), and of the seed program alone afterwards when seed is set (its
 * cost does not depend on the water). */
static void saver_row(const char *dir, const char *fbr, const char *seedp, int width, int height,
		      int bpp, bool touches, struct saver_run *runs, bool seed)
{
	char size[24], depth[8], w[12], h[12], frames[16], conf[SAVER_RUNS][256], fb[SAVER_RUNS][256];

	snprintf(size, sizeof(size), "%dx%d", width, height);
	snprintf(depth, sizeof(depth), "%d", bpp);
	snprintf(w, sizeof(w), "%d", width);
	snprintf(h, sizeof(h), "%d", height);
	snprintf(frames, sizeof(frames), "%d", (int)((SAVER_SEED_S + 3) * 60));
	for (int i = 0; i < SAVER_RUNS; i++) {
		char text[512];

		snprintf(fb[i], sizeof(fb[i]), "%s/fb%d", dir, i);
		snprintf(conf[i], sizeof(conf[i]), "%s/saver%d.conf", dir, i);
		snprintf(runs[i].sock, sizeof(runs[i].sock), "%s/ctl%d", dir, i);
		snprintf(text, sizeof(text),
			 "log: { level = \"warning\"; };\ncontrol: { socket = \"%s\"; };\n"
			 "display: { threads = %s; };\nrain: { enabled = %s; rate = 2.0; };\n",
			 runs[i].sock, i == SAVER_ONE || i == SAVER_ONE_LIVE ? "1" : "\"auto\"",
			 touches ? "false" : "true");
		write_text(conf[i], text);
	}
	for (int i = 0; i < SAVER_SEED; i++) {
		char *fb_argv[] = { (char *)fbr, "-c", conf[i], "--fbdev", fb[i], "--size", size,
				    "--bpp", depth, NULL };

		start_run(&runs[i], fb_argv, i == SAVER_ONE_LIVE || i == SAVER_ALL_LIVE);
	}
	saver_measure(runs, SAVER_SEED, SAVER_WARM_S, SAVER_SPAN_S, touches, width, height);
	if (seed) {
		char *seed_argv[] = { (char *)seedp, fb[SAVER_SEED], w, h, depth, frames, "2",
				      "60", "60", NULL };

		start_run(&runs[SAVER_SEED], seed_argv, false);
		saver_measure(&runs[SAVER_SEED], 1, 1.0, SAVER_SEED_S, false, width, height);
	}
	for (int i = 0; i < SAVER_RUNS; i++) {
		unlink(fb[i]);
		unlink(conf[i]);
	}
}

static void bench_saver(void)
{
	static const int at[][2] = { { 1280, 800 }, { 1920, 1080 }, { 3840, 2160 } };
	char dir[64], fbr[4096], seedp[4096];

	make_dir(dir, sizeof(dir), "saver");
	sibling(fbr, sizeof(fbr), "fbripple");
	sibling(seedp, sizeof(seedp), "seed_prog");
	printf("\nscreensaver: CPU ms per second of a run paced at 60 fps into a file on %s, the\n"
	       "default look, seconds %.0f to %.0f of the run: fbripple drawing what changes, and\n"
	       "with FBRIPPLE_DRAW=live (every live pixel), on one thread and on all (%d), the four\n"
	       "side by side; ratio = over live. Then the seed program paced at 60 fps alone (its\n"
	       "cost does not depend on the water). rain = 2 drops/s; touch = a drop through the\n"
	       "control socket every %.0f s.\n", dir[1] == 'd' ? "/dev/shm" : "/tmp",
	       SAVER_WARM_S, SAVER_WARM_S + SAVER_SPAN_S, pool_threads_auto(), SAVER_TOUCH_S);
	printf("%-5s %-10s %-3s %-6s %8s %8s %7s %8s %8s %7s %9s\n", "", "size", "bpp", "scene",
	       "1 thr", "live", "ratio", "all thr", "live", "ratio", "seed prog");
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		for (int bpp = 16; bpp <= 32; bpp += 16) {
			double seed = 0;

			for (int touches = 0; touches <= 1; touches++) {
				struct saver_run runs[SAVER_RUNS];
				char size[24];

				saver_row(dir, fbr, seedp, at[i][0], at[i][1], bpp, touches, runs,
					  !touches);
				if (!touches)
					seed = runs[SAVER_SEED].cpu_ms_per_s;
				snprintf(size, sizeof(size), "%dx%d", at[i][0], at[i][1]);
				printf("%-5s %-10s %-3d %-6s %8.1f %8.1f %6.2fx %8.1f %8.1f %6.2fx %9.1f\n",
				       "saver", size, bpp, touches ? "touch" : "rain",
				       runs[SAVER_ONE].cpu_ms_per_s, runs[SAVER_ONE_LIVE].cpu_ms_per_s,
				       runs[SAVER_ONE].cpu_ms_per_s / runs[SAVER_ONE_LIVE].cpu_ms_per_s,
				       runs[SAVER_ALL].cpu_ms_per_s, runs[SAVER_ALL_LIVE].cpu_ms_per_s,
				       runs[SAVER_ALL].cpu_ms_per_s / runs[SAVER_ALL_LIVE].cpu_ms_per_s,
				       seed);
				fflush(stdout);
			}
		}
	rmdir(dir);
}

/* ---- the look's reach ----------------------------------------------------------------------- */

static int bench_reach(void)
{
	static const int at[][2] = { { 800, 480 }, { 1920, 1080 }, { 3840, 2160 } };
	struct config cfg;

	config_defaults(&cfg);
	printf("\none touch in the centre with the defaults (tests/test_look asserts it):\n");
	printf("%-11s %-9s %-22s %8s\n", "size", "format", "reach (of short side)", "life");
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct look l;

		if (look_measure(&cfg, at[i][0], at[i][1], "XRGB8888", 3, 10, &l) < 0)
			return 1;
		printf("%4dx%-6d %-9s %-22.2f %6.2f s\n", at[i][0], at[i][1], "XRGB8888", l.reach,
		       l.life);
	}
	return 0;
}

static void print_cpu(void)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0) {
			printf("CPU: %s", strchr(line, ':') ? strchr(line, ':') + 2 : line);
			break;
		}
	if (f)
		fclose(f);
	printf("online CPUs: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
}

/* bench [WxH...] [--no-processes | --processes | --screensaver]: the given sizes only
 * (default: all four); without the whole-process rows (and the screensaver's); or those alone;
 * or the screensaver's paced runs alone. */
int main(int argc, char **argv)
{
	struct config cfgs[NVARIANTS];
	bool processes = true, any_size = false, saver_only = false;
	double wall0, cpu0;

	for (size_t v = 0; v < NVARIANTS; v++)
		load_variant(&variants[v], &cfgs[v]);
	print_cpu();
	if (argc == 2 && strcmp(argv[1], "--screensaver") == 0) {
		bench_saver();
		return 0;
	}
	printf("CPU ms per frame (water_step + render_frame, in process, one thread; the rows 'all\n"
	       "thr': wall ms on %d threads, display.threads = \"auto\") beside a plain\n"
	       "port of seed 000 (tests/seed_port.c, the same compiler and flags, the same run),\n"
	       "and over the floor: the bytes a frame must move / a plain copy's bandwidth.\n"
	       "busy = stones every 90 px, again every %d frames: every row always wet;\n"
	       "one stone = its first %d frames; calm = no stones (fbripple then also stops\n"
	       "its frame timer: no frames at all). classic c1 = the seed's engine and stones\n"
	       "at cell 1, no light; default look = fbripple's defaults (cell auto, light).\n\n",
	       pool_threads_auto(), RESTONE_FRAMES, ONE_STONE_FRAMES);
	printf("%-10s %-8s %-10s %-20s %9s %9s %9s\n", "size", "format", "scene", "row",
	       "ms/frame", "vs seed", "vs floor");
	wall0 = now();
	cpu0 = row_clock();
	for (int i = 1; i < argc; i++) {
		int w, h;

		if (strcmp(argv[i], "--no-processes") == 0) {
			processes = false;
		} else if (strcmp(argv[i], "--processes") == 0) {
			any_size = true;	/* no size at all */
		} else if (strcmp(argv[i], "--screensaver") == 0) {
			any_size = saver_only = true;	/* with sizes: after them */
			processes = false;
		} else if (sscanf(argv[i], "%dx%d", &w, &h) == 2 && w >= 64 && h >= 64) {
			bench_size(w, h, cfgs);
			any_size = true;
		} else {
			fprintf(stderr, "usage: bench [WxH...] [--no-processes | --processes | "
				"--screensaver]\n");
			return 2;
		}
	}
	for (size_t i = 0; !any_size && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench_size(sizes[i][0], sizes[i][1], cfgs);
	/* how much of a CPU the neighbours on a shared machine left this run */
	if (now() - wall0 > 1)
		printf("\nthe rows above had %.0f%% of a CPU (this process's CPU time over wall "
		       "time)\n", (row_clock() - cpu0) / (now() - wall0) * 100);
	if (processes)
		bench_processes();
	if (processes || saver_only)
		bench_saver();
	return saver_only ? 0 : bench_reach();
}
