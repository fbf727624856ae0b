/* test_control.c - control command parsing (with a fuzz loop), the idle timers, reload diffs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "config/config.h"
#include "daemon/control.h"
#include "daemon/idle.h"
#include "daemon/saver.h"
#include "config/reload.h"
#include "image/shot.h"
#include "testutil.h"

enum { FUZZ_LINES = 200000 };
enum { WORK = 100000 };	/* the stone work of a wake-up, as the daemon has it */

static int parse(const char *line, struct control_command *cmd, char *err)
{
	return control_parse(line, strlen(line), cmd, err, 160);
}

static void test_parse_commands(void **state)
{
	struct control_command c;
	char err[160];

	(void)state;
	assert_int_equal(parse("drop 10 20", &c, err), 0);
	assert_int_equal(c.type, CONTROL_DROP);
	assert_int_equal(c.x, 10);
	assert_int_equal(c.y, 20);
	assert_int_equal(c.size, 0);
	assert_int_equal(parse("  drop\t-5  +7 12 300\r", &c, err), 0);
	assert_int_equal(c.x, -5);
	assert_int_equal(c.y, 7);
	assert_int_equal(c.size, 12);
	assert_int_equal(c.weight, 300);
	assert_int_equal(parse("trail 1 2 3 4", &c, err), 0);
	assert_int_equal(c.type, CONTROL_TRAIL);
	assert_int_equal(c.x2 * 10 + c.y2, 34);
	assert_int_equal(parse("rain on", &c, err), 0);
	assert_true(c.type == CONTROL_RAIN && c.on);
	assert_int_equal(parse("rain off", &c, err), 0);
	assert_false(c.on);
	assert_int_equal(parse("screenshot /tmp/a b.png", &c, err), -EINVAL);
	assert_int_equal(parse("screenshot /tmp/shot.png", &c, err), 0);
	assert_string_equal(c.path, "/tmp/shot.png");
	assert_int_equal(parse("pause", &c, err), 0);
	assert_int_equal(c.type, CONTROL_PAUSE);
	assert_int_equal(parse("resume", &c, err), 0);
	assert_int_equal(c.type, CONTROL_RESUME);
	assert_int_equal(parse("reload", &c, err), 0);
	assert_int_equal(c.type, CONTROL_RELOAD);
	assert_int_equal(parse("status", &c, err), 0);
	assert_int_equal(c.type, CONTROL_STATUS);
}

static void check_error(const char *line, size_t len, const char *want)
{
	struct control_command c;
	char err[160] = "";

	if (control_parse(line, len, &c, err, sizeof(err)) != -EINVAL)
		fail_msg("\"%s\" was accepted", line);
	if (!strstr(err, want))
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", line, err, want);
}

static void test_parse_errors(void **state)
{
	char big[CONTROL_LINE_MAX + 10];

	(void)state;
	check_error("", 0, "empty");
	check_error("   ", 3, "empty");
	check_error("jump 1 2", 8, "unknown command");
	check_error("dropp 1 2", 9, "unknown command");
	check_error("drop 1", 6, "usage: drop");
	check_error("drop 1 2 3", 10, "usage: drop");
	check_error("drop x 2", 8, "coordinates");
	check_error("drop 1 2x", 9, "coordinates");
	check_error("drop 99999999999999 2", 21, "coordinates");
	check_error("drop 70000 2", 12, "coordinates");
	check_error("drop - 2", 8, "coordinates");
	check_error("drop 1 2 0 10", 13, "SIZE");
	check_error("drop 1 2 5 5000", 15, "WEIGHT");
	check_error("trail 1 2 3", 11, "usage: trail");
	check_error("rain", 4, "usage: rain");
	check_error("rain maybe", 10, "usage: rain");
	check_error("pause now", 9, "no arguments");
	check_error("status 1 2 3 4 5 6 7", 20, "too many");
	check_error("screenshot relative.png", 23, "ABSOLUTE");
	check_error("screenshot", 10, "usage: screenshot");
	check_error("drop 1\0 2", 9, "not a text line");
	check_error("st\x01tus", 6, "not a text line");
	check_error("status\xff", 7, "not a text line");
	check_error("st\ratus", 7, "not a text line");
	memset(big, 'a', sizeof(big));
	check_error(big, sizeof(big), "too long");
}

/* Random bytes and mutated commands: the parser must answer every one without reading past it
 * (ASan and valgrind watch that) and accept only what it can describe. */
static void test_parse_fuzz(void **state)
{
	static const char *const seeds[] = { "drop 100 200", "drop 1 2 3 4", "trail 1 2 3 4",
					     "rain on", "screenshot /tmp/x.png", "status" };
	uint64_t rng = 0x9e3779b97f4a7c15u;
	int ok = 0;

	(void)state;
	for (int i = 0; i < FUZZ_LINES; i++) {
		struct control_command c;
		char err[160];
		size_t len;
		char *line;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		len = i % 2 ? rng % 600 : strlen(seeds[rng % 6]);
		line = malloc(len + 1);	/* exact size: ASan sees any overread */
		if (i % 2) {
			for (size_t j = 0; j < len; j++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				line[j] = (char)(rng >> 24);
			}
		} else {
			memcpy(line, seeds[rng % 6], len);
			line[(rng >> 8) % len] = (char)(rng >> 16);
		}
		if (control_parse(line, len, &c, err, sizeof(err)) == 0) {
			ok++;
			assert_true(c.type <= CONTROL_STATUS);
		} else {
			assert_true(strlen(err) > 0);
		}
		free(line);
	}
	printf("# %d fuzzed lines, %d of them valid commands\n", FUZZ_LINES, ok);
}

static void test_idle(void **state)
{
	struct idle i;

	(void)state;
	idle_init(&i, 10, 30, 1000);
	assert_int_equal(idle_next(&i), 11000);
	assert_int_equal(idle_check(&i, 10999), 0);
	assert_int_equal(idle_check(&i, 11000), IDLE_RAIN_START);
	assert_true(i.raining);
	assert_int_equal(idle_next(&i), 31000);
	assert_int_equal(idle_check(&i, 20000), 0);
	/* a touch stops the rain and starts counting again */
	assert_int_equal(idle_activity(&i, 20000), IDLE_RAIN_STOP);
	assert_int_equal(idle_next(&i), 30000);
	assert_int_equal(idle_check(&i, 50000), IDLE_RAIN_START | IDLE_BLANK | IDLE_RAIN_STOP);
	assert_true(i.blanked);
	assert_false(i.raining);
	assert_int_equal(idle_next(&i), -1);	/* asleep: nothing more to wake up for */
	assert_int_equal(idle_activity(&i, 60000), IDLE_UNBLANK);
	assert_int_equal(idle_activity(&i, 60001), 0);
	idle_configure(&i, 0, 0);
	assert_int_equal(idle_next(&i), -1);
	assert_int_equal(idle_check(&i, 1000000000), 0);
	/* a reload that turns a delay off ends what it brought; another delay keeps it */
	idle_init(&i, 10, 30, 0);
	assert_int_equal(idle_check(&i, 10000), IDLE_RAIN_START);
	assert_int_equal(idle_configure(&i, 20, 30), 0);
	assert_true(i.raining);
	assert_int_equal(idle_configure(&i, 0, 30), IDLE_RAIN_STOP);
	assert_false(i.raining);
	assert_int_equal(idle_check(&i, 30000), IDLE_BLANK);
	assert_int_equal(idle_configure(&i, 0, 40), 0);
	assert_true(i.blanked);
	assert_int_equal(idle_configure(&i, 0, 0), IDLE_UNBLANK);
	assert_false(i.blanked);
	assert_int_equal(idle_next(&i), -1);

	/* months of uptime: past 2^31 ms (24.8 days), where a 32-bit long wraps */
	const int64_t day = 24LL * 3600 * 1000, t = 100 * day;

	idle_init(&i, 10, 30, t);
	assert_true(idle_next(&i) == t + 10000);
	assert_int_equal(idle_check(&i, t + 9999), 0);
	assert_int_equal(idle_check(&i, t + 30000), IDLE_RAIN_START | IDLE_BLANK | IDLE_RAIN_STOP);
}

/* Idle mode: hidden until after, shown, faded out by the first touch, hidden again. */
static void test_saver_touch(void **state)
{
	struct saver s;

	(void)state;
	saver_init(&s, SAVER_IDLE, SAVER_WAKE_TOUCH, 10, 0.5, 1000);
	assert_int_equal(s.state, SAVER_HIDDEN);
	assert_false(saver_ripples(&s));
	assert_int_equal(saver_next(&s), 11000);
	assert_int_equal(saver_check(&s, 10999), 0);
	/* a touch while hidden only starts the count again */
	assert_int_equal(saver_input(&s, 5000), 0);
	assert_int_equal(saver_next(&s), 15000);
	assert_int_equal(saver_check(&s, 11000), 0);
	assert_int_equal(saver_check(&s, 15000), SAVER_SHOW);
	assert_int_equal(s.state, SAVER_SHOWN);
	assert_true(saver_ripples(&s));
	assert_int_equal(saver_next(&s), -1);	/* shown: nothing to wake up for */
	assert_int_equal(saver_check(&s, 900000), 0);
	/* the first touch fades it: no stone more until hidden, whatever comes */
	assert_int_equal(saver_input(&s, 20000), SAVER_FADE);
	assert_int_equal(s.state, SAVER_FADING);
	assert_false(saver_ripples(&s));
	assert_int_equal(saver_input(&s, 20100), 0);
	assert_int_equal(saver_next(&s), 20500);
	assert_int_equal(saver_check(&s, 20499), 0);
	assert_int_equal(saver_check(&s, 20500), SAVER_HIDE);
	assert_int_equal(s.state, SAVER_HIDDEN);
	assert_int_equal(saver_next(&s), 30500);	/* counting from the hide */
	assert_string_equal(saver_state_name(s.state), "hidden");
}

/* wake = command: touches ripple, only "hide" hides; "show" while fading stays shown. */
static void test_saver_command(void **state)
{
	struct saver s;

	(void)state;
	saver_init(&s, SAVER_IDLE, SAVER_WAKE_COMMAND, 300, 0.25, 0);
	assert_int_equal(saver_next(&s), 300000);
	assert_int_equal(saver_command(&s, false, 10), 0);	/* hide while hidden */
	assert_int_equal(saver_command(&s, true, 100), SAVER_SHOW);
	assert_int_equal(saver_command(&s, true, 101), 0);
	assert_int_equal(saver_input(&s, 200), 0);
	assert_int_equal(s.state, SAVER_SHOWN);
	assert_true(saver_ripples(&s));
	assert_int_equal(saver_command(&s, false, 1000), SAVER_FADE);
	assert_int_equal(saver_next(&s), 1250);
	assert_int_equal(saver_command(&s, true, 1100), SAVER_UNFADE);
	assert_int_equal(s.state, SAVER_SHOWN);
	assert_int_equal(saver_check(&s, 5000), 0);
	assert_string_equal(saver_state_name(s.state), "shown");
	assert_int_equal(saver_command(&s, false, 6000), SAVER_FADE);
	assert_string_equal(saver_state_name(s.state), "fading");
	assert_int_equal(saver_check(&s, 6250), SAVER_HIDE);
	/* showing failed (another holds the display): hidden, tried again after another spell */
	assert_int_equal(saver_check(&s, 306250), SAVER_SHOW);
	saver_failed(&s, 306300);
	assert_int_equal(s.state, SAVER_HIDDEN);
	assert_int_equal(saver_next(&s), 606300);
	/* a fade of 0 hides at the next check */
	saver_configure(&s, SAVER_WAKE_TOUCH, 300, 0);
	assert_int_equal(saver_command(&s, true, 0), SAVER_SHOW);
	assert_int_equal(saver_input(&s, 7000), SAVER_FADE);
	assert_int_equal(saver_check(&s, 7000), SAVER_HIDE);
}

/* Always mode: shown from the start, nothing ever hides it. */
static void test_saver_always(void **state)
{
	struct saver s;

	(void)state;
	saver_init(&s, SAVER_ALWAYS, SAVER_WAKE_TOUCH, 10, 0.5, 0);
	assert_int_equal(s.state, SAVER_SHOWN);
	assert_true(saver_ripples(&s));
	assert_int_equal(saver_next(&s), -1);
	assert_int_equal(saver_input(&s, 100), 0);
	assert_int_equal(saver_command(&s, false, 100), 0);
	assert_int_equal(saver_command(&s, true, 100), 0);
	assert_int_equal(saver_check(&s, 1000000), 0);
	assert_int_equal(s.state, SAVER_SHOWN);
}

static void test_reload_changes(void **state)
{
	struct config a, b;
	struct reload_file_id ia = { 0 }, ib = { 0 };
	char *dir = tu_tmpdir(), what[128];
	const char *png = tu_path(dir, "s.png");

	(void)state;
	config_defaults(&a);
	b = a;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), 0);
	b.stone.size = 9;
	b.water.damping_shift = 7;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_STONE | RELOAD_WATER);
	reload_describe(RELOAD_STONE | RELOAD_WATER, what, sizeof(what));
	assert_string_equal(what, "water stone");
	b = a;
	b.display.fps = 30;
	b.log.level = LOG_LEVEL_DEBUG;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_FPS | RELOAD_LOG);
	b = a;
	snprintf(b.display.device, sizeof(b.display.device), "/dev/fb1");
	b.screensaver.blank_after = 5;
	snprintf(b.control.socket, sizeof(b.control.socket), "/tmp/c");
	assert_int_equal(reload_changes(&a, &b, &ia, &ib),
			 RELOAD_DISPLAY | RELOAD_IDLE | RELOAD_CONTROL);
	b = a;
	b.rain.rate = 3;
	b.splash.background = 0x102030;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_RAIN | RELOAD_SPLASH);
	b = a;
	b.input.trail_spacing = 3;
	b.display.vt = 7;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_INPUT | RELOAD_RESTART);
	reload_describe(RELOAD_INPUT | RELOAD_RESTART, what, sizeof(what));
	assert_string_equal(what, "input display.vt (at restart)");
	/* the display's own keys reconfigure it at once, on the card it holds */
	b = a;
	b.display.double_buffer = DISPLAY_BUFFER_OFF;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_DISPLAY);
	b = a;
	snprintf(b.display.output, sizeof(b.display.output), "HDMI-A-1");
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_DISPLAY);
	b = a;
	snprintf(b.display.mode, sizeof(b.display.mode), "800x600");
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_DISPLAY);
	b = a;
	b.display.threads = 3;
	assert_int_equal(reload_changes(&a, &b, &ia, &ib), RELOAD_THREADS);
	reload_describe(RELOAD_THREADS, what, sizeof(what));
	assert_string_equal(what, "threads");
	/* the same splash path with new contents */
	tu_write(png, "one");
	reload_file_id(png, &ia);
	assert_true(ia.ino != 0);
	reload_file_id(png, &ib);
	assert_int_equal(reload_changes(&a, &a, &ia, &ib), 0);
	tu_write(png, "two!");
	reload_file_id(png, &ib);
	assert_int_equal(reload_changes(&a, &a, &ia, &ib), RELOAD_SPLASH);
	reload_file_id("", &ib);
	assert_int_equal(ib.ino, 0);
	tu_rmtree(dir);
}

static int no_exec(void *ctx, struct control_command *cmd, struct control_ticket ticket,
		   long *work, char *reply, size_t len)
{
	(void)ctx, (void)cmd, (void)ticket, (void)work;
	snprintf(reply, len, "ok");
	return 0;
}

/* Issue 12 item 5: a socket that still accepts connections is another fbripple's: refused, not
 * unlinked; one left behind by a daemon that died is taken over. */
static void test_listen_refuses_a_live_socket(void **state)
{
	char *dir = tu_tmpdir();
	const char *path = tu_path(dir, "control");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct control first, second;
	struct loop loop;
	struct budget work;
	struct stat before, after;
	int fd;

	(void)state;
	assert_int_equal(loop_init(&loop), 0);
	budget_init(&work, &loop, WORK);
	control_init(&first, &loop, &work, no_exec, NULL);
	budget_init(&work, &loop, WORK);
	control_init(&second, &loop, &work, no_exec, NULL);
	assert_int_equal(control_listen(&first, path), 0);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(control_listen(&second, path), -EADDRINUSE);
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_ino == after.st_ino);
	/* the first one still takes connections */
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(fd);
	control_close(&first);

	/* a dead one's socket: bound, never listened to, left in place */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(fd);
	assert_int_equal(control_listen(&second, path), 0);
	control_close(&second);
	loop_free(&loop);
	tu_rmtree(dir);
}

/* Something that is not a socket at the path (a file, a directory, a link, to a live socket
 * or to nothing) is somebody's: refused as such, not taken for a running fbripple, and left as
 * it was, neither removed nor followed. */
static void test_listen_leaves_what_is_not_a_socket(void **state)
{
	char *dir = tu_tmpdir();
	const char *live = tu_path(dir, "live");
	char path[300], target[300];
	struct control running, c;
	struct loop loop;
	struct budget work;
	struct stat before, after;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path(dir, "control"));
	assert_int_equal(loop_init(&loop), 0);
	budget_init(&work, &loop, WORK);
	control_init(&running, &loop, &work, no_exec, NULL);
	assert_int_equal(control_listen(&running, live), 0);
	for (int kind = 0; kind < 4; kind++) {
		if (kind == 0)
			tu_write(path, "a file");
		else if (kind == 1)
			assert_int_equal(mkdir(path, 0755), 0);
		else
			assert_int_equal(symlink(kind == 2 ? live : "nowhere", path), 0);
		assert_int_equal(lstat(path, &before), 0);
		budget_init(&work, &loop, WORK);
		control_init(&c, &loop, &work, no_exec, NULL);
		assert_int_equal(control_listen(&c, path), -ENOTSOCK);
		assert_int_equal(lstat(path, &after), 0);
		assert_true(before.st_ino == after.st_ino && before.st_mode == after.st_mode);
		control_close(&c);
		if (kind >= 2)
			assert_int_equal(readlink(path, target, sizeof(target)),
					 (ssize_t)strlen(kind == 2 ? live : "nowhere"));
		assert_int_equal(kind == 1 ? rmdir(path) : unlink(path), 0);
	}
	assert_int_equal(lstat(live, &after), 0);
	assert_true(S_ISSOCK(after.st_mode));
	control_close(&running);
	loop_free(&loop);
	tu_rmtree(dir);
}

/* The socket goes only where nobody else can replace it: a directory that group or others may
 * write (without the sticky bit), or another user's, is refused, and nothing is made there;
 * so is one under such a directory. */
static void test_listen_refuses_a_directory_others_may_write(void **state)
{
	static const struct {
		mode_t mode;
		int ret;
	} modes[] = { { 0777, -EPERM }, { 0770, -EPERM }, { 01777, 0 }, { 0755, 0 } };
	char *dir = tu_tmpdir();
	const char *path = tu_path(dir, "control");
	char sub[300], inner[320];
	struct control c;
	struct loop loop;
	struct budget work;
	struct stat st;

	(void)state;
	assert_int_equal(loop_init(&loop), 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		budget_init(&work, &loop, WORK);
		control_init(&c, &loop, &work, no_exec, NULL);
		assert_int_equal(chmod(dir, modes[i].mode), 0);
		assert_int_equal(control_listen(&c, path), modes[i].ret);
		if (modes[i].ret == 0) {
			assert_int_equal(lstat(path, &st), 0);
			assert_int_equal(st.st_mode & 07777, 0660);
		} else {
			assert_int_equal(lstat(path, &st), -1);
		}
		control_close(&c);
	}
	assert_string_equal(control_error(-EPERM), "a directory on its path lets another user "
			    "replace it (writable by group or others without the sticky bit, or owned "
			    "by another user)");
	budget_init(&work, &loop, WORK);
	control_init(&c, &loop, &work, no_exec, NULL);
	assert_int_equal(control_listen(&c, "/nonexistent/a/control"), -ENOENT);
	control_close(&c);
	/* a safe directory under one that others may write: they could swap the whole of it */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/control", sub);
	for (int open = 0; open < 2; open++) {
		assert_int_equal(chmod(dir, open ? 0755 : 0777), 0);
		budget_init(&work, &loop, WORK);
		control_init(&c, &loop, &work, no_exec, NULL);
		assert_int_equal(control_listen(&c, inner), open ? 0 : -EPERM);
		control_close(&c);
	}
	if (geteuid() == 0) {	/* another user's directory */
		assert_int_equal(chown(dir, 1000, 1000), 0);
		budget_init(&work, &loop, WORK);
		control_init(&c, &loop, &work, no_exec, NULL);
		assert_int_equal(control_listen(&c, path), -EPERM);
		control_close(&c);
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	loop_free(&loop);
	tu_rmtree(dir);
}

/* A line from fd within 2 s of loop dispatches, or "". */
static void client_line_of(struct loop *loop, int fd, char *line, size_t len)
{
	size_t got = 0;

	line[0] = '\0';
	for (int i = 0; i < 200 && got + 1 < len; i++) {
		ssize_t n = recv(fd, line + got, 1, MSG_DONTWAIT);

		if (n == 1 && line[got] == '\n')
			break;
		if (n == 1) {
			got++;
			continue;
		}
		loop_dispatch(loop, 10);
	}
	line[got] = '\0';
}

static int clients_open(const struct control *c)
{
	int n = 0;

	for (int i = 0; i < CONTROL_CLIENTS; i++)
		n += c->clients[i].src.fd >= 0;
	return n;
}

/* A control socket listening in a directory of its own, and its loop. */
struct listening {
	char *dir;
	struct sockaddr_un addr;
	struct control c;
	struct loop loop;
	struct budget work;
};

static void listening_open_on(struct listening *l, control_exec_fn *exec, void *ctx)
{
	l->dir = tu_tmpdir();
	l->addr = (struct sockaddr_un){ .sun_family = AF_UNIX };
	snprintf(l->addr.sun_path, sizeof(l->addr.sun_path), "%s", tu_path(l->dir, "control"));
	assert_int_equal(loop_init(&l->loop), 0);
	budget_init(&l->work, &l->loop, WORK);
	control_init(&l->c, &l->loop, &l->work, exec, ctx);
	assert_int_equal(control_listen(&l->c, l->addr.sun_path), 0);
}

static void listening_open(struct listening *l)
{
	listening_open_on(l, no_exec, NULL);
}

static void listening_close(struct listening *l)
{
	control_close(&l->c);
	loop_free(&l->loop);
	tu_rmtree(l->dir);
}

/* A connection to it from this process. */
static int connect_here(const struct listening *l)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)&l->addr, sizeof(l->addr)), 0);
	return fd;
}

/* fd sends "watch" and is told it watches. */
static void watch_on(struct listening *l, int fd)
{
	char line[64];

	assert_int_equal(send(fd, "watch\n", 6, 0), 6);
	client_line_of(&l->loop, fd, line, sizeof(line));
	assert_string_equal(line, "ok watching");
}

/* "watch": the client hears every broadcast line; one that stops reading is closed as soon as
 * a line finds the last one not taken, and the loop never waits for it. A client that did not
 * ask hears nothing. */
static void test_watch_drops_a_client_that_does_not_read(void **state)
{
	char *dir = tu_tmpdir(), line[64];
	const char *path = tu_path(dir, "control");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct control c;
	struct loop loop;
	struct budget work;
	int watcher, other, sent = 0;

	(void)state;
	assert_int_equal(loop_init(&loop), 0);
	budget_init(&work, &loop, WORK);
	control_init(&c, &loop, &work, no_exec, NULL);
	assert_int_equal(control_listen(&c, path), 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	watcher = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	other = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(watcher, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(connect(other, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(send(watcher, "watch\n", 6, 0), 6);
	client_line_of(&loop, watcher, line, sizeof(line));
	assert_string_equal(line, "ok watching");
	assert_int_equal(send(other, "status\n", 7, 0), 7);
	client_line_of(&loop, other, line, sizeof(line));
	assert_string_equal(line, "ok");
	control_broadcast(&c, "event shown");
	client_line_of(&loop, watcher, line, sizeof(line));
	assert_string_equal(line, "event shown");
	assert_int_equal(recv(other, line, sizeof(line), MSG_DONTWAIT), -1);
	/* now it reads nothing: the socket fills, a line is left half sent, the next drops it */
	while (clients_open(&c) == 2 && sent < 1000000) {
		control_broadcast(&c, "event hidden");
		sent++;
	}
	printf("# a watcher that does not read: closed after %d lines\n", sent);
	assert_int_equal(clients_open(&c), 1);
	assert_true(sent > 1);
	close(watcher);
	close(other);
	control_close(&c);
	loop_free(&loop);
	tu_rmtree(dir);
}

/* A connection made by a child process, so that each counts as another peer (SO_PEERCRED
 * names the process that connected). */
static int connect_as_child(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), status;
	pid_t pid = fork();

	assert_true(fd >= 0 && pid >= 0);
	if (pid == 0)
		_exit(connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0 ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return fd;
}

/* Watchers keep their slots: one more than CONTROL_WATCHERS is refused, so watchers alone
 * cannot fill the socket; a client that is not watching still gets in and is answered. */
static void test_watchers_are_few(void **state)
{
	char *dir = tu_tmpdir(), line[96], want[96];
	const char *path = tu_path(dir, "control");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fds[CONTROL_WATCHERS + 2];
	struct control c;
	struct loop loop;
	struct budget work;

	(void)state;
	assert_int_equal(loop_init(&loop), 0);
	budget_init(&work, &loop, WORK);
	control_init(&c, &loop, &work, no_exec, NULL);
	assert_int_equal(control_listen(&c, path), 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	for (int i = 0; i < CONTROL_WATCHERS + 2; i++)
		fds[i] = connect_as_child(&addr);
	for (int i = 0; i <= CONTROL_WATCHERS; i++) {
		assert_int_equal(send(fds[i], "watch\n", 6, 0), 6);
		client_line_of(&loop, fds[i], line, sizeof(line));
		if (i < CONTROL_WATCHERS)
			assert_string_equal(line, "ok watching");
	}
	snprintf(want, sizeof(want), "error: %d clients are watching already", CONTROL_WATCHERS);
	assert_string_equal(line, want);
	assert_int_equal(send(fds[CONTROL_WATCHERS + 1], "status\n", 7, 0), 7);
	client_line_of(&loop, fds[CONTROL_WATCHERS + 1], line, sizeof(line));
	assert_string_equal(line, "ok");
	control_broadcast(&c, "event shown");
	client_line_of(&loop, fds[0], line, sizeof(line));
	assert_string_equal(line, "event shown");
	assert_int_equal(recv(fds[CONTROL_WATCHERS], line, sizeof(line), MSG_DONTWAIT), -1);
	for (int i = 0; i < CONTROL_WATCHERS + 2; i++)
		close(fds[i]);
	control_close(&c);
	loop_free(&loop);
	tu_rmtree(dir);
}

/* A watcher keeps its slot when its own process opens more connections than it may hold (a
 * kiosk app that watches and sends commands): one of the others gives its slot up. */
static void test_a_watcher_is_never_evicted(void **state)
{
	struct listening l;
	int watcher, fds[CONTROL_PER_PEER];
	char line[96];

	(void)state;
	listening_open(&l);
	watcher = connect_here(&l);
	watch_on(&l, watcher);
	/* newcomers in their grace, the watcher the oldest of its process's connections */
	for (int i = 0; i < CONTROL_PER_PEER; i++) {
		fds[i] = connect_here(&l);
		for (int k = 0; k < 3; k++)
			loop_dispatch(&l.loop, 10);
	}
	assert_int_equal(clients_open(&l.c), CONTROL_PER_PEER);
	control_broadcast(&l.c, "event shown");
	client_line_of(&l.loop, watcher, line, sizeof(line));
	assert_string_equal(line, "event shown");
	for (int i = 0; i < CONTROL_PER_PEER; i++)
		close(fds[i]);
	close(watcher);
	listening_close(&l);
}

/* A process whose connections all watch is not shut out: its next connection takes the slot of
 * its oldest watcher, and the others watch on. */
static void test_a_process_of_watchers_still_gets_in(void **state)
{
	struct listening l;
	int fds[CONTROL_PER_PEER + 1];
	char line[96];

	(void)state;
	listening_open(&l);
	for (int i = 0; i < CONTROL_PER_PEER; i++) {
		fds[i] = connect_here(&l);
		watch_on(&l, fds[i]);
	}
	fds[CONTROL_PER_PEER] = connect_here(&l);
	assert_int_equal(send(fds[CONTROL_PER_PEER], "status\n", 7, 0), 7);
	client_line_of(&l.loop, fds[CONTROL_PER_PEER], line, sizeof(line));
	assert_string_equal(line, "ok");
	assert_int_equal(recv(fds[0], line, sizeof(line), MSG_DONTWAIT), 0);	/* closed */
	control_broadcast(&l.c, "event shown");
	for (int i = 1; i < CONTROL_PER_PEER; i++) {
		client_line_of(&l.loop, fds[i], line, sizeof(line));
		assert_string_equal(line, "event shown");
	}
	for (int i = 0; i <= CONTROL_PER_PEER; i++)
		close(fds[i]);
	listening_close(&l);
}

/* A connection made by a child process running as user uid (it must be allowed to connect). */
static int connect_as_user(const struct sockaddr_un *addr, uid_t uid)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), status;
	pid_t pid = fork();

	assert_true(fd >= 0 && pid >= 0);
	if (pid == 0)
		_exit(setuid(uid) == 0 &&
		      connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0 ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return fd;
}

/* The review's slow client sends "status" a chunk every DRIP_MS, the newline with the next
 * line's first byte: always midway through a line, a line finished every 1.5 s, well within
 * CONTROL_IDLE_MS. */
enum { DRIP_MS = 300, DRIP_ROUNDS = 20 };

/* Each of the n clients sends its chunk of round, the loop runs for DRIP_MS, their replies are
 * taken. A client that was closed fails to send, and is left at that. */
static void drip_round(struct listening *l, const int *fds, int n, int round)
{
	static const char *const chunks[] = { "t", "a", "t", "u", "s\ns" };
	const char *chunk = round == 0 ? "s" : chunks[(round - 1) % 5];
	long end = now_ms() + DRIP_MS;
	char sink[64];

	for (int i = 0; i < n; i++)
		send(fds[i], chunk, strlen(chunk), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (now_ms() < end)
		loop_dispatch(&l->loop, 10);
	for (int i = 0; i < n; i++)
		while (recv(fds[i], sink, sizeof(sink), MSG_DONTWAIT) > 0)
			;
}

/* What fd has received so far, or "". */
static void line_now(int fd, char *line, size_t len)
{
	ssize_t n = recv(fd, line, len - 1, MSG_DONTWAIT);

	line[n > 0 ? n : 0] = '\0';
}

/* Sixteen processes, each with one connection that drips its lines and finishes each within
 * CONTROL_IDLE_MS, hold every slot: another process's one-shot command is still answered (its
 * grace over, one of them gives its slot up), as the README promises. */
static void test_dripping_clients_let_a_one_shot_in(void **state)
{
	struct listening l;
	int fds[CONTROL_CLIENTS], shot;
	char line[96] = "";

	(void)state;
	listening_open(&l);
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		fds[i] = connect_as_child(&l.addr);
	drip_round(&l, fds, CONTROL_CLIENTS, 0);
	assert_int_equal(clients_open(&l.c), CONTROL_CLIENTS);
	shot = connect_as_child(&l.addr);	/* waits in the backlog */
	assert_int_equal(send(shot, "status\n", 7, 0), 7);
	for (int round = 1; round < DRIP_ROUNDS && !line[0]; round++) {
		drip_round(&l, fds, CONTROL_CLIENTS, round);
		line_now(shot, line, sizeof(line));
	}
	assert_string_equal(line, "ok\n");
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		close(fds[i]);
	close(shot);
	listening_close(&l);
}

/* With every slot held, fifteen by dripping processes of one user and one by a kiosk app of
 * another that asks something every DRIP_MS and is idle in between, a newcomer evicts one of
 * the crowd's connections, not the kiosk app's. */
static void test_the_most_crowded_user_gives_up_a_slot(void **state)
{
	enum { CROWD = CONTROL_CLIENTS - 1 };
	struct listening l;
	int fds[CROWD], kiosk, shot;
	char line[96];

	(void)state;
	if (geteuid() != 0) {
		printf("# not root: no other user to connect as\n");
		skip();
	}
	listening_open(&l);
	assert_int_equal(chmod(l.dir, 0755), 0);
	assert_int_equal(chmod(l.addr.sun_path, 0666), 0);
	kiosk = connect_here(&l);
	for (int i = 0; i < CROWD; i++)
		fds[i] = connect_as_user(&l.addr, 1000);
	for (int round = 0; round < 5; round++) {	/* every grace over */
		assert_int_equal(send(kiosk, "status\n", 7, 0), 7);
		drip_round(&l, fds, CROWD, round);
		line_now(kiosk, line, sizeof(line));
		assert_string_equal(line, "ok\n");
	}
	assert_int_equal(clients_open(&l.c), CONTROL_CLIENTS);
	shot = connect_as_child(&l.addr);
	assert_int_equal(send(shot, "status\n", 7, 0), 7);
	client_line_of(&l.loop, shot, line, sizeof(line));
	assert_string_equal(line, "ok");
	assert_int_equal(send(kiosk, "status\n", 7, MSG_NOSIGNAL), 7);
	client_line_of(&l.loop, kiosk, line, sizeof(line));
	assert_string_equal(line, "ok");
	for (int i = 0; i < CROWD; i++)
		close(fds[i]);
	close(kiosk);
	close(shot);
	listening_close(&l);
}

/* Commands that cost stone work: "drop N 0" N units at once, "trail 0 0 N 0" N units as the
 * work of the wake-ups allows; each reply numbers it in the order commands end. */
enum { UNIT = WORK / 100, WAKEUPS = 64 };

struct costly {
	const struct loop *loop;
	long spent[WAKEUPS];	/* the work of each wake-up */
	int ended;
};

static int costly_exec(void *ctx, struct control_command *cmd, struct control_ticket ticket,
		       long *work, char *reply, size_t len)
{
	struct costly *k = ctx;
	long left = cmd->type == CONTROL_TRAIL ? cmd->x2 * UNIT - cmd->progress
					       : cmd->type == CONTROL_DROP ? cmd->x * UNIT : 0;
	long now = cmd->type == CONTROL_TRAIL && left > *work ? *work : left;

	(void)ticket;
	assert_true(*work > 0);
	assert_true(k->loop->wakeups < WAKEUPS);
	*work -= now;
	k->spent[k->loop->wakeups] += now;
	cmd->progress += now;
	if (now < left)
		return CONTROL_MORE;
	snprintf(reply, len, "ok %d", ++k->ended);
	return 0;
}

/* The commands of one wake-up do about WORK of stone work: those beyond wait unread, a
 * command that needs more goes on over the next wake-ups, and a client that waits for work
 * goes before the one that had its turn. Every command is answered, in order. */
static void test_stone_work_per_wake_up(void **state)
{
	static const char flood[] = "drop 30 0\ndrop 30 0\ndrop 30 0\ndrop 30 0\ntrail 0 0 250 0\n"
				    "status\n";
	struct costly k = { 0 };
	struct listening l;
	char line[64];
	int a, b, busy = 0;

	(void)state;
	listening_open_on(&l, costly_exec, &k);
	k.loop = &l.loop;
	a = connect_here(&l);
	b = connect_here(&l);
	assert_int_equal(send(a, flood, sizeof(flood) - 1, 0), (ssize_t)sizeof(flood) - 1);
	for (int i = 1; i <= 4; i++) {
		char want[16];

		snprintf(want, sizeof(want), "ok %d", i);
		client_line_of(&l.loop, a, line, sizeof(line));
		assert_string_equal(line, want);
	}
	/* a's trail is under way: b, asking now, is answered before it ends */
	assert_int_equal(send(b, "status\n", 7, 0), 7);
	client_line_of(&l.loop, b, line, sizeof(line));
	assert_string_equal(line, "ok 5");
	client_line_of(&l.loop, a, line, sizeof(line));
	assert_string_equal(line, "ok 6");
	client_line_of(&l.loop, a, line, sizeof(line));
	assert_string_equal(line, "ok 7");
	for (int i = 0; i < WAKEUPS; i++) {
		assert_true(k.spent[i] < WORK + 30 * UNIT);
		busy += k.spent[i] > 0;
	}
	assert_true(busy >= 4);		/* 370 units of work */
	close(a);
	close(b);
	listening_close(&l);
}

/* The review's order, a watcher among them: b watches, a's trail is under way, b and c each
 * send a drop and have nothing more to send; then fresh clients ask for their status. They are
 * answered within a few wake-ups, and once all is answered the loop has nothing to do. b, let
 * through for its drop and then refused its next turn by c, which had waited longer, was taken
 * for a client that waits for work though it had no line left: nothing ever cleared that, and
 * every other client was refused behind it from then on, its line left in its socket, the loop
 * woken for it again at once, for as long as b stayed connected. */
static void test_a_client_with_nothing_to_send_holds_up_nobody(void **state)
{
	struct costly k = { 0 };
	struct listening l;
	struct pollfd calm;
	int a, b, c, d[3];
	uint64_t from;
	char line[64];

	(void)state;
	listening_open_on(&l, costly_exec, &k);
	k.loop = &l.loop;
	b = connect_as_child(&l.addr);
	watch_on(&l, b);
	a = connect_as_child(&l.addr);
	c = connect_as_child(&l.addr);
	assert_int_equal(send(a, "trail 0 0 1000 0\n", 17, 0), 17);
	for (int i = 0; i < 20 && !k.spent[l.loop.wakeups]; i++)
		loop_dispatch(&l.loop, 10);
	assert_true(k.spent[l.loop.wakeups] > 0);	/* a's trail is under way */
	assert_int_equal(send(b, "drop 30 0\n", 10, 0), 10);
	assert_int_equal(send(c, "drop 30 0\n", 10, 0), 10);
	for (int i = 0; i < 3; i++)
		loop_dispatch(&l.loop, 10);
	from = l.loop.wakeups;
	for (int i = 0; i < 3; i++) {
		d[i] = connect_as_child(&l.addr);
		assert_int_equal(send(d[i], "status\n", 7, 0), 7);
	}
	for (int i = 0; i < 3; i++) {
		client_line_of(&l.loop, d[i], line, sizeof(line));
		assert_memory_equal(line, "ok ", 3);
	}
	printf("# the fresh clients answered in %d wake-ups\n", (int)(l.loop.wakeups - from));
	assert_true(l.loop.wakeups - from < 20);
	client_line_of(&l.loop, b, line, sizeof(line));
	assert_memory_equal(line, "ok ", 3);
	client_line_of(&l.loop, c, line, sizeof(line));
	assert_memory_equal(line, "ok ", 3);
	client_line_of(&l.loop, a, line, sizeof(line));
	assert_memory_equal(line, "ok ", 3);
	calm = (struct pollfd){ l.loop.epfd, POLLIN, 0 };
	assert_int_equal(poll(&calm, 1, 0), 0);
	for (int i = 0; i < 3; i++)
		close(d[i]);
	close(a);
	close(b);
	close(c);
	listening_close(&l);
}

/* A trail that takes longer than CONTROL_IDLE_MS: parts of 5 ms, as stones would take. */
static int slow_exec(void *ctx, struct control_command *cmd, struct control_ticket ticket,
		     long *work, char *reply, size_t len)
{
	(void)ctx, (void)ticket;
	if (!cmd->progress)
		cmd->progress = now_ms();	/* when it started */
	sleep_ms(5);
	*work = 0;
	if (now_ms() < cmd->progress + CONTROL_IDLE_MS + 500)
		return CONTROL_MORE;
	snprintf(reply, len, "ok");
	return 0;
}

/* A client whose trail outlasts the idle timer, then silent, is closed CONTROL_IDLE_MS after
 * the trail's reply, as any other: the timer, which fired while the trail went on and skipped
 * it, was armed again by nothing, and the connection held its slot for good. */
static void test_a_long_trail_is_closed_idle_after_its_reply(void **state)
{
	struct listening l;
	long replied, closed;
	char line[64] = "";
	ssize_t n = -1;
	int a;

	(void)state;
	listening_open_on(&l, slow_exec, NULL);
	a = connect_here(&l);
	assert_int_equal(send(a, "trail 0 0 1 1\n", 14, 0), 14);
	for (long end = now_ms() + 2 * CONTROL_IDLE_MS; !line[0] && now_ms() < end;) {
		loop_dispatch(&l.loop, 10);
		line_now(a, line, sizeof(line));
	}
	replied = now_ms();
	assert_string_equal(line, "ok\n");
	while (n != 0 && now_ms() < replied + 2 * CONTROL_IDLE_MS) {
		loop_dispatch(&l.loop, 10);
		n = recv(a, line, sizeof(line), MSG_DONTWAIT);
	}
	closed = now_ms();
	printf("# closed %ld ms after its reply\n", n == 0 ? closed - replied : -1);
	assert_int_equal(n, 0);
	assert_true(closed - replied >= CONTROL_IDLE_MS - 500);
	close(a);
	listening_close(&l);
}

/* A client that left what it was sent in its socket until no room is left there cannot hear
 * the end of a trail, which then stops where it is: it is closed CONTROL_IDLE_MS after its
 * line, as one that does not take its reply is, not kept for good as a trail going on. */
static void test_a_trail_that_cannot_answer_is_closed_idle(void **state)
{
	static char junk[4096];
	struct listening l;
	struct control_client *cl = &l.c.clients[0];
	long sent, closed;
	int a;

	(void)state;
	listening_open_on(&l, slow_exec, NULL);
	a = connect_here(&l);
	loop_dispatch(&l.loop, 10);
	assert_int_equal(clients_open(&l.c), 1);
	assert_true(cl->src.fd >= 0);
	while (send(cl->src.fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		;	/* as replies it did not take */
	assert_int_equal(send(a, "trail 0 0 1 1\n", 14, 0), 14);
	sent = now_ms();
	for (int i = 0; i < 5; i++)
		loop_dispatch(&l.loop, 10);
	assert_true(cl->src.fd >= 0 && cl->unfinished);	/* its first part, then stuck */
	while (clients_open(&l.c) && now_ms() < sent + 2 * CONTROL_IDLE_MS)
		loop_dispatch(&l.loop, 10);
	closed = now_ms();
	printf("# closed %ld ms after its line\n", clients_open(&l.c) ? -1 : closed - sent);
	assert_int_equal(clients_open(&l.c), 0);
	assert_true(closed - sent >= CONTROL_IDLE_MS - 500);
	close(a);
	listening_close(&l);
}

/* A client that ends its last line with the end of its sending, not a newline, hears the
 * reply to it all the same: a short line is run, a line too long is refused, never left
 * unanswered. */
static void test_a_last_line_without_newline_is_answered(void **state)
{
	struct listening l;
	char big[CONTROL_LINE_MAX + 100], line[128];

	(void)state;
	listening_open(&l);
	memset(big, 'x', sizeof(big));
	for (int i = 0; i < 2; i++) {
		int fd = connect_here(&l);
		ssize_t n = i ? (ssize_t)sizeof(big) : 6;

		assert_int_equal(send(fd, i ? big : "status", (size_t)n, 0), n);
		assert_int_equal(shutdown(fd, SHUT_WR), 0);
		client_line_of(&l.loop, fd, line, sizeof(line));
		assert_string_equal(line, i ? "error: line too long" : "ok");
		close(fd);
	}
	listening_close(&l);
}

static void solid(struct image *img, uint32_t rgb)
{
	img->width = 16;
	img->height = 8;
	img->pixels = malloc(16 * 8 * sizeof(uint32_t));
	for (int i = 0; i < 16 * 8; i++)
		img->pixels[i] = 0xff000000u | rgb;
}

/* Issue 12 item 2, the file part: a client's screenshot goes only where nothing is, through no
 * link, leaving nothing behind when it fails; the user's --screenshot replaces by rename, so a
 * file open (or mapped) elsewhere keeps its bytes. */
static void test_shot_write(void **state)
{
	char *dir = tu_tmpdir(), buf[64];
	char real[300], link[300], path[400];
	struct image img, back;
	struct stat st;
	int fd;

	(void)state;
	solid(&img, 0x123456);
	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, link), 0);
	tu_write(tu_path(real, "keep"), "precious\n");

	assert_int_equal(shot_write(&img, tu_path(real, "keep"), false), -EEXIST);
	snprintf(path, sizeof(path), "%s/new.png", link);
	assert_int_equal(shot_write(&img, path, false), -ELOOP);
	snprintf(path, sizeof(path), "%s/none/new.png", real);
	assert_int_equal(shot_write(&img, path, false), -ENOENT);
	assert_int_equal(shot_write(&img, real, false), -EEXIST);
	snprintf(path, sizeof(path), "%s/", real);
	assert_int_equal(shot_write(&img, path, false), -EISDIR);
	assert_int_equal(shot_write(&img, tu_path(real, "new.png"), false), 0);
	tu_load(&back, tu_path(real, "new.png"));
	assert_int_equal(tu_rgb(&back, 3, 3), 0x123456);
	image_free(&back);
	/* only what was there and the one new file: no temporary file left behind */
	assert_int_equal(stat(tu_path(real, "keep"), &st), 0);
	fd = open(tu_path(real, "keep"), O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 9);
	close(fd);
	assert_memory_equal(buf, "precious\n", 9);

	/* --screenshot: replaced through a rename; whoever has the old file open keeps its bytes */
	fd = open(tu_path(real, "keep"), O_RDONLY);
	snprintf(path, sizeof(path), "%s/keep", link);
	assert_int_equal(shot_write(&img, path, true), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), 9);
	assert_memory_equal(buf, "precious\n", 9);
	close(fd);
	tu_load(&back, tu_path(real, "keep"));
	image_free(&back);
	assert_string_equal(shot_strerror(-EEXIST),
			    "something is there already (a screenshot never replaces a file)");
	image_free(&img);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_commands),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_fuzz),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_saver_touch),
		cmocka_unit_test(test_saver_command),
		cmocka_unit_test(test_saver_always),
		cmocka_unit_test(test_reload_changes),
		cmocka_unit_test(test_listen_refuses_a_live_socket),
		cmocka_unit_test(test_listen_leaves_what_is_not_a_socket),
		cmocka_unit_test(test_listen_refuses_a_directory_others_may_write),
		cmocka_unit_test(test_watch_drops_a_client_that_does_not_read),
		cmocka_unit_test(test_watchers_are_few),
		cmocka_unit_test(test_a_watcher_is_never_evicted),
		cmocka_unit_test(test_a_process_of_watchers_still_gets_in),
		cmocka_unit_test(test_dripping_clients_let_a_one_shot_in),
		cmocka_unit_test(test_the_most_crowded_user_gives_up_a_slot),
		cmocka_unit_test(test_stone_work_per_wake_up),
		cmocka_unit_test(test_a_client_with_nothing_to_send_holds_up_nobody),
		cmocka_unit_test(test_a_long_trail_is_closed_idle_after_its_reply),
		cmocka_unit_test(test_a_trail_that_cannot_answer_is_closed_idle),
		cmocka_unit_test(test_a_last_line_without_newline_is_answered),
		cmocka_unit_test(test_shot_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
