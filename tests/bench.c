/* bench.c - ms per frame of fbripple beside the seed port and the memory's floor; whole runs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

	/* a file in RAM, as a framebuffer is: no disk in the timings */
	snprintf(dir, sizeof(dir), "%s/fbripple-bench-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
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

/* bench [WxH...] [--no-processes | --processes]: the given sizes only (default: all four);
 * without the whole-process rows; or those alone. */
int main(int argc, char **argv)
{
	struct config cfgs[NVARIANTS];
	bool processes = true, any_size = false;
	double wall0, cpu0;

	for (size_t v = 0; v < NVARIANTS; v++)
		load_variant(&variants[v], &cfgs[v]);
	print_cpu();
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
		} else if (sscanf(argv[i], "%dx%d", &w, &h) == 2 && w >= 64 && h >= 64) {
			bench_size(w, h, cfgs);
			any_size = true;
		} else {
			fprintf(stderr, "usage: bench [WxH...] [--no-processes | --processes]\n");
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
	return bench_reach();
}
