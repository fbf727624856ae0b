/* main.c - the command line, wiring the parts together, and the event loop. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "fb.h"
#include "idle.h"
#include "image.h"
#include "input.h"
#include "log.h"
#include "loop.h"
#include "notify.h"
#include "pixfmt.h"
#include "reload.h"
#include "render.h"
#include "vt.h"
#include "water.h"

#ifndef FBRIPPLE_VERSION
#define FBRIPPLE_VERSION "unknown"
#endif
#ifndef FBRIPPLE_SYSCONFDIR
#define FBRIPPLE_SYSCONFDIR "/etc"
#endif

#define DEFAULT_CONFIG FBRIPPLE_SYSCONFDIR "/fbripple.conf"
#define MAX_DROPS 64
#define MAX_CATCH_UP_STEPS 4

struct options {
	const char *config_path;
	bool config_given;
	bool check_config;
	const char *fbdev_file;
	int width, height;
	const char *format;
	size_t stride;
	long frames;			/* < 0: run until a signal */
	const char *screenshot;
	int drops[MAX_DROPS][2];
	int ndrops;
	bool verbose;
	bool list_devices;
	const char *send;		/* a control command to send instead of running */
};

struct app {
	struct options opt;
	struct config cfg;
	struct fb fb;
	struct vt vt;
	bool vt_away;			/* switched to another VT: draw nothing */
	int full_pages;			/* pages still to draw whole */
	struct water water;
	struct render render;
	struct water_rain rain;
	struct loop loop;
	struct loop_source signals, ticks;
	struct loop_source watchdog, idle_timer;
	struct control control;
	struct idle idle;
	struct reload_file_id splash_id;	/* of the splash on screen, to see it change */
	bool paused, rain_on;
	struct input *input;		/* NULL: no input (--frames, or none available) */
	int input_devices, input_contacts;	/* kept up to date by the input wiring */
	long fps_start_ms;
	int fps_frames;
	double fps;
	bool timer_armed;
	bool quit;
};

static const char usage[] =
	"usage: fbripple [options]\n"
	"Ripples on the Linux framebuffer: touches and mouse presses drop stones into the splash.\n"
	"\n"
	"  -c, --config FILE     configuration file (default " DEFAULT_CONFIG ")\n"
	"  -t, --check-config    check the configuration, print the first error, exit 0 or 1\n"
	"  -v, --verbose         log debug messages\n"
	"      --fbdev FILE      draw into a regular file instead of display.device (headless)\n"
	"      --size WxH        the headless framebuffer's size (default 640x480)\n"
	"      --bpp 16|24|32    its depth: RGB565, RGB888 or XRGB8888 (default 32)\n"
	"      --format NAME     its pixel format by name instead: RGB565 BGR565 RGB888 BGR888\n"
	"                        XRGB8888 XBGR8888 RGBX8888 BGRX8888\n"
	"      --stride BYTES    its line length (default width * bytes per pixel)\n"
	"      --frames N        draw N frames as fast as possible, then exit\n"
	"      --screenshot PNG  write the last frame to PNG on exit\n"
	"      --drop X,Y        drop a stone at X,Y before the first frame (repeatable)\n"
	"      --list-devices    describe the framebuffer and every input device, then exit\n"
	"      --send CMD        send CMD to the running daemon's control socket (control.socket\n"
	"                        in the config), print the reply, exit 0 for ok, 1 for an error\n"
	"  -h, --help            this text\n"
	"  -V, --version         the version\n";

enum { OPT_FBDEV = 256, OPT_SIZE, OPT_BPP, OPT_FORMAT, OPT_STRIDE, OPT_FRAMES, OPT_SCREENSHOT,
       OPT_DROP, OPT_SEND, OPT_LIST_DEVICES };

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_pair(const char *s, char sep, int *a, int *b)
{
	char tail;

	if (sscanf(s, sep == 'x' ? "%d x %d%c" : "%d , %d%c", a, b, &tail) != 2)
		return -EINVAL;
	return 0;
}

static int parse_option(struct options *o, int c, const char *arg)
{
	long v;

	switch (c) {
	case 'c':
		o->config_path = arg;
		o->config_given = true;
		return 0;
	case 't':
		o->check_config = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_FBDEV:
		o->fbdev_file = arg;
		return 0;
	case OPT_SIZE:
		if (parse_pair(arg, 'x', &o->width, &o->height) < 0 || o->width < 1 ||
		    o->height < 1 || o->width > 16384 || o->height > 16384)
			return -EINVAL;
		return 0;
	case OPT_BPP:
		if (parse_long(arg, 16, 32, &v) < 0 || (v != 16 && v != 24 && v != 32))
			return -EINVAL;
		o->format = v == 16 ? "RGB565" : v == 24 ? "RGB888" : "XRGB8888";
		return 0;
	case OPT_FORMAT:
		o->format = arg;
		return 0;
	case OPT_STRIDE:
		if (parse_long(arg, 1, 1 << 20, &v) < 0)
			return -EINVAL;
		o->stride = v;
		return 0;
	case OPT_FRAMES:
		return parse_long(arg, 0, 1000000000, &o->frames);
	case OPT_SCREENSHOT:
		o->screenshot = arg;
		return 0;
	case OPT_LIST_DEVICES:
		o->list_devices = true;
		return 0;
	case OPT_SEND:
		o->send = arg;
		return 0;
	case OPT_DROP:
		if (o->ndrops == MAX_DROPS)
			return -E2BIG;
		if (parse_pair(arg, ',', &o->drops[o->ndrops][0], &o->drops[o->ndrops][1]) < 0)
			return -EINVAL;
		o->ndrops++;
		return 0;
	}
	return -EINVAL;
}

static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check-config", no_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "fbdev", required_argument, NULL, OPT_FBDEV },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "bpp", required_argument, NULL, OPT_BPP },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "stride", required_argument, NULL, OPT_STRIDE },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "screenshot", required_argument, NULL, OPT_SCREENSHOT },
	{ "drop", required_argument, NULL, OPT_DROP },
	{ "send", required_argument, NULL, OPT_SEND },
	{ "list-devices", no_argument, NULL, OPT_LIST_DEVICES },
	{ 0 },
};

static const char *option_name(int val)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* 0 to go on, 1 to exit successfully (--help, --version), -1 on a usage error. */
static int parse_args(struct options *o, int argc, char **argv)
{
	int c;

	*o = (struct options){ .config_path = DEFAULT_CONFIG, .width = 640, .height = 480,
			       .format = "XRGB8888", .frames = -1 };
	while ((c = getopt_long(argc, argv, "c:tvhV", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (c == 'V') {
			puts("fbripple " FBRIPPLE_VERSION);
			return 1;
		}
		if (c == '?')
			return -1;
		if (parse_option(o, c, optarg) < 0) {
			fprintf(stderr, "fbripple: invalid value for --%s: '%s'\n",
				option_name(c), optarg);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fbripple: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static void warn_config(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

static int load_config(struct app *app)
{
	char err[512] = "";
	int ret = config_load(&app->cfg, app->opt.config_path, err, sizeof(err), warn_config, NULL);

	if (ret == -ENOENT && !app->opt.config_given) {
		log_notice("no %s, using the built-in defaults", app->opt.config_path);
		return 0;
	}
	if (ret == -ENOENT) {
		log_error("%s: %s", app->opt.config_path, strerror(ENOENT));
		return ret;
	}
	if (ret < 0)
		log_error("%s", err);
	return ret;
}

/* The VT under the framebuffer, in graphics mode and switching only when we agree. Without one
 * fbripple still runs; the console may then draw over the water. */
static void open_console(struct app *app)
{
	char err[256];
	int ret = vt_open(&app->vt, app->cfg.display.vt, err, sizeof(err));

	if (ret == 0)
		ret = vt_take(&app->vt, SIGUSR1, SIGUSR2);
	if (ret == 0) {
		log_debug("drawing on VT %d", app->vt.num);
		return;
	}
	if (ret != -ENOENT)
		snprintf(err, sizeof(err), "VT %d: %s", app->vt.num, strerror(-ret));
	log_warn("%s; drawing without one, the console may show through", err);
	vt_restore(&app->vt);
}

/* Pages, and the crash guard that must know the mode and the console to put back. */
static void prepare_display(struct app *app)
{
	enum fb_buffering mode = app->cfg.display.double_buffer;

	if (fb_setup_pages(&app->fb, mode) == 2)
		log_info("%s: double buffered%s", app->fb.path,
			 app->fb.can_vsync ? ", vsync" : ", no vsync");
	else if (mode == FB_BUFFER_ON)
		log_warn("%s: cannot pan between two pages; single buffered", app->fb.path);
	else if (mode == FB_BUFFER_AUTO)
		log_info("%s: single buffered (the driver cannot pan)", app->fb.path);
	vt_guard_crashes(&app->vt, &app->fb);
}

/* Leaves the screen as found: cleared, in its old mode, the console in text mode so it
 * redraws itself. */
static void release_display(struct app *app)
{
	if (app->fb.map && !app->fb.is_file) {
		memset(app->fb.map, 0, app->fb.map_len);
		fb_flush(&app->fb);
	}
	fb_close(&app->fb);
	vt_restore(&app->vt);
}

static int open_display(struct app *app)
{
	const struct options *o = &app->opt;
	char err[256];
	struct pixfmt fmt;
	int ret;

	if (!o->fbdev_file) {
		ret = fb_open(&app->fb, app->cfg.display.device, err, sizeof(err));
		if (ret < 0) {
			log_error("%s: %s", app->cfg.display.device, err);
			return ret;
		}
		prepare_display(app);
		return 0;
	}
	if (pixfmt_by_name(&fmt, o->format) < 0) {
		log_error("unknown pixel format '%s'", o->format);
		return -EINVAL;
	}
	ret = fb_open_file(&app->fb, o->fbdev_file, o->width, o->height, &fmt,
			   o->stride ? o->stride : (size_t)o->width * fmt.bytes, err, sizeof(err));
	if (ret < 0)
		log_error("%s: %s", o->fbdev_file, err);
	return ret;
}

/* --list-devices, the display's part: what the driver offers and what fbripple makes of it. */
static int list_display(struct app *app)
{
	struct fb *fb = &app->fb;
	int ret = open_display(app);

	if (ret < 0)
		return ret;
	printf("display %s: %s\n", fb->path, fb->id);
	printf("  resolution %dx%d, virtual %ux%u, %d bpp %s, stride %zu bytes\n", fb->width,
	       fb->height, fb->var.xres_virtual, fb->var.yres_virtual, fb->fmt.bpp, fb->fmt.name,
	       fb->stride);
	if (fb->mode_changed && fb->saved.bits_per_pixel != fb->var.bits_per_pixel)
		printf("  switched from %u bpp, which fbripple cannot draw\n",
		       fb->saved.bits_per_pixel);
	printf("  pan: %s; vsync: %s; drawing: %s\n", fb->pages == 2 ? "yes" : "no",
	       fb->can_vsync ? "yes" : "no", fb->pages == 2 ? "double buffered" : "single buffer");
	fb_close(fb);
	return 0;
}

/* The configured splash scaled to the screen (the built-in one for ""); 0 or -errno with err
 * saying why. */
static int load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t errlen)
{
	struct image src;
	int ret;

	if (!cfg->splash.image[0])
		return image_builtin(out, width, height);
	ret = image_load(&src, cfg->splash.image, err, errlen);
	if (ret < 0)
		return ret;
	ret = image_scale(out, &src, width, height, cfg->splash.scale, cfg->splash.background);
	image_free(&src);
	if (ret < 0)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

/* The configured splash, or the built-in one when it cannot be loaded. */
static int make_splash(const struct config *cfg, int width, int height, struct image *out)
{
	char err[256];
	int ret = load_splash(cfg, width, height, out, err, sizeof(err));

	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		log_warn("splash %s: %s; using the built-in splash", cfg->splash.image, err);
		return image_builtin(out, width, height);
	}
	return 0;
}

static int setup_scene(struct app *app)
{
	const struct config *cfg = &app->cfg;
	struct image splash;
	int ret;

	ret = render_init(&app->render, app->fb.width, app->fb.height, cfg->display.rotate,
			  &app->fb.fmt);
	if (ret == 0)
		ret = water_init(&app->water, app->render.width, app->render.height,
				 cfg->water.damping_shift);
	if (ret == 0)
		ret = make_splash(cfg, app->render.width, app->render.height, &splash);
	if (ret < 0) {
		log_error("%s", strerror(-ret));
		return ret;
	}
	render_set_splash(&app->render, &splash);
	image_free(&splash);

	app->rain = (struct water_rain){ .rate = cfg->rain.enabled ? cfg->rain.rate : 0,
					 .size = cfg->rain.size, .weight = cfg->rain.weight,
					 .rng = (uint64_t)time(NULL) * 2654435761u | 1 };
	for (int i = 0; i < app->opt.ndrops; i++)
		water_drop(&app->water, app->opt.drops[i][0], app->opt.drops[i][1],
			   cfg->stone.size, cfg->stone.weight);
	return 0;
}

/* Draws the water into the page off screen and shows it. full: every row, on every page. */
static void draw(struct app *app, bool full)
{
	if (app->vt_away)
		return;
	if (full)
		app->full_pages = app->fb.pages;
	full = app->full_pages > 0;
	app->full_pages -= full;
	render_frame(&app->render, &app->water, fb_draw_pixels(&app->fb), app->fb.stride,
		     app->fb.page, full);
	fb_present(&app->fb);
}

static void advance(struct app *app, int steps)
{
	double dt = 1.0 / app->cfg.display.fps;

	for (int i = 0; i < steps; i++) {
		water_rain(&app->water, &app->rain, dt);
		water_step(&app->water);
	}
	draw(app, false);
}

static void run_frames(struct app *app)
{
	draw(app, true);
	for (long i = 0; i < app->opt.frames; i++)
		advance(app, 1);
}

static int arm_timer(struct app *app, bool on)
{
	long period = 1000000000L / app->cfg.display.fps;
	struct itimerspec its = { 0 };

	on = on && !app->vt_away;
	if (on == app->timer_armed)
		return 0;
	if (on)
		its.it_interval = its.it_value = (struct timespec){ 0, period };
	if (timerfd_settime(app->ticks.fd, 0, &its, NULL) < 0)
		return -errno;
	app->timer_armed = on;
	return 0;
}

static bool idle(const struct app *app)
{
	return water_calm(&app->water) && app->rain.rate == 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Whether the frame timer has work: not paused or blanked, and the water moves or rain falls. */
static bool should_run(const struct app *app)
{
	return !app->paused && !app->idle.blanked && !idle(app);
}

/* Sets the rain from its switches, then runs the frame timer if there is something to draw. */
static void wake(struct app *app)
{
	bool rain = (app->rain_on || app->idle.raining) && !app->idle.blanked;

	app->rain.rate = rain ? app->cfg.rain.rate : 0;
	app->rain.size = app->cfg.rain.size;
	app->rain.weight = app->cfg.rain.weight;
	arm_timer(app, should_run(app));
}

static void count_frame(struct app *app)
{
	long now = now_ms(), span = now - app->fps_start_ms;

	app->fps_frames++;
	if (span > 2000) {		/* the timer slept: start a new window */
		app->fps_start_ms = now;
		app->fps_frames = 0;
	} else if (span >= 1000) {
		app->fps = app->fps_frames * 1000.0 / (double)span;
		app->fps_start_ms = now;
		app->fps_frames = 0;
	}
}

static void redraw(struct app *app)
{
	draw(app, true);
	fb_flush(&app->fb);
}

static void set_blank(struct app *app, bool blank)
{
	int ret = fb_blank(&app->fb, blank);

	if (ret < 0 && ret != -ENOTTY)
		log_warn("%s: FBIOBLANK: %s", app->fb.path, strerror(-ret));
	log_info(blank ? "no input for screensaver.blank_after: display blanked"
		       : "input: display unblanked");
	if (!blank)
		redraw(app);
}

static void arm_idle(struct app *app)
{
	long next = idle_next(&app->idle);
	struct itimerspec its = { 0 };

	if (app->idle_timer.fd < 0)
		return;
	if (next >= 0)
		its.it_value = (struct timespec){ next / 1000, next % 1000 * 1000000 + 1 };
	timerfd_settime(app->idle_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void apply_idle(struct app *app, unsigned events)
{
	if (events & (IDLE_BLANK | IDLE_UNBLANK))
		set_blank(app, events & IDLE_BLANK);
	if (events & IDLE_RAIN_START)
		log_info("no input for rain.idle_after: rain starts");
	wake(app);
	arm_idle(app);
}

static void on_idle(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		apply_idle(app, idle_check(&app->idle, now_ms()));
}

/* Input happened (a touch, a press, a control-socket drop): stops idle rain, wakes a blank
 * screen. True when it only woke the screen: a touch then drops no stone. */
static bool app_activity(struct app *app)
{
	unsigned events = idle_activity(&app->idle, now_ms());

	apply_idle(app, events);
	return events & IDLE_UNBLANK;
}

/* A touch drops a stone, and each contact dragged draws its own trail of lighter drops. */
static void on_contact(void *ctx, const struct input_contact *c)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;
	int weight = cfg->input.trail_weight;

	if (c->action == INPUT_ACTIVITY) {
		app_activity(app);
		return;
	}
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		log_debug("input: contact %d %s at %d,%d", c->id,
			  c->action == INPUT_DOWN ? "down" : "up", c->x, c->y);
	if (c->action == INPUT_DOWN) {
		app->input_contacts++;
		if (!app_activity(app))
			water_drop(&app->water, c->x, c->y, cfg->stone.size, cfg->stone.weight);
	} else if (c->action == INPUT_UP) {
		app->input_contacts -= app->input_contacts > 0;
	} else if (c->action == INPUT_MOVE || cfg->input.hover_ripples) {
		if (c->action == INPUT_HOVER)
			weight = weight > 1 ? weight / 2 : 1;
		water_trail(&app->water, c->from_x, c->from_y, c->x, c->y, cfg->stone.size, weight,
			    cfg->input.trail_spacing);
	}
	wake(app);
}

static void note_input(void *ctx, enum log_level level, const char *msg)
{
	struct app *app = ctx;

	log_msg(level, "input: %s", msg);
	app->input_devices = input_count(app->input);
}

static void input_options(const struct app *app, struct input_opts *o, const char **devices)
{
	const struct config *cfg = &app->cfg;

	for (int i = 0; i < cfg->input.devices.n; i++)
		devices[i] = cfg->input.devices.item[i];
	*o = (struct input_opts){ .devices = devices, .ndevices = cfg->input.devices.n,
				  .only_listed = app->opt.fbdev_file != NULL,
				  .grab = cfg->input.grab, .has_cal = cfg->input.calibration.n == 6,
				  .fb_width = app->fb.width, .fb_height = app->fb.height,
				  .rotate = cfg->display.rotate,
				  .min_move = cfg->input.trail_spacing };
	memcpy(o->cal, cfg->input.calibration.item, sizeof(o->cal));
}

/* Every touchscreen, mouse and tablet, also those plugged in later. A headless --fbdev run
 * takes only the devices input.devices names, never the desktop's own mouse. */
static void open_input(struct app *app)
{
	const char *devices[CONFIG_LIST_MAX];
	struct input_opts o;
	int ret;

	input_options(app, &o, devices);
	if (app->input)
		ret = input_reconfigure(app->input, &o);
	else
		ret = input_open(&app->input, &o, &app->loop, on_contact, note_input, app);
	if (ret < 0)
		log_warn("input: %s; running without touch or mouse", strerror(-ret));
	app->input_devices = input_count(app->input);
}

static void on_watchdog(struct loop_source *src, uint32_t events)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		notify_send("WATCHDOG=1");
}

/* A new display device or rotation: the new one is set up completely before the old one goes,
 * so a failure leaves everything as it was. The waves survive unless the size changes. */
static int reopen_display(struct app *app, const struct config *cfg, char *err, size_t len)
{
	struct fb old_fb = app->fb;
	struct render old_render = app->render;
	struct config old_cfg = app->cfg;
	struct image splash;
	int ret = 0;

	app->cfg.display = cfg->display;
	app->cfg.splash = cfg->splash;
	if (!app->opt.fbdev_file && strcmp(cfg->display.device, old_cfg.display.device))
		ret = open_display(app);
	if (ret == 0)
		ret = render_init(&app->render, app->fb.width, app->fb.height,
				  cfg->display.rotate, &app->fb.fmt);
	if (ret == 0 && (ret = make_splash(cfg, app->render.width, app->render.height,
					   &splash)) < 0)
		render_free(&app->render);
	if (ret < 0) {
		if (app->fb.map != old_fb.map)
			fb_close(&app->fb);
		app->fb = old_fb;
		app->render = old_render;
		app->cfg = old_cfg;
		snprintf(err, len, "display %s: %s", cfg->display.device, strerror(-ret));
		return ret;
	}
	render_set_splash(&app->render, &splash);
	image_free(&splash);
	render_free(&old_render);
	if (app->fb.map != old_fb.map) {
		fb_close(&old_fb);
		vt_guard_crashes(&app->vt, &app->fb);
	}
	if (app->render.width != app->water.width || app->render.height != app->water.height) {
		water_free(&app->water);
		ret = water_init(&app->water, app->render.width, app->render.height,
				 cfg->water.damping_shift);
	}
	return ret;
}

/* The new picture, converted while the old one stays on screen. */
static int reload_splash(struct app *app, const struct config *cfg, char *err, size_t len)
{
	struct image splash;
	char why[256];
	int ret = load_splash(cfg, app->render.width, app->render.height, &splash, why,
			      sizeof(why));

	if (ret < 0) {
		snprintf(err, len, "splash %.200s: %.200s", cfg->splash.image, why);
		return ret;
	}
	ret = render_set_splash(&app->render, &splash);
	image_free(&splash);
	return ret;
}

/* Applies what changed; on an error err says why and nothing changed. */
static int apply_config(struct app *app, const struct config *cfg, unsigned changes,
			char *err, size_t len)
{
	bool input_changed = (changes & RELOAD_DISPLAY) ||
			     memcmp(&app->cfg.input, &cfg->input, sizeof(cfg->input));
	int ret = 0;

	if (changes & RELOAD_DISPLAY)
		ret = reopen_display(app, cfg, err, len);
	else if (changes & RELOAD_SPLASH)
		ret = reload_splash(app, cfg, err, len);
	if (ret < 0)
		return ret;
	if (changes & (RELOAD_DISPLAY | RELOAD_SPLASH))
		redraw(app);
	if ((changes & RELOAD_CONTROL) &&
	    (ret = control_listen(&app->control, cfg->control.socket)) < 0)
		log_warn("control socket %s: %s; keeping %s", cfg->control.socket,
			 strerror(-ret), app->control.path[0] ? app->control.path : "none");
	if ((changes & RELOAD_LOG) && !app->opt.verbose)
		log_set_level(cfg->log.level);
	if (changes & RELOAD_RAIN)
		app->rain_on = cfg->rain.enabled;
	if (changes & RELOAD_IDLE)
		idle_configure(&app->idle, cfg->rain.idle_after, cfg->screensaver.blank_after);
	if (changes & RELOAD_FPS)
		arm_timer(app, false);	/* wake re-arms it with the new period */
	app->water.damping_shift = cfg->water.damping_shift;
	memcpy(&app->cfg, cfg, sizeof(*cfg));
	if (input_changed && app->loop.epfd >= 0)
		open_input(app);
	wake(app);
	arm_idle(app);
	return 0;
}

/* SIGHUP or "reload": reads the config file again and applies only what changed. 0 with the
 * changes in msg, or -errno with msg saying why the running configuration stays. */
static int app_reload(struct app *app, char *msg, size_t len)
{
	struct config cfg = app->cfg;
	struct reload_file_id splash_id;
	char err[512] = "", what[128];
	unsigned changes = 0;
	int ret;

	notify_reloading();
	ret = config_load(&cfg, app->opt.config_path, err, sizeof(err), warn_config, NULL);
	if (ret == -ENOENT && app->opt.config_given)
		snprintf(err, sizeof(err), "%s: %s", app->opt.config_path, strerror(ENOENT));
	else if (ret == -ENOENT)
		ret = 0;
	if (ret == 0) {
		reload_file_id(cfg.splash.image, &splash_id);
		changes = reload_changes(&app->cfg, &cfg, &app->splash_id, &splash_id);
		ret = apply_config(app, &cfg, changes, err, sizeof(err));
	}
	if (ret < 0) {
		log_error("reload refused, the running configuration stays: %s", err);
		notify_sendf("READY=1\nSTATUS=reload refused: %s", err);
		snprintf(msg, len, "%s", err);
		return ret;
	}
	app->splash_id = splash_id;
	reload_describe(changes, what, sizeof(what));
	log_info("reloaded %s: changed %s", app->opt.config_path, what);
	notify_sendf("READY=1\nSTATUS=running; last reload changed %s", what);
	snprintf(msg, len, "%s", what);
	return 0;
}

static void status_line(const struct app *app, char *reply, size_t len)
{
	snprintf(reply, len, "ok fps=%.1f target=%d moving=%s contacts=%d devices=%d config=%s "
		 "size=%dx%d paused=%s rain=%s blanked=%s", app->timer_armed ? app->fps : 0.0,
		 app->cfg.display.fps, app->timer_armed ? "yes" : "no", app->input_contacts,
		 app->input_devices,
		 app->opt.config_path, app->render.width, app->render.height,
		 app->paused ? "yes" : "no", app->rain.rate > 0 ? "on" : "off",
		 app->idle.blanked ? "yes" : "no");
}

static int write_screenshot(struct app *app, const char *path);

static void on_command(void *ctx, const struct control_command *cmd, char *reply, size_t len)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;
	char msg[400];

	switch (cmd->type) {
	case CONTROL_DROP:
		app_activity(app);
		water_drop(&app->water, cmd->x, cmd->y, cmd->size ? cmd->size : cfg->stone.size,
			   cmd->weight ? cmd->weight : cfg->stone.weight);
		break;
	case CONTROL_TRAIL:
		app_activity(app);
		water_trail(&app->water, cmd->x, cmd->y, cmd->x2, cmd->y2, cfg->stone.size,
			    cfg->stone.weight, cfg->stone.size);
		break;
	case CONTROL_RAIN:
		app->rain_on = cmd->on;
		app->idle.raining = app->idle.raining && cmd->on;
		break;
	case CONTROL_PAUSE:
	case CONTROL_RESUME:
		app->paused = cmd->type == CONTROL_PAUSE;
		break;
	case CONTROL_SCREENSHOT:
		if (write_screenshot(app, cmd->path) < 0) {
			snprintf(reply, len, "error: cannot write %s", cmd->path);
			return;
		}
		break;
	case CONTROL_RELOAD:
		snprintf(reply, len, app_reload(app, msg, sizeof(msg)) < 0 ? "error: %s"
									   : "ok changed %s", msg);
		return;
	case CONTROL_STATUS:
		status_line(app, reply, len);
		return;
	}
	wake(app);
	snprintf(reply, len, "ok");
}

/* The parts of the loop that make it a service: idle timer, watchdog, control socket. */
static int open_service(struct app *app)
{
	const struct config *cfg = &app->cfg;
	uint64_t half = notify_watchdog_usec() / 2;
	struct itimerspec its = { 0 };
	int ret;

	its.it_interval = (struct timespec){ (time_t)(half / 1000000), (long)(half % 1000000) * 1000 };
	its.it_value = its.it_interval;
	app->rain_on = cfg->rain.enabled;
	reload_file_id(cfg->splash.image, &app->splash_id);
	idle_init(&app->idle, cfg->rain.idle_after, cfg->screensaver.blank_after, now_ms());
	app->idle_timer = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							       TFD_NONBLOCK | TFD_CLOEXEC),
						on_idle, app };
	if (app->idle_timer.fd < 0)
		return -errno;
	ret = loop_add(&app->loop, &app->idle_timer);
	if (ret == 0 && half) {
		app->watchdog = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
								     TFD_NONBLOCK | TFD_CLOEXEC),
						      on_watchdog, app };
		if (app->watchdog.fd < 0 || timerfd_settime(app->watchdog.fd, 0, &its, NULL) < 0)
			return -errno;
		ret = loop_add(&app->loop, &app->watchdog);
		log_debug("watchdog: WATCHDOG=1 every %llu ms", (unsigned long long)half / 1000);
	}
	if (ret < 0)
		return ret;
	arm_idle(app);
	if (cfg->control.socket[0] && (ret = control_listen(&app->control, cfg->control.socket)) < 0)
		log_warn("control socket %s: %s; running without it", cfg->control.socket,
			 strerror(-ret));
	return 0;
}

static void close_service(struct app *app)
{
	control_close(&app->control);
	if (app->idle.blanked)
		fb_blank(&app->fb, false);
	if (app->idle_timer.fd >= 0)
		close(app->idle_timer.fd);
	if (app->watchdog.fd >= 0)
		close(app->watchdog.fd);
}

/* --send: one command to the running daemon; 0 for an "ok" reply, 1 otherwise. */
static int send_command(const struct app *app)
{
	const char *path = app->cfg.control.socket;
	char reply[CONTROL_REPLY_MAX];
	int ret = path[0] ? control_send(path, app->opt.send, reply, sizeof(reply), 10000)
			  : -ENOENT;

	if (ret < 0) {
		fprintf(stderr, "fbripple: control socket %s: %s\n", path[0] ? path : "(none)",
			strerror(-ret));
		return 1;
	}
	puts(reply);
	return strncmp(reply, "ok", 2) == 0 && (reply[2] == '\0' || reply[2] == ' ') ? 0 : 1;
}

static void on_tick(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations = 0;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	advance(app, expirations > MAX_CATCH_UP_STEPS ? MAX_CATCH_UP_STEPS : (int)expirations);
	count_frame(app);
	if (!should_run(app))
		arm_timer(app, false);
}

/* The user switches VTs: let go of the screen, or take it back and redraw it whole. */
static void on_vt_switch(struct app *app, bool back)
{
	if (!back) {
		app->vt_away = true;
		arm_timer(app, false);
		vt_ack_release(&app->vt);
		log_debug("VT %d released", app->vt.num);
		return;
	}
	vt_ack_acquire(&app->vt);
	app->vt_away = false;
	log_debug("VT %d acquired", app->vt.num);
	draw(app, true);
	arm_timer(app, !idle(app));
}

static void on_signal(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(src->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2) {
			on_vt_switch(app, si.ssi_signo == SIGUSR2);
			continue;
		}
		if (si.ssi_signo == SIGHUP) {
			char msg[512];

			app_reload(app, msg, sizeof(msg));
			continue;
		}
		log_info("%s, exiting", strsignal(si.ssi_signo));
		app->quit = true;
	}
}

static int open_loop(struct app *app)
{
	sigset_t mask;
	int ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	app->signals = (struct loop_source){ signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC),
					     on_signal, app };
	app->ticks = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							  TFD_NONBLOCK | TFD_CLOEXEC),
					   on_tick, app };
	if (app->signals.fd < 0 || app->ticks.fd < 0)
		return -errno;
	ret = loop_init(&app->loop);
	if (ret == 0)
		ret = loop_add(&app->loop, &app->signals);
	if (ret == 0)
		ret = loop_add(&app->loop, &app->ticks);
	return ret;
}

static int run_loop(struct app *app)
{
	int ret = open_loop(app);

	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	ret = open_service(app);
	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	open_input(app);
	redraw(app);
	notify_sendf("READY=1\nSTATUS=showing %dx%d on %s", app->fb.width, app->fb.height,
		     app->fb.path);
	wake(app);
	while (!app->quit) {
		ret = loop_dispatch(&app->loop, -1);
		if (ret < 0) {
			log_error("event loop: %s", strerror(-ret));
			break;
		}
	}
	notify_send("STOPPING=1");
	return ret;
}

/* --list-devices: the display's part, then every input device. */
static int list_devices(struct app *app)
{
	const char *devices[CONFIG_LIST_MAX];
	struct input_opts o;
	int ret = list_display(app);

	input_options(app, &o, devices);
	if (input_list_devices(stdout, &o) < 0)
		ret = -1;
	return ret < 0 ? 1 : 0;
}

static int write_screenshot(struct app *app, const char *path)
{
	struct image img;
	int ret;

	fb_flush(&app->fb);
	ret = fb_read_image(&app->fb, &img);
	if (ret == 0) {
		ret = image_write_png(&img, path);
		image_free(&img);
	}
	if (ret < 0)
		log_error("screenshot %s: %s", path, strerror(-ret));
	return ret;
}

static void cleanup(struct app *app)
{
	input_close(app->input);
	close_service(app);
	render_free(&app->render);
	water_free(&app->water);
	release_display(app);
	loop_free(&app->loop);
	if (app->ticks.fd >= 0)
		close(app->ticks.fd);
	if (app->signals.fd >= 0)
		close(app->signals.fd);
}

int main(int argc, char **argv)
{
	struct app app = { .loop.epfd = -1, .signals.fd = -1, .ticks.fd = -1,
			   .watchdog.fd = -1, .idle_timer.fd = -1 };
	int ret;

	log_init(LOG_LEVEL_INFO);
	control_init(&app.control, &app.loop, on_command, &app);
	ret = parse_args(&app.opt, argc, argv);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	config_defaults(&app.cfg);
	/* --send still reaches the daemon, at the default socket, when the file is broken */
	if (load_config(&app) < 0 && !app.opt.send)
		return 1;
	if (app.opt.send)
		return send_command(&app);
	if (app.opt.list_devices)
		return list_devices(&app);
	if (app.opt.check_config) {
		printf("%s: configuration OK\n", app.opt.config_path);
		return 0;
	}
	log_set_level(app.opt.verbose ? LOG_LEVEL_DEBUG : app.cfg.log.level);

	app.fb.fd = -1;
	app.vt.fd = -1;
	if (!app.opt.fbdev_file)
		open_console(&app);
	if (open_display(&app) < 0 || setup_scene(&app) < 0) {
		cleanup(&app);
		return 1;
	}
	log_info("%s: %dx%d %s, stride %zu", app.fb.path, app.fb.width, app.fb.height,
		 app.fb.fmt.name, app.fb.stride);
	if (app.opt.frames >= 0)
		run_frames(&app);
	else
		ret = run_loop(&app);
	if (app.opt.screenshot && write_screenshot(&app, app.opt.screenshot) < 0)
		ret = -1;
	fb_flush(&app.fb);
	cleanup(&app);
	return ret < 0 ? 1 : 0;
}
