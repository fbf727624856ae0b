/* fuzz_control.c - libFuzzer target: any bytes as what one client sends down the control socket
 * of a headless daemon (a 64x48 file display, workers, the real socket, commands and loop). The
 * first byte picks the daemon: even, screensaver.mode "always"; odd, "idle" beside an
 * application, with "show" and "hide" and the application's frame under the water.
 *
 * Every line must be answered, in order, and a screenshot must write only files it made: a
 * screenshot's path is moved into a sandbox (its ".." made "__"), whose fixtures are a file and
 * links to a directory outside it; none may change, and no temporary file may stay behind. */
#include "fuzz.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include "daemon/app.h"

#define FUZZ_SEND_MAX 8192	/* bytes of one input sent; more only repeats what it tests */
#define FUZZ_WAIT_MS 20000	/* a client whose lines are not all answered by then: a hang */
#define VICTIM "not fbripple's"

struct daemon {
	struct app app;
	char sock_path[128], conf_path[128], fb_path[128];
};

static struct daemon daemons[2];
static char sandbox[64], outside[80];

static void on_tick(struct loop_source *src, uint32_t events)
{
	struct app *a = src->ctx;
	int steps = pace_take_steps(&a->pace);

	(void)events;
	if (steps || screen_wants_frame(&a->screen)) {
		screen_step(&a->screen, steps, 1.0 / a->cfg.water.steps_per_second);
		screen_draw(&a->screen, false);
	}
	pace_frame_done(&a->pace);
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

/* The sandbox: where screenshots go, a file that is not the daemon's, and links out of it. */
static void make_sandbox(void)
{
	char path[160];

	snprintf(sandbox, sizeof(sandbox), "/dev/shm/fbripple-fuzz-XXXXXX");
	if (!mkdtemp(sandbox))
		abort();
	snprintf(outside, sizeof(outside), "%s-outside", sandbox);
	if (mkdir(outside, 0700) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/victim.png", sandbox);
	put_file(path, VICTIM);
	snprintf(path, sizeof(path), "%s/dir", sandbox);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/link", sandbox);
	if (symlink(outside, path) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/link.png", sandbox);
	if (symlink(outside, path) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/dangling.png", sandbox);
	if (symlink("/dev/shm/fbripple-fuzz-nothing/shot.png", path) < 0)
		abort();
}

/* The files of daemon i, and its configuration. */
static void daemon_files(struct daemon *d, int i)
{
	char text[512];

	snprintf(d->sock_path, sizeof(d->sock_path), "%s/control%d", sandbox, i);
	snprintf(d->conf_path, sizeof(d->conf_path), "%s/fbripple%d.conf", sandbox, i);
	snprintf(d->fb_path, sizeof(d->fb_path), "%s/fb%d", sandbox, i);
	snprintf(text, sizeof(text), "control = { socket = \"%s\"; };\nlog = { level = \"error\"; };\n"
		 "display = { threads = 1; };\n%s", d->sock_path, i == 0 ? "" :
		 "screensaver = { mode = \"idle\"; after = 604800; wake = \"command\"; "
		 "fade = 0.1; };\nsplash = { image = \"@screen\"; };\n");
	put_file(d->conf_path, text);
}

static void remove_sandbox(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", sandbox, outside);
	if (system(cmd) != 0)
		return;
}

static void no_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* The console's crash handler, which the daemon sets up as it opens the screen, would hide a
 * crash from libFuzzer: libFuzzer's handlers stay. */
static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT, SIGQUIT };
static struct sigaction fuzzer_handlers[sizeof(fatal) / sizeof(fatal[0])];

static void handlers_restore(void)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &fuzzer_handlers[i], NULL);
}

/* Daemon i as main.c starts it with --fbdev, and the loop it runs. */
static void daemon_start(struct daemon *d, int i)
{
	struct app *app = &d->app;
	struct display_request req;
	struct pace_settings set;
	char err[256];
	bool idle;

	*app = (struct app){ .loop.epfd = -1, .signals.fd = -1, .retake.fd = -1,
			     .status.timer.fd = -1 };
	screen_init(&app->screen);
	pace_init(&app->pace, &app->screen);
	budget_init(&app->work, &app->loop, APP_STONE_WORK);
	touch_init(&app->touch, &app->pace, &app->screen, &app->cfg, &app->work);
	service_init(&app->service, app);
	daemon_files(d, i);
	app->opt = (struct options){ .config_path = d->conf_path, .config_given = true,
				     .fbdev_file = d->fb_path, .width = 64, .height = 48,
				     .format = "XRGB8888", .frames = -1 };
	config_defaults(&app->cfg);
	if (config_load(&app->cfg, d->conf_path, err, sizeof(err), no_warning, NULL) < 0)
		abort();
	idle = app->cfg.screensaver.mode == SAVER_IDLE;
	req = (struct display_request){ .device = d->fb_path, .file = true, .width = 64,
					.height = 48, .stride = 64 * 4, .hidden = idle,
					.await_master = idle, .keep_depth = idle,
					.buffering = app->cfg.display.double_buffer };
	if (pixfmt_by_name(&req.fmt, "XRGB8888") < 0)
		abort();
	set = pace_settings(&app->cfg);
	if (screen_open(&app->screen, &req) < 0 || screen_setup(&app->screen, &app->cfg) < 0)
		abort();
	pace_start(&app->pace, &set);
	if (loop_init(&app->loop) < 0 || pace_open(&app->pace, &app->loop, on_tick, app) < 0)
		abort();
	screen_attach(&app->screen, &app->loop);
	if (service_open(app) < 0 || app->service.control.listen.fd < 0)
		abort();
	if (idle)
		screen_stand_by(&app->screen);
	else
		screen_redraw(&app->screen);
}

static void daemons_start(void)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], NULL, &fuzzer_handlers[i]);
	log_init(LOG_LEVEL_ERROR);
	make_sandbox();
	atexit(remove_sandbox);
	for (int i = 0; i < 2; i++)
		daemon_start(&daemons[i], i);
	handlers_restore();
}

/* line (len bytes) into out as sent: a screenshot's path moved into the sandbox, its ".." made
 * "__"; every other line as it is. The bytes written, or 0 when they do not fit. */
static size_t sandbox_line(const char *line, size_t len, char *out, size_t room)
{
	size_t skip = 0, n = 0, plen = strlen(sandbox) + 1;	/* and a '/' */
	const char *slash;

	while (skip < len && (line[skip] == ' ' || line[skip] == '\t'))
		skip++;
	if ( len - skip < 12 || memcmp(line + skip, "screenshot", 10) != 0 ||
	    (line[skip + 10] != ' ' && line[skip + 10] != '\t') ||
	    !(slash = memchr(line + skip, '/', len - skip))) {
		if (len > room)
			return 0;
		memcpy(out, line, len);
		return len;
	}
	if (len + plen > room)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (line + i == slash) {
			memcpy(out + n, sandbox, plen - 1);
			out[n + plen - 1] = '/';
			n += plen;
		}
		out[n++] = line[i] == '.' && ((i + 1 < len && line[i + 1] == '.') ||
					      (i > 0 && line[i - 1] == '.')) ? '_' : line[i];
	}
	return n;
}

static size_t sandboxed(const uint8_t *data, size_t size, char *out, size_t room)
{
	size_t n = 0;

	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) + 1 : size - at;
		size_t w = sandbox_line((const char *)data + at, len, out + n, room - n);

		if (w == 0)
			break;
		n += w;
		at += len;
	}
	return n;
}

/* The replies owed: one for each line, the last one too when it has no newline. */
static int lines_in(const char *buf, size_t n)
{
	int lines = 0;
	size_t start = 0;

	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n') {
			lines++;
			start = i + 1;
		}
	return lines + (start < n);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends buf, then the end, running the loop meanwhile; the reply lines (not event lines). */
static int converse(struct daemon *d, const char *buf, size_t n)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int64_t end = now_ms() + FUZZ_WAIT_MS;
	size_t sent = 0;
	int replies = 0;
	bool at_line_start = true, event = false, eof = false;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", d->sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		abort();
	if (n == 0)
		shutdown(fd, SHUT_WR);
	while (!eof) {
		char in[1024];
		ssize_t got;
		bool busy = false;

		if (sent < n) {
			ssize_t w = send(fd, buf + sent, n - sent, MSG_NOSIGNAL);

			if (w > 0) {
				sent += (size_t)w;
				busy = true;
				if (sent == n)
					shutdown(fd, SHUT_WR);
			}
		}
		loop_dispatch(&d->app.loop, busy ? 0 : 2);
		while ((got = recv(fd, in, sizeof(in), 0)) > 0) {
			for (ssize_t i = 0; i < got; i++) {
				if (at_line_start)
					event = in[i] == 'e' && got - i >= 6 &&
						memcmp(in + i, "event ", 6) == 0;
				at_line_start = in[i] == '\n';
				replies += at_line_start && !event;
			}
		}
		eof = got == 0;
		if (now_ms() > end)
			__builtin_trap();	/* a client never answered */
	}
	close(fd);
	return replies;
}

static bool exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* shot.c's temporary name: ".NAME.PID.N.tmp". */
static bool is_temp(const char *name)
{
	char tail[32];
	size_t len = strlen(name), n;
	const char *p;

	snprintf(tail, sizeof(tail), ".%d.", (int)getpid());
	n = strlen(tail);
	if (name[0] != '.' || len < n + 5 || strcmp(name + len - 4, ".tmp") != 0)
		return false;
	for (p = name + len - 5; p > name && *p >= '0' && *p <= '9'; p--)
		;
	return p - name >= (ptrdiff_t)n - 1 && memcmp(p - n + 1, tail, n) == 0;
}

/* Checks that no screenshot wrote what it did not make, and takes away what it made. */
static void check_sandbox(void)
{
	static const char *const fixtures[] = { "control0", "fbripple0.conf", "fb0", "control1",
						"fbripple1.conf", "fb1", "victim.png", "dir",
						"link", "link.png", "dangling.png" };
	char path[512], text[64] = "";
	DIR *d = opendir(outside);
	struct dirent *e;
	int fd;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			__builtin_trap();	/* written through a link */
	closedir(d);
	snprintf(path, sizeof(path), "%s/victim.png", sandbox);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, text, sizeof(text) - 1) < 0 || strcmp(text, VICTIM) != 0)
		__builtin_trap();	/* a file that was there changed */
	close(fd);
	if (!exists(sandbox, "link") || !exists(sandbox, "link.png") ||
	    !exists(sandbox, "dangling.png") || exists("/dev/shm", "fbripple-fuzz-nothing"))
		__builtin_trap();
	for (int pass = 0; pass < 2; pass++) {
		const char *dir = pass ? path : sandbox;

		if (pass)
			snprintf(path, sizeof(path), "%s/dir", sandbox);
		d = opendir(dir);
		if (!d)
			abort();
		while ((e = readdir(d))) {
			bool fixture = false;
			char file[600];

			for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]) && !pass; i++)
				fixture = fixture || strcmp(e->d_name, fixtures[i]) == 0;
			if (is_temp(e->d_name))
				__builtin_trap();	/* a temporary file left behind */
			if (fixture || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
			unlink(file);
		}
		closedir(d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[FUZZ_SEND_MAX + 512];
	static bool started;
	struct daemon *d;
	size_t n;
	int want;

	if (size < 1)
		return 0;
	if (!started)
		daemons_start();
	started = true;
	d = &daemons[data[0] & 1];
	size--;
	n = sandboxed(data + 1, size < FUZZ_SEND_MAX ? size : FUZZ_SEND_MAX, buf, sizeof(buf));
	want = lines_in(buf, n);
	handlers_restore();
	if (converse(d, buf, n) != want)
		__builtin_trap();	/* a line unanswered, or answered twice */
	check_sandbox();
	/* the next input starts from the same daemon: calm, not paused, no rain */
	pace_pause(&d->app.pace, false);
	pace_set_rain(&d->app.pace, false);
	water_clear(&d->app.screen.water);
	return 0;
}
