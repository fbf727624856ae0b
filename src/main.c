/* main.c - the command line, and starting and stopping the daemon. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/control.h"
#include "util/cpu.h"

#ifndef FBRIPPLE_VERSION
#define FBRIPPLE_VERSION "unknown"
#endif
#ifndef FBRIPPLE_SYSCONFDIR
#define FBRIPPLE_SYSCONFDIR "/etc"
#endif

#define DEFAULT_CONFIG FBRIPPLE_SYSCONFDIR "/fbripple.conf"

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
	"      --drop X,Y        drop a stone at X,Y before the first frame (up to 64 times)\n"
	"      --list-devices    describe the framebuffer and every input device, then exit\n"
	"      --send CMD        send CMD to the running daemon's control socket (control.socket\n"
	"                        in the config), print the reply, exit 0 for ok, 1 for an error;\n"
	"                        waits up to 10 s for the reply, 90 s for reload; a reload the\n"
	"                        socket does not answer goes to $MAINPID as SIGHUP (systemd)\n"
	"  -h, --help            this text\n"
	"  -V, --version         the version\n"
	"\n"
	"FBRIPPLE_SIMD=scalar|sse2|sse41|avx2|neon in the environment forces the kernels'\n"
	"vector path (default: the best this CPU has). FBRIPPLE_DRAW=live draws every pixel of\n"
	"moving water in every frame, not only those that change (to compare; the same frames).\n";

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

/* One integer of a pair, in [min, max] as strtol read it: checked before it is narrowed to
 * an int (sscanf's %d wraps past 32 bits). */
static int parse_int(const char *s, char **end, long min, long max, int *out)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (errno || *end == s || v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "A<sep>B", both in [min, max], spaces allowed around sep. */
static int parse_pair(const char *s, char sep, long min, long max, int *a, int *b)
{
	char *end;

	if (parse_int(s, &end, min, max, a) < 0)
		return -EINVAL;
	end += strspn(end, " ");
	if (*end++ != sep)
		return -EINVAL;
	if (parse_int(end, &end, min, max, b) < 0 || *end)
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
		return parse_pair(arg, 'x', 1, 16384, &o->width, &o->height);
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
		if (o->ndrops == APP_MAX_DROPS)
			return -E2BIG;
		if (parse_pair(arg, ',', -65535, 65535, &o->drops[o->ndrops][0],
			       &o->drops[o->ndrops][1]) < 0)
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
		int ret = parse_option(o, c, optarg);

		if (ret == -E2BIG) {
			fprintf(stderr, "fbripple: more than %d --%s options\n", APP_MAX_DROPS,
				option_name(c));
			return -1;
		}
		if (ret < 0) {
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

static int load_config(struct app *app)
{
	char err[512] = "";
	int ret = config_load(&app->cfg, app->opt.config_path, err, sizeof(err), app_warn_config, NULL);

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

/* A process's name (its comm, the program's file name as started) into name; 0 or -1. */
static int process_name(const char *pid, char *name, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "re");
	ok = f && fgets(name, (int)len, f);
	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/* Whether process pid is one of this program: of the same name (not its file: an upgrade
 * replaces that, and under qemu-user /proc/self/exe is the guest's but another's the
 * emulator's). */
static bool same_program(long pid)
{
	char other[32], self[32], id[24];

	snprintf(id, sizeof(id), "%ld", pid);
	return process_name(id, other, sizeof(other)) == 0 &&
	       process_name("self", self, sizeof(self)) == 0 && strcmp(other, self) == 0;
}

/* A reload whose file moves or removes the control socket cannot be asked over it; under
 * systemd, ExecReload= knows the daemon's PID ($MAINPID), and SIGHUP applies the file the same
 * way, unanswered. Only to a process of this program: $MAINPID is any unit's main process, or
 * anything a shell exported. 0 when sent. */
static int reload_by_signal(const char *socket_error)
{
	const char *env = getenv("MAINPID");
	char *end = NULL;
	long pid = env ? strtol(env, &end, 10) : 0;

	if (pid <= 1 || pid > INT_MAX || *end || !same_program(pid) ||
	    kill((pid_t)pid, SIGHUP) < 0)
		return -1;
	fprintf(stderr, "fbripple: control socket %s; sent SIGHUP to the daemon (PID %ld)\n",
		socket_error, pid);
	return 0;
}

/* --send: one command to the running daemon; 0 for an "ok" reply, 1 otherwise. */
static int send_command(const struct app *app)
{
	const char *path = app->cfg.control.socket;
	char reply[CONTROL_REPLY_MAX];
	/* a reload answers once the new file is applied, which a large picture on a slow board
	 * may draw out; under systemd, ExecReload= is bounded by TimeoutStartSec= (90 s) too */
	int wait_ms = strcmp(app->opt.send, "reload") == 0 ? 90000 : 10000;
	int ret = path[0] ? control_send(path, app->opt.send, reply, sizeof(reply), wait_ms)
			  : -ENOENT;

	if (ret < 0) {
		char why[PATH_MAX + 64];

		struct stat st;

		if (ret == -ECONNREFUSED && lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
			snprintf(why, sizeof(why), "%s exists and is not a socket", path);
		else
			snprintf(why, sizeof(why), "%s: %s", path[0] ? path : "(none)",
				 strerror(-ret));
		if ((ret == -ENOENT || ret == -ECONNREFUSED) && strcmp(app->opt.send, "reload") == 0 &&
		    reload_by_signal(why) == 0)
			return 0;
		fprintf(stderr, "fbripple: control socket %s\n", why);
		return 1;
	}
	puts(reply);
	return strncmp(reply, "ok", 2) == 0 && (reply[2] == '\0' || reply[2] == ' ') ? 0 : 1;
}

/* The kernels' vector path; a FBRIPPLE_SIMD that names none this CPU runs is said once. */
static void log_simd(void)
{
	enum cpu_simd simd;

	if (cpu_simd_choose(&simd) < 0)
		log_warn("FBRIPPLE_SIMD=%s: not a path this CPU runs "
			 "(scalar, sse2, sse41, avx2, neon); using %s", getenv("FBRIPPLE_SIMD"),
			 cpu_simd_name(simd));
	else
		log_debug("kernels: %s", cpu_simd_name(simd));
}

/* What to open: display.device, or the headless file the options describe. */
static int display_request(const struct app *app, struct display_request *req)
{
	const struct options *o = &app->opt;

	*req = (struct display_request){ .device = app->cfg.display.device,
					 .buffering = app->cfg.display.double_buffer,
					 .output = app->cfg.display.output,
					 .mode = app->cfg.display.mode,
					 .hidden = app->cfg.screensaver.mode == SAVER_IDLE,
					 .await_master = app->cfg.screensaver.mode == SAVER_IDLE,
					 .keep_depth = app->cfg.screensaver.mode == SAVER_IDLE &&
						       app->cfg.display.vt == 0 };
	if (!o->fbdev_file)
		return 0;
	if (pixfmt_by_name(&req->fmt, o->format) < 0) {
		log_error("unknown pixel format '%s'", o->format);
		return -EINVAL;
	}
	req->device = o->fbdev_file;
	req->file = true;
	req->width = o->width;
	req->height = o->height;
	req->stride = o->stride ? o->stride : (size_t)o->width * req->fmt.bytes;
	return 0;
}

/* --list-devices: the display, then every input device. */
static int list_devices(struct app *app)
{
	const char *devices[CONFIG_LIST_MAX];
	struct display_request req;
	struct display d;
	struct input_opts o;
	char err[256];
	int ret = display_request(app, &req);

	/* a look, while fbripple or an application may be drawing: no mode set, nothing panned */
	req.hidden = req.keep_depth = true;
	if (ret < 0)
		return 1;
	ret = display_open(&d, &req, err, sizeof(err));
	if (ret < 0) {
		/* the input devices are worth a look all the same, mapped to no screen */
		log_error("%s: %s", d.path, err);
		d.mode = (struct display_mode){ 0 };
	} else {
		if (d.note[0])	/* why this is not the device asked for */
			printf("%s\n", d.note);
		display_describe(&d, stdout);
	}
	touch_options(&app->cfg, &app->opt, &d.mode, &o, devices);
	if (ret == 0)
		display_close(&d, false);
	return input_list_devices(stdout, &o) < 0 || ret < 0 ? 1 : 0;
}

/* The display and the scene on it, the first stones dropped. */
static int open_screen(struct app *app)
{
	struct display_request req;
	struct pace_settings set = pace_settings(&app->cfg);
	int ret = display_request(app, &req);

	if (ret == 0)
		ret = screen_open(&app->screen, &req);
	if (ret == 0)
		ret = screen_setup(&app->screen, &app->cfg);
	if (ret < 0)
		return ret;
	pace_start(&app->pace, &set);
	for (int i = 0; i < app->opt.ndrops; i++)
		screen_drop(&app->screen, app->opt.drops[i][0], app->opt.drops[i][1],
			    app->cfg.stone.size, app->cfg.stone.weight);
	return 0;
}

int main(int argc, char **argv)
{
	struct app app = { .loop.epfd = -1, .signals.fd = -1, .retake.fd = -1,
			   .status.timer.fd = -1 };
	const struct display *d = &app.screen.display;
	int ret;

	log_init(LOG_LEVEL_INFO);
	screen_init(&app.screen);
	pace_init(&app.pace, &app.screen);
	budget_init(&app.work, &app.loop, APP_STONE_WORK);
	touch_init(&app.touch, &app.pace, &app.screen, &app.cfg, &app.work);
	service_init(&app.service, &app);
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
	log_simd();

	/* a second fbripple would take the running one's VT and give it back at its exit: it
	 * stops before it touches the console or the display */
	if (app.opt.frames < 0 && app.cfg.control.socket[0] &&
	    control_in_use(app.cfg.control.socket)) {
		log_error("another fbripple is running on %s", app.cfg.control.socket);
		return 1;
	}
	/* a log line to a reader that went away must not kill us with the console taken */
	signal(SIGPIPE, SIG_IGN);
	/* from the moment the VT is ours a switch, Ctrl-C or a stop must reach our handlers, not
	 * the default actions that would leave the console in graphics mode */
	if (!app.opt.fbdev_file && daemon_block_signals() == 0 &&
	    app.cfg.screensaver.mode == SAVER_ALWAYS)	/* idle mode: only while shown */
		screen_open_console(&app.screen, app.cfg.display.vt);
	if (open_screen(&app) < 0) {
		daemon_close(&app);
		return 1;
	}
	log_info("%s: %s %dx%d %s, stride %zu", d->path, d->ops->name, d->mode.width,
		 d->mode.height, d->mode.fmt.name, d->mode.stride);
	if (app.opt.frames >= 0)
		daemon_run_frames(&app);
	else
		ret = daemon_run(&app);
	if (app.opt.screenshot && screen_write_png(&app.screen, app.opt.screenshot) < 0)
		ret = -1;
	display_flush(&app.screen.display);
	daemon_close(&app);
	return ret < 0 ? 1 : 0;
}
