/* test_vm_input.c - fbripple's input end to end in a QEMU guest: uinput touch panels and mice
 * and the virtio tablet against real evdev nodes; rings measured in QMP screendumps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "image/image.h"
#include "vm/vmcase.h"

#define W 640
#define H 480

/* A 2-pixel checkerboard PNG (every displacement shows) and the current case's config. */
static char checker[64], conf[64];

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* 640x640, so that it also covers the screen turned by display.rotate = 90. */
static int write_checker(void)
{
	struct image img = { W, W, malloc((size_t)W * W * 4) };
	int fd, rc;

	if (!img.pixels)
		return -ENOMEM;
	for (int y = 0; y < W; y++)
		for (int x = 0; x < W; x++)
			img.pixels[y * W + x] = (x / 2 + y / 2) % 2 ? 0xffffffff : 0xff203040;
	snprintf(checker, sizeof(checker), "/tmp/fbvm-checker.XXXXXX");
	fd = mkstemp(checker);
	if (fd < 0) {
		free(img.pixels);
		return -errno;
	}
	close(fd);
	rc = image_write_png(&img, checker);
	free(img.pixels);
	return rc;
}

/* The kiosk case's helpers beside the shared ones: the apps, and the VT state. */
static char kioskapp[600], drmapp[600], vtstate[600];

static void find_kiosk_helpers(void)
{
	char exe[400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = 0;
	snprintf(kioskapp, sizeof(kioskapp), "%s/vm/kioskapp=/bin/kioskapp", exe);
	snprintf(drmapp, sizeof(drmapp), "%s/vm/drmapp=/bin/drmapp", exe);
	snprintf(vtstate, sizeof(vtstate), "%s/vm/vtstate=/bin/vtstate", exe);
}

static int suite_setup(void **state)
{
	const char *extra[] = { kioskapp, drmapp, vtstate, NULL };
	struct vm_suite *s;

	find_kiosk_helpers();
	if (write_checker() || vm_suite_setup(state, extra))
		return -1;
	s = *state;
	if (s->available && !s->have_fbripple) {
		s->available = 0;
		snprintf(s->why, sizeof(s->why), "FBRIPPLE_BIN is not set to the fbripple program");
	}
	return 0;
}

static int suite_teardown(void **state)
{
	unlink(checker);
	return vm_suite_teardown(state);
}

static int case_teardown(void **state)
{
	if (conf[0])
		unlink(conf);
	conf[0] = 0;
	return vm_case_teardown(state);
}

/* ---- the guest side ---- */

/* Shell functions for every case: fbripple in the background logging to /tmp/log, waits on
 * that log, and a uinput device fed from fd 4. */
#define PRELUDE \
	"waitlog() { n=0; while ! grep -q \"$1\" /tmp/log 2>/dev/null && [ $n -lt 200 ];" \
	" do sleep 0.05; n=$((n+1)); done; grep -q \"$1\" /tmp/log; }\n" \
	"start() { /usr/bin/fbripple -v >/tmp/log 2>&1 4>&- & pid=$!; waitlog ' 640x480 '" \
	" || say 'fbripple did not start'; }\n" \
	"mkdev() { rm -f /tmp/dev; mkfifo /tmp/dev; /bin/uinput-dev \"$@\" </tmp/dev >>/tmp/dev.out &" \
	" exec 4>/tmp/dev; n=0; while ! grep -q event /tmp/dev.out 2>/dev/null && [ $n -lt 100 ];" \
	" do sleep 0.02; n=$((n+1)); done; }\n" \
	"finish() { grep 'input:' /tmp/log | while read -r l; do say \"log $l\"; done;" \
	" kill $pid; wait $pid; say \"fbripple exit $?\"; exec 4>&-; wait; }\n"

/* The case's /etc/fbripple.conf, into a new temporary file named by conf. */
static void write_conf_text(const char *text)
{
	FILE *f;
	int fd;

	snprintf(conf, sizeof(conf), "/tmp/fbvm-conf.XXXXXX");
	fd = mkstemp(conf);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The config of a case: the checkerboard splash, the control socket in /tmp, debug logging. */
static void write_conf(int rotate, const char *groups)
{
	char text[2048];

	snprintf(text, sizeof(text), "display = { fps = 30; rotate = %d; };\n"
		 "splash = { image = \"/usr/share/fbvm/checker.png\"; scale = \"center\"; };\n"
		 "control = { socket = \"/tmp/ctl\"; };\n"
		 "%s\n", rotate, groups);
	write_conf_text(text);
}

static void start_case(struct vm_suite *s, const char *name, const char *script,
		       const char *const *qemu)
{
	const struct vm_file files[] = { { checker, "/usr/share/fbvm/checker.png" },
					 { conf, "/etc/fbripple.conf" }, { NULL, NULL } };
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = name,
			     .script = script, .files = files, .qemu_args = qemu,
			     .timeout_ms = 90000 };

	vm_case_start(s, &o);
}

/* ---- pixels ---- */

static struct image screendump(struct vm_suite *s)
{
	struct image img = { 0 };
	int rc = vm_screendump(&s->vm, &img);

	if (rc)
		fail_msg("screendump: %s", strerror(-rc));
	if (img.width != W || img.height != H) {
		free(img.pixels);
		fail_msg("screendump is %dx%d, expected %dx%d", img.width, img.height, W, H);
	}
	return img;
}

/* The centroid of the pixels that changed between two screendumps, away from the corner where
 * fbcon's cursor may blink. */
static void check_rings(const struct image *a, const struct image *b, int ex, int ey,
			const char *what)
{
	double sx = 0, sy = 0, cx, cy;
	long n = 0;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			if (x < 24 && y < 40)
				continue;
			if ((a->pixels[y * W + x] ^ b->pixels[y * W + x]) & 0xffffff) {
				sx += x;
				sy += y;
				n++;
			}
		}
	if (n < 50)
		fail_msg("%s: no rings: %ld pixels changed", what, n);
	cx = sx / n;
	cy = sy / n;
	printf("# vm: %s: rings centred at (%.1f, %.1f) over %ld pixels; expected (%d, %d)\n", what,
	       cx, cy, n, ex, ey);
	if (fabs(cx - ex) > 2 || fabs(cy - ey) > 2)
		fail_msg("%s: rings centred at (%.1f, %.1f), expected (%d, %d) within 2 pixels", what,
			 cx, cy, ex, ey);
}

/* The guest says "ready" when the splash is up; the host takes a screendump, says "go", the
 * guest acts and says "acted", and the host compares a second screendump with the first. */
static void tap_and_measure(struct vm_suite *s, int ex, int ey, const char *what,
			    const char *qmp_after_go)
{
	struct image before, after;
	char reply[512];

	vm_case_expect(s, "ready", 40000);
	sleep_ms(400);
	before = screendump(s);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	if (qmp_after_go && vm_qmp(&s->vm, qmp_after_go, reply, sizeof(reply)))
		fail_msg("QMP: %s", reply);
	vm_case_expect(s, "acted", 20000);
	sleep_ms(600);
	after = screendump(s);
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	check_rings(&before, &after, ex, ey, what);
	free(before.pixels);
	free(after.pixels);
}

static void expect_exit(struct vm_suite *s)
{
	vm_case_expect(s, "fbripple exit 0", 15000);
	int rc = vm_wait_exit(&s->vm, 15000);
	if (rc != 0) {
		vm_print_console(&s->vm, 40);
		fail_msg("case exit status %d", rc);
	}
}

/* ---- the cases ---- */

/* Multitouch protocol B, axes 1000..7399 x 2000..6799 (10 units a pixel), made before fbripple
 * starts. --list-devices explains it; a tap at pixel (200, 300) rings there. */
static void test_multitouch_offset_ranges(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char line[512];

	write_conf(0, "");
	start_case(s, "multitouch, ranges from 1000 and 2000", PRELUDE
		"mkdev mt 'fbvm panel' 1000 7399 2000 6799\n"
		"/usr/bin/fbripple --list-devices 2>&1 | grep -A1 'fbvm panel' |"
		" while read -r l; do say \"list $l\"; done\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"say ready; hear cmd\n"
		"echo 'tap 3005 5005' >&4; sleep 0.1; say acted; hear cmd\n"
		"finish\n", NULL);
	if (vm_expect_line(&s->vm, "list /dev/input/event", 40000, line, sizeof(line)))
		fail_msg("--list-devices does not list the panel");
	if (!strstr(line, "\"fbvm panel\": multitouch (protocol B, slots): ABS_MT_POSITION_X/Y "
			  "with ABS_MT_SLOT, INPUT_PROP_DIRECT"))
		fail_msg("--list-devices: %s", line);
	vm_case_expect(s, "list x 1000..7399, y 2000..6799 -> screen (0,0)..(639,479) of 640x480", 2000);
	tap_and_measure(s, 200, 300, "multitouch tap", NULL);
	vm_case_expect(s, "down at 200,300", 5000);
	expect_exit(s);
}

/* One device's case: the configuration at rotate, the case's script, its rings around (ex, ey)
 * and the device's class in the log, as cls says it. */
static void one_device(void **state, int rotate, const char *name, const char *script, int ex,
		       int ey, const char *what, const char *cls)
{
	struct vm_suite *s = vm_case_begin(state);

	write_conf(rotate, "");
	start_case(s, name, script, NULL);
	tap_and_measure(s, ex, ey, what, NULL);
	vm_case_expect(s, cls, 5000);
	vm_case_expect(s, "contact", 2000);
	expect_exit(s);
}

/* A single-touch panel without INPUT_PROP_DIRECT, plugged in after fbripple started: the tap
 * 1 s later must ring at the mapped position. */
static void test_single_touch_hotplug(void **state)
{
	one_device(state, 0, "single touch, hot-plugged", PRELUDE
		   "start\n"
		   "say ready; hear cmd\n"
		   "mkdev st 'fbvm resistive' 100 4195 300 3139\n"
		   "sleep 1; echo 'tap 2791 1249' >&4; sleep 0.1; say acted; hear cmd\n"
		   "finish\n", 420, 160, "hot-plugged single-touch tap",
		   "\"fbvm resistive\": touchscreen (single touch) (ABS_X/Y with BTN_TOUCH, "
		   "without INPUT_PROP_DIRECT)");
}

/* A pen tablet beside the screen (INPUT_PROP_POINTER, as a Wacom Intuos's pen), 10 units a
 * pixel of the upright picture, on a portrait kiosk (display.rotate = 90): its area is the
 * picture as it stands, not turned with the panel. Hovering in from 40 pixels right and the
 * barrel button drop nothing; the tip at (3840, 1500) rings at the picture's (288, 200), which
 * the panel shows at (439, 288). */
static void test_pen_tablet(void **state)
{
	one_device(state, 90, "pen tablet", PRELUDE
		   "mkdev pen 'fbvm pen' 0 6390 0 4790\n"
		   "start; waitlog 'fbvm pen' || say 'pen not opened'\n"
		   "say ready; hear cmd\n"
		   "echo 'pen 3840 1500' >&4; sleep 0.3; say acted; hear cmd\n"
		   "finish\n", 439, 288, "pen tap",
		   "\"fbvm pen\": touchscreen (single touch) (a pen: BTN_TOOL_PEN with ABS_X/Y and "
		   "BTN_TOUCH, without INPUT_PROP_DIRECT");
}

/* A relative mouse (that is also a keyboard): the pointer starts at the centre (320, 240), is
 * clamped at the right edge (639), comes back 139 and goes down 50: a click at (500, 290). */
static void test_mouse(void **state)
{
	one_device(state, 0, "relative mouse", PRELUDE
		   "mkdev mouse 'fbvm mouse'\n"
		   "start; waitlog 'fbvm mouse' || say 'mouse not opened'\n"
		   "say ready; hear cmd\n"
		   "printf 'rel 10000 0\\nrel -139 50\\nbtn 1\\nbtn 2\\nbtn 0\\nbtn 0\\n' >&4;"
		   " sleep 0.1\n"
		   "say acted; hear cmd\n"
		   "finish\n", 500, 290, "mouse click",
		   "\"fbvm mouse\": mouse (REL_X/Y with BTN_LEFT (also a keyboard))");
}

/* QEMU's virtio tablet (ABS_X/Y 0..32767 + BTN_LEFT), driven from the host through QMP. */
static void test_virtio_tablet(void **state)
{
	static const char *const qemu[] = { "-device", "virtio-tablet-pci", NULL };
	static const char click[] =
		"{\"execute\":\"input-send-event\",\"arguments\":{\"events\":["
		"{\"type\":\"abs\",\"data\":{\"axis\":\"x\",\"value\":8192}},"
		"{\"type\":\"abs\",\"data\":{\"axis\":\"y\",\"value\":24576}},"
		"{\"type\":\"btn\",\"data\":{\"down\":true,\"button\":\"left\"}}]}}";
	static const char release[] =
		"{\"execute\":\"input-send-event\",\"arguments\":{\"events\":["
		"{\"type\":\"btn\",\"data\":{\"down\":false,\"button\":\"left\"}}]}}";
	struct vm_suite *s = vm_case_begin(state);
	char reply[512];

	write_conf(0, "");
	start_case(s, "virtio tablet", PRELUDE
		"start; waitlog 'QEMU Virtio Tablet' || say 'tablet not opened'\n"
		"say ready; hear cmd\n"
		"waitlog 'down at'; say acted; hear cmd\n"
		"finish\n", qemu);
	tap_and_measure(s, 160, 360, "virtio tablet click", click);
	if (vm_qmp(&s->vm, release, reply, sizeof(reply)))
		fail_msg("QMP: %s", reply);
	vm_case_expect(s, "absolute pointer (tablet) (ABS_X/Y with BTN_LEFT, no BTN_TOUCH)", 5000);
	expect_exit(s);
}

/* input.calibration = libinput's 90 degrees [0 -1 1 1 0 0]: panel (200, 300) of 640x480,
 * normalized (0.313, 0.626), goes to (1 - 0.626, 0.313) = pixel (239, 150). */
static void test_calibration_90(void **state)
{
	struct vm_suite *s = vm_case_begin(state);

	write_conf(0, "input = { calibration = [ 0.0, -1.0, 1.0, 1.0, 0.0, 0.0 ]; };");
	start_case(s, "calibration matrix of 90 degrees", PRELUDE
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"say ready; hear cmd\n"
		"echo 'tap 200 300' >&4; sleep 0.1; say acted; hear cmd\n"
		"finish\n", NULL);
	tap_and_measure(s, 239, 150, "tap with a 90 degree calibration", NULL);
	vm_case_expect(s, "calibration: input.calibration", 5000);
	expect_exit(s);
}

/* display.rotate = 90 turns the picture and the touches alike: the rings stay under the
 * finger on the physical screen. */
static void test_rotated_display(void **state)
{
	struct vm_suite *s = vm_case_begin(state);

	write_conf(90, "");
	start_case(s, "display.rotate = 90", PRELUDE
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"say ready; hear cmd\n"
		"echo 'tap 200 300' >&4; sleep 0.1; say acted; hear cmd\n"
		"finish\n", NULL);
	tap_and_measure(s, 200, 300, "tap on a display rotated 90 degrees", NULL);
	vm_case_expect(s, "down at 300,439", 5000);	/* logical (y, 639 - x) */
	expect_exit(s);
}

/* input.grab holds the panel only while fbripple's VT is in front: on another VT, other
 * programs get the touches (an EVIOCGRAB elsewhere would keep every event from them). One
 * that grabbed it meanwhile keeps it, and fbripple says so. */
static void test_grab_follows_the_vt(void **state)
{
	struct vm_suite *s = vm_case_begin(state);

	write_conf(0, "");
	start_case(s, "grab follows the VT", PRELUDE
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"tapdump() { /bin/evdump 'fbvm panel' 1 1500 >/dev/null & e=$!; sleep 0.3;"
		" echo 'tap 300 200' >&4; wait $e; say \"$1: evdump exit $?\"; }\n"
		"tapdump drawing\n"
		"chvt 2; tapdump away\n"
		"chvt 1; tapdump back\n"
		/* grabbed by another program meanwhile: back on its VT fbripple says it cannot */
		"chvt 2; EVDUMP_GRAB=1 /bin/evdump 'fbvm panel' 1 3000 >/tmp/held & h=$!; sleep 0.3\n"
		"chvt 1; sleep 0.3; echo 'tap 300 200' >&4; wait $h\n"
		"say \"held elsewhere: evdump exit $? warnings"
		" $(grep -c 'cannot grab: Device or resource busy' /tmp/log)\"\n"
		"finish\n", NULL);
	vm_case_expect(s, "drawing: evdump exit 1", 40000);
	vm_case_expect(s, "away: evdump exit 0", 10000);
	vm_case_expect(s, "back: evdump exit 1", 10000);
	vm_case_expect(s, "held elsewhere: evdump exit 0 warnings 1", 10000);
	expect_exit(s);
}

/* A panel unplugged in the middle of a stroke: its contact ends, fbripple keeps running and
 * takes a panel plugged in afterwards, also when /dev/input went with the old one's node. */
static void test_unplug_mid_stroke(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char line[512];

	write_conf(0, "");
	start_case(s, "unplug mid-stroke", PRELUDE
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"printf 'down 0 200 200\\nsync\\nmove 0 260 210\\nsync\\n' >&4; sleep 0.3\n"
		"say \"during $(/usr/bin/fbripple --send status)\"\n"
		"exec 4>&-; sleep 0.5\n"
		"grep -qE '\"fbvm panel\" (went away|unplugged)' /tmp/log && say closed\n"
		"kill -0 $pid && say alive\n"
		"say \"after $(/usr/bin/fbripple --send status)\"\n"
		/* the directory goes too, as devtmpfs removes it with its last node */
		"rm -rf /dev/input\n"
		"mkdev mt 'fbvm panel 2' 0 639 0 479\n"
		"waitlog 'fbvm panel 2' && echo 'tap 400 300' >&4; waitlog 'down at 400,300' && say tapped\n"
		"finish\n", NULL);
	if (vm_expect_line(&s->vm, "during ok", 40000, line, sizeof(line)))
		fail_msg("no status during the stroke");
	if (!strstr(line, "contacts=1"))
		fail_msg("during the stroke: %s", line);
	vm_case_expect(s, "closed", 5000);
	vm_case_expect(s, "alive", 2000);
	if (vm_expect_line(&s->vm, "after ok", 5000, line, sizeof(line)))
		fail_msg("no status after the unplug");
	if (!strstr(line, "contacts=0"))
		fail_msg("after the unplug: %s", line);
	vm_case_expect(s, "tapped", 10000);
	vm_case_expect(s, "up at 260,210", 5000);
	expect_exit(s);
}

/* A node that fbripple may not open yet (udev applying its ACL late) is opened once its
 * permissions change: fbripple runs as a user, the new node is root's until a chmod. Each
 * refusal says who may open it: root alone, then the group input, as Debian's udev sets it. */
static void test_permissions_later(void **state)
{
	struct vm_suite *s = vm_case_begin(state);

	write_conf(0, "");
	start_case(s, "permissions granted late", PRELUDE
		"printf 'root:x:0:0::/root:/bin/sh\\nkiosk:x:1000:1000::/tmp:/bin/sh\\n' >/etc/passwd\n"
		"printf 'root:x:0:\\ninput:x:101:\\nkiosk:x:1000:\\n' >/etc/group\n"
		"chmod 666 /dev/fb0; chmod 644 /etc/fbripple.conf /usr/share/fbvm/checker.png\n"
		"su kiosk -s /bin/sh -c 'exec /usr/bin/fbripple -v' >/tmp/log 2>&1 4>&- & pid=$!\n"
		"waitlog ' 640x480 ' || { say 'fbripple did not start:'; say \"$(cat /tmp/log)\"; }\n"
		"mkdev mt 'fbvm late acl' 0 639 0 479\n"
		"node=$(grep -o '/dev/input/event[0-9]*' /tmp/dev.out | tail -n 1)\n"
		"waitlog \"$node: Permission denied (owned by root:root, mode 600: only root may open"
		" it); retrying\" && say refused\n"
		"chgrp input $node; chmod 660 $node\n"
		"waitlog \"$node: Permission denied (owned by root:input, mode 660: fbripple's user"
		" needs to be in group input); retrying\" && say hinted\n"
		"chmod 666 $node\n"
		"waitlog 'fbvm late acl' && say opened\n"
		"echo 'tap 100 400' >&4; waitlog 'down at 100,400' && say tapped\n"
		"finish\n", NULL);
	vm_case_expect(s, "refused", 40000);
	vm_case_expect(s, "hinted", 5000);
	vm_case_expect(s, "opened", 5000);
	vm_case_expect(s, "tapped", 5000);
	expect_exit(s);
}

/* The guest's first phase of test_flood: a daemon at its usual log level (every contact a debug
 * line would measure the log, not the loop) under rain heavy enough to keep the water as busy
 * as the chatter will (so that the frames cost the same), at 15 fps without light (so that a
 * busy frame under TCG leaves room in its period: what is measured is the input's cost, not the
 * renderer's); status asked 20 times in 2 s (ctlping) before a panel chatters and twice while
 * it does, its RSS between. The panel's writer is niced, as a controller's interrupts would not
 * take the daemon's CPU. */
#define CHATTER \
	"rss() { grep VmRSS /proc/$pid/status | tr -s ' ' | cut -d' ' -f2; }\n" \
	"mkdev mt 'fbvm chatter' 0 639 0 479; echo 'nice 19' >&4\n" \
	"{ sed 's/rate = 30.0/rate = 300.0/; s/fps = 30/fps = 15/' /etc/fbripple.conf;" \
	" echo 'water = { light = 0.0; };'; } >/tmp/chatter.conf\n" \
	"/usr/bin/fbripple -c /tmp/chatter.conf >/tmp/log 2>&1 4>&- & pid=$!\n" \
	"waitlog 'fbvm chatter' || say 'chatter panel not opened'; sleep 1.2\n" \
	"r0=$(rss); say \"calm $(/bin/ctlping /tmp/ctl 20 100)\"\n" \
	"printf 'chatter 6000\\n' >&4; sleep 1; r1=$(rss)\n" \
	"say \"chatter1 $(/bin/ctlping /tmp/ctl 20 100)\"\n" \
	"say \"chatter2 $(/bin/ctlping /tmp/ctl 20 100)\"; r2=$(rss)\n" \
	"while ! grep -q 'chatter [0-9]' /tmp/dev.out; do sleep 0.05; done; sleep 0.3\n" \
	"say \"$(grep 'chatter [0-9]' /tmp/dev.out)\"\n" \
	"say \"rss $r0 $r1 $r2 $(rss) kB; drops $(grep -c 'events dropped' /tmp/log)\"\n" \
	"grep 'events dropped' /tmp/log | while read -r l; do say \"note $l\"; done\n" \
	"kill $pid; wait $pid; say \"chatter fbripple exit $?\"; exec 4>&-; wait\n" \
	"rm -f /tmp/log /tmp/dev.out\n"

/* One ctlping line: replies ok, round trips and frame rates. */
struct ping {
	int ok, count;
	double median_ms, p90_ms, max_ms, fps, fps_min, late_ms;
};

static struct ping expect_ping(struct vm_suite *s, const char *phase)
{
	char want[64], line[512];
	struct ping p = { 0 };

	snprintf(want, sizeof(want), "%s ctlping:", phase);
	if (vm_expect_line(&s->vm, want, 30000, line, sizeof(line)))
		fail_msg("no status round trips %s", phase);
	if (sscanf(strstr(line, "ctlping:"), "ctlping: %d of %d ok, ms median %lf p90 %lf max %lf, "
		   "fps median %lf min %lf, sleeps late by %lf", &p.ok, &p.count, &p.median_ms,
		   &p.p90_ms, &p.max_ms, &p.fps, &p.fps_min, &p.late_ms) != 8)
		fail_msg("%s", line);
	printf("# vm: %s\n", line);
	return p;
}

/* Why a round of status requests during the chatter misses the bounds, or NULL; the frame rate
 * only where the guest kept it before the chatter. */
static const char *chatter_miss(const struct ping *calm, const struct ping *busy, bool fps,
				char *why, size_t len)
{
	if (busy->median_ms > 100 || busy->max_ms > 2000)
		snprintf(why, len, "status took %.1f ms (median), %.1f ms at most", busy->median_ms,
			 busy->max_ms);
	else if (fps && busy->fps < 0.9 * calm->fps)
		snprintf(why, len, "the frame rate fell from %.1f to %.1f", calm->fps, busy->fps);
	else
		return NULL;
	return why;
}

/*
 * Issue 25 item 3: a panel that chatters. While a controller reports touch-downs, moves all
 * over the panel and touch-ups far faster than the water takes them (overflowing the daemon's
 * event buffer: SYN_DROPPED), every status is answered, within 100 ms, the frame rate holds
 * within 10% and the RSS stays flat. Every request of every round must be answered within
 * ctlping's 5 s. The other bounds have margins for TCG on a loaded 2-core host, which stops the
 * whole guest now and then for a few hundred ms, with or without the chatter: round trips are
 * judged by their median (as in test_service) and the slowest may take 2 s; one of the two
 * rounds during the chatter must keep them; the frame rate is judged only when the guest kept
 * 90% of its 15 fps before the chatter. The input path before issue 25 left a request
 * unanswered for 5 s in the first round, run after run.
 */
static void check_chatter(struct vm_suite *s)
{
	struct ping calm = expect_ping(s, "calm"), busy[2];
	bool judge_fps = calm.fps >= 0.9 * 15;
	char why[2][128], line[512];
	const char *miss[2];
	long r0 = 0, r1 = 0, r2 = 0, r3 = 0;
	int drops = 0;

	for (int i = 0; i < 2; i++) {
		busy[i] = expect_ping(s, i ? "chatter2" : "chatter1");
		miss[i] = chatter_miss(&calm, &busy[i], judge_fps, why[i], sizeof(why[i]));
	}
	if (vm_expect_line(&s->vm, "uinput-dev: chatter", 20000, line, sizeof(line)))
		fail_msg("the panel did not chatter");
	printf("# vm: %s\n", line + 12);
	if (vm_expect_line(&s->vm, "rss ", 10000, line, sizeof(line)) ||
	    sscanf(line, "rss %ld %ld %ld %ld kB; drops %d", &r0, &r1, &r2, &r3, &drops) != 5)
		fail_msg("no RSS figures from the guest");
	printf("# vm: chatter: fps %.1f before, %.1f and %.1f during%s; status median %.1f ms "
	       "before, %.1f and %.1f during, slowest %.1f and %.1f; VmRSS %ld kB before, %ld 1 s "
	       "in, %ld 5 s in, %ld after; %d notes of dropped events\n", calm.fps, busy[0].fps,
	       busy[1].fps, judge_fps ? "" : " (not judged: the guest was short of CPU before)",
	       calm.median_ms, busy[0].median_ms, busy[1].median_ms, busy[0].max_ms,
	       busy[1].max_ms, r0, r1, r2, r3, drops);
	vm_case_expect(s, "chatter fbripple exit 0", 10000);
	if (calm.ok != calm.count || busy[0].ok != busy[0].count || busy[1].ok != busy[1].count)
		fail_msg("status requests failed or were not answered within 5 s: %d of %d before "
			 "the chatter, %d and %d of %d during", calm.count - calm.ok, calm.count,
			 busy[0].count - busy[0].ok, busy[1].count - busy[1].ok, busy[0].count);
	if (miss[0] && miss[1])
		fail_msg("under the chatter: %s; then %s", miss[0], miss[1]);
	if (r3 - r1 > 256 || r3 - r0 > 1024)
		fail_msg("the RSS grew under the chatter: %ld, %ld, %ld, %ld kB", r0, r1, r2, r3);
	if (drops < 1)
		fail_msg("the chatter never overflowed the daemon's event buffer (no SYN_DROPPED)");
}

/* 10,000 events a second from one panel for 2 s: the frame rate (from "status") holds, and the
 * contact ends where the flood left it. Then a stopped fbripple misses a stroke's middle
 * (SYN_DROPPED) and still ends the contact at the stroke's last position. First, in the same
 * guest, a panel that chatters (check_chatter). */
static void test_flood(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char line[512];
	double calm_fps, flood_fps;

	write_conf(0, "rain = { enabled = true; rate = 30.0; };");
	start_case(s, "chatter, and a flood of 10,000 events/s", PRELUDE CHATTER
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"printf 'down 0 450 350\\nsync\\n' >&4; sleep 1.5\n"
		"say \"calm $(/usr/bin/fbripple --send status)\"\n"
		"printf 'flood 6667 10000 450 350\\n' >&4\n"
		"sleep 1.2; say \"flood $(/usr/bin/fbripple --send status)\"\n"
		"while ! grep -q flood /tmp/dev.out; do sleep 0.05; done; grep flood /tmp/dev.out | while read -r l; do say \"$l\"; done\n"
		"printf 'up 0\\nsync\\n' >&4; waitlog 'up at' && say \"$(grep -c 'down at' /tmp/log) downs\"\n"
		"printf 'down 1 100 100\\nsync\\n' >&4; waitlog 'down at 100,100'; kill -STOP $pid\n"
		"# every thread stopped (the input reader too) before the flood\n"
		"for t in /proc/$pid/task/*; do n=0; while ! grep -q 'T (stopped)' $t/status &&"
		" [ $n -lt 200 ]; do sleep 0.01; n=$((n+1)); done; done\n"
		"printf 'flood 1000 100000 150 120\\nup 1\\nsync\\nsay flooded\\n' >&4\n"
		"while ! grep -q flooded /tmp/dev.out; do sleep 0.05; done\n"
		"kill -CONT $pid; waitlog 'up at 1'\n"
		"grep -q 'events dropped' /tmp/log && say dropped\n"
		"say \"$(grep -c 'down at' /tmp/log) downs in all\"\n"
		"finish\n", NULL);
	check_chatter(s);
	if (vm_expect_line(&s->vm, "calm ok", 40000, line, sizeof(line)))
		fail_msg("no status before the flood");
	calm_fps = atof(strstr(line, "fps=") + 4);
	if (vm_expect_line(&s->vm, "flood ok", 20000, line, sizeof(line)))
		fail_msg("no status during the flood");
	flood_fps = atof(strstr(line, "fps=") + 4);
	if (vm_expect_line(&s->vm, "uinput-dev: flood 20001 events", 20000, line, sizeof(line)))
		fail_msg("the flood did not run");
	/* measured and reported, not asserted: a loaded TCG guest has no steady frame rate */
	printf("# vm: %s; fps %.1f with water moving, %.1f during the flood\n", line + 12,
	       calm_fps, flood_fps);
	vm_case_expect(s, "1 downs", 10000);
	vm_case_expect(s, "dropped", 10000);
	vm_case_expect(s, "2 downs in all", 2000);
	vm_case_expect(s, "up at 450,350", 5000);
	vm_case_expect(s, "up at 150,120", 2000);
	expect_exit(s);
}

/* eGalax firmware that declares ABS_X/Y 0..4095 but reports on ABS_Z and ABS_RX: out of the
 * box the tap at (1280, 2560) of 4096 rings at pixel (200, 300), and the log says once why. */
static void test_egalax_axes(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char line[512];

	write_conf(0, "");
	start_case(s, "eGalax reporting on ABS_Z/ABS_RX", PRELUDE
		"mkdev egalax 'fbvm egalax' 0 4095 0 4095\n"
		"start; waitlog 'fbvm egalax' || say 'panel not opened'\n"
		"say ready; hear cmd\n"
		"echo 'tap 1280 2560' >&4; sleep 0.1; say acted; hear cmd\n"
		"echo 'tap 640 640' >&4; waitlog 'down at 100,75' && say 'second tap'\n"
		"say \"notes $(grep -c 'reports touches on ABS_Z and ABS_RX' /tmp/log)\"\n"
		"finish\n", NULL);
	tap_and_measure(s, 200, 300, "eGalax tap", NULL);
	vm_case_expect(s, "second tap", 10000);
	vm_case_expect(s, "notes 1", 2000);
	if (vm_expect_line(&s->vm, "reports touches on ABS_Z", 5000, line, sizeof(line)))
		fail_msg("the log does not say which axes the panel uses");
	vm_case_expect(s, "down at 200,300", 5000);
	expect_exit(s);
}

/* Frames made 100 ms slower on purpose (FBRIPPLE_TEST_FRAME_MS) while rain keeps them coming:
 * a 5-finger panel at 250 reports a second (16 events each: 128 ms fill the kernel's 512-event
 * buffer), then a 500 Hz mouse (85 ms fill its 128), must not overflow (no "events dropped"):
 * each finger ends where it was lifted, and the click after 1000 motions lands where they led
 * (relative motion lost in an overflow is lost for good). */
static void test_slow_frames(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char line[512], drops[64];

	write_conf(0, "rain = { enabled = true; rate = 30.0; };");
	start_case(s, "slow frames, busy devices", PRELUDE
		"FBRIPPLE_TEST_FRAME_MS=100 /usr/bin/fbripple -v >/tmp/log 2>&1 4>&- & pid=$!\n"
		"waitlog ' 640x480 ' || say 'fbripple did not start'\n"
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"waitlog 'fbvm panel' || say 'panel not opened'\n"
		"printf 'fingers 5 250 400\\n' >&4\n"
		"waitlog 'up at 577,439'; grep 'up at' /tmp/log | while read -r l; do say \"$l\"; done\n"
		"grep 'fingers' /tmp/dev.out | while read -r l; do say \"$l\"; done\n"
		"say \"panel drops $(grep -c 'events dropped' /tmp/log)\"\n"
		"mkdev mouse 'fbvm mouse'; waitlog 'fbvm mouse' || say 'mouse not opened'\n"
		"printf 'rels 300 500 1 0\\nrels 500 500 -1 0\\nrels 200 500 1 1\\nbtn 1\\nbtn 0\\n' >&4\n"
		"n=0; while [ \"$(grep -c 'down at' /tmp/log)\" -lt 6 ] && [ $n -lt 300 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"grep 'motions' /tmp/dev.out | while read -r l; do say \"$l\"; done\n"
		"say \"click $(grep 'down at' /tmp/log | tail -n 1)\"\n"
		"say \"drops in all $(grep -c 'events dropped' /tmp/log)\"\n"
		"grep 'shown' /tmp/log | while read -r l; do say \"latency $l\"; done\n"
		"finish\n", NULL);
	for (int i = 0; i < 5; i++) {
		char want[32];

		snprintf(want, sizeof(want), "up at %d,439", 65 + 128 * i);
		vm_case_expect(s, want, i ? 2000 : 60000);
	}
	if (vm_expect_line(&s->vm, "uinput-dev: 5 fingers", 5000, line, sizeof(line)) == 0)
		printf("# vm: %s\n", line + 12);
	vm_case_expect(s, "panel drops 0", 5000);
	if (vm_expect_line(&s->vm, "click", 30000, line, sizeof(line)))
		fail_msg("no click");
	if (vm_expect_line(&s->vm, "drops in all", 2000, drops, sizeof(drops)))
		fail_msg("no count of drops");
	printf("# vm: %s; %s\n", line, drops);
	if (!strstr(line, "down at 320,440"))
		fail_msg("the click landed elsewhere than (320, 440): %s", line);
	if (strcmp(drops, "drops in all 0") != 0)
		fail_msg("%s", drops);
	expect_exit(s);
}

/* From a tap's event to the first frame that shows its stone, as the daemon measures it
 * ("a touch shown N ms after its event", CLOCK_MONOTONIC on both ends), at 30 fps: ten taps,
 * the first ones onto calm water (the frame timer starts), the later onto moving water. */
static void test_latency(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	double ms[16], sum = 0, lo = 1e9, hi = 0;
	char line[512];
	int n = 0;

	write_conf(0, "");
	start_case(s, "input latency", PRELUDE
		"mkdev mt 'fbvm panel' 0 639 0 479\n"
		"start; waitlog 'fbvm panel' || say 'panel not opened'\n"
		"for i in 0 1 2 3 4 5 6 7 8 9; do echo \"tap $((60 + 50 * i)) 240\" >&4; sleep 0.4;"
		" done; sleep 0.5\n"
		"grep 'shown' /tmp/log | while read -r l; do say \"latency $l\"; done; say done\n"
		"finish\n", NULL);
	while (n < 16 && vm_expect_line(&s->vm, "latency", 60000, line, sizeof(line)) == 0) {
		const char *p = strstr(line, "shown ");

		if (!p)
			break;
		ms[n] = atof(p + 6);
		sum += ms[n];
		lo = ms[n] < lo ? ms[n] : lo;
		hi = ms[n] > hi ? ms[n] : hi;
		n++;
		if (n == 10)
			break;
	}
	if (n < 10)
		fail_msg("%d latency figures of 10", n);
	printf("# vm: latency from event to frame at 30 fps (%.1f ms a frame): min %.1f, mean %.1f, "
	       "max %.1f ms over %d taps:", 1000.0 / 30, lo, sum / n, hi, n);
	for (int i = 0; i < n; i++)
		printf(" %.1f", ms[i]);
	printf("\n");
	vm_case_expect(s, "done", 5000);
	expect_exit(s);
}

/* ---- beside a kiosk application (screensaver.mode = "idle") ---- */

/* The kiosk app's picture (tests/vm/kioskapp.c): R x*255/(W-1), G y*255/(H-1), B 0x80; the
 * DRM app's (tests/vm/drmapp.c) has B 0x40. */
#define KIOSKAPP_BLUE 0x80
#define DRMAPP_BLUE 0x40
static uint32_t app_pixel(int x, int y, uint32_t blue)
{
	return (uint32_t)(x * 255 / (W - 1)) << 16 | (uint32_t)(y * 255 / (H - 1)) << 8 | blue;
}

/* 0 when img is the app's picture to the last pixel; else how many pixels differ. ctx: the
 * app's blue (a const uint32_t *), NULL for kioskapp's. */
static int check_app_picture(const struct image *img, void *ctx, char *why, size_t len)
{
	uint32_t blue = ctx ? *(const uint32_t *)ctx : KIOSKAPP_BLUE;
	int n = 0, fx = -1, fy = -1;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			if ((img->pixels[y * W + x] & 0xffffff) != app_pixel(x, y, blue) &&
			    n++ == 0) {
				fx = x;
				fy = y;
			}
	if (n)
		snprintf(why, len, "%d pixels are not the app's picture, the first (%d, %d) is "
			 "%06x, not %06x", n, fx, fy, img->pixels[fy * W + fx] & 0xffffff,
			 app_pixel(fx, fy, blue));
	return n;
}

/* The opposite: the water moves over the app's picture. */
static int check_rippled(const struct image *img, void *ctx, char *why, size_t len)
{
	char ignored[160];
	int n = check_app_picture(img, ctx, ignored, sizeof(ignored));

	if (n < 100)
		snprintf(why, len, "only %d pixels differ from the app's picture: no ripples", n);
	return n < 100;
}

static void expect_picture(struct vm_suite *s, const char *when, const uint32_t *blue)
{
	long t0 = vm_now_ms();

	vm_case_wait_screen(s, 5000, check_app_picture, (void *)blue);
	printf("# vm: %s: the screendump is the app's picture exactly (%dx%d, after %ld ms)\n",
	       when, W, H, vm_now_ms() - t0);
}

static void expect_app_picture(struct vm_suite *s, const char *when)
{
	expect_picture(s, when, NULL);
}

/* The case says line; then the screen is the app's picture exactly (picture names the moment)
 * or, with picture NULL, rippled; then the case goes on. blue: as check_app_picture's ctx. */
static void expect_app_step(struct vm_suite *s, const char *line, const char *picture,
			    const uint32_t *blue)
{
	vm_case_expect(s, line, 20000);
	if (picture)
		expect_picture(s, picture, blue);
	else
		vm_case_wait_screen(s, 5000, check_rippled, (void *)blue);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
}

static void expect_step(struct vm_suite *s, const char *line, const char *picture)
{
	expect_app_step(s, line, picture, NULL);
}

/* Item 7 of the kiosk issue, in one boot: an fbdev app on tty1 (kioskapp: a known picture,
 * counting touch-downs read without grabbing, watching the control socket) and fbripple in
 * idle mode with display.vt = 7. Taps while hidden reach the app and show nothing; hidden it
 * costs no CPU for 10 s; after "after" the screen is the app's picture exactly on tty7; a
 * drop ripples it; a tap then does not reach the app, and after the fade the screen is the
 * app's picture exactly with tty1 in front; show/hide from a client; the watcher's events. */
static void test_beside_a_kiosk_app(void **state)
{
	static const uint32_t drmapp_blue = DRMAPP_BLUE;
	struct vm_suite *s = vm_case_begin(state);
	unsigned long u0 = 0, s0 = 0, u1 = 0, s1 = 0;
	char line[512];

	write_conf_text("display = { device = \"/dev/fb0\"; vt = 7; fps = 30; };\n"
			"splash = { image = \"@screen\"; };\n"
			"screensaver = { mode = \"idle\"; after = 12; fade = 0.5; };\n"
			"control = { socket = \"/tmp/ctl\"; };\n");
	start_case(s, "beside a kiosk app", PRELUDE
		"vt() { /bin/vtstate /dev/tty$1 | sed 's/.*active=/active=/'; }\n"
		"guards() { grep -ls fbripple-guard /proc/[0-9]*/comm | wc -l; }\n"
		"noguard() { n=0; while [ $(guards) -gt 0 ] && [ $n -lt 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; }\n"
		"mkdev mt 'kiosk panel' 0 639 0 479\n"
		"/bin/kioskapp /dev/tty1 'kiosk panel' /tmp/ctl >/tmp/app.out 2>&1 4>&- & app=$!\n"
		"n=0; while ! grep -q drawn /tmp/app.out && [ $n -lt 100 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"say \"app $(cat /tmp/app.out) $(vt 1)\"; hear cmd\n"
		"/usr/bin/fbripple -v >/tmp/log 2>&1 4>&- & pid=$!\n"
		"waitlog 'kiosk panel' || say 'panel not opened'\n"
		"echo 'tap 100 100' >&4; sleep 0.5\n"
		"say \"tapped hidden count=$(cat /tmp/app.count)"
		" $(/usr/bin/fbripple --send status | grep -o 'screensaver=[a-z]*') $(vt 1)\"\n"
		"say \"frames $(/usr/bin/fbripple --send status | grep -o 'frames=[0-9]*')\"\n"
		"sleep 1; t0=$(cut -d' ' -f14,15 /proc/$pid/stat); sleep 10;"
		" t1=$(cut -d' ' -f14,15 /proc/$pid/stat)\n"
		"/bin/fbfill -b 4000 >/tmp/black & w=$!\n"
		"say \"hidden cpu $t0 $t1\"; hear cmd\n"
		"waitlog 'screensaver: shown' || { say 'not shown'; tail -n 3 /tmp/log |"
		" while read -r l; do say \"log $l\"; done; say \"$(/bin/vtstate /dev/tty7)\";"
		" for t in /proc/$pid/task/*; do say \"wchan $(cat $t/wchan) $(cat $t/stat)\"; done; }\n"
		"wait $w; say \"shown $(vt 7) $(cat /tmp/black)\"; hear cmd\n"
		"/usr/bin/fbripple --send 'drop 320 240' >/dev/null; say dropped; hear cmd\n"
		"/bin/fbfill -b 2000 >/tmp/black & w=$!; sleep 0.2\n"
		"echo 'tap 500 400' >&4; waitlog 'screensaver: hidden' || say 'not hidden'\n"
		"wait $w; say \"hidden count=$(cat /tmp/app.count) $(vt 1) $(cat /tmp/black)\";"
		" hear cmd\n"
		"say \"client show: $(/usr/bin/fbripple --send show) $(vt 7)\"\n"
		"say \"client hide: $(/usr/bin/fbripple --send hide)\"; sleep 1\n"
		"say \"client hidden $(vt 1)\"\n"
		"say \"events $(tr '\\n' ',' </tmp/app.events)\"\n"
		/* a finger that wakes it and stays down past the fade: its move and its lift
		 * stay fbripple's, the next tap is the app's */
		"/usr/bin/fbripple --send show >/dev/null; sleep 0.5; c0=$(cat /tmp/app.count)\n"
		"l0=$(cat /tmp/app.lifts); printf 'down 0 500 400\\nsync\\n' >&4\n"
		"n=0; until [ $(grep -c 'screensaver: hidden' /tmp/log) -ge 3 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done\n"
		"printf 'move 0 520 410\\nsync\\n' >&4; sleep 0.2; printf 'up 0\\nsync\\n' >&4; sleep 0.3\n"
		"say \"held through the hide: touches $((`cat /tmp/app.count` - c0))"
		" lifts $((`cat /tmp/app.lifts` - l0)) $(vt 1)\"; hear cmd\n"
		"echo 'tap 100 100' >&4; sleep 0.3\n"
		"say \"tap after the lift: touches $((`cat /tmp/app.count` - c0))"
		" lifts $((`cat /tmp/app.lifts` - l0))\"\n"
		/* a finger on the app when fbripple shows itself: the app still sees it lifted */
		"printf 'down 0 300 300\\nsync\\n' >&4; sleep 0.2; /usr/bin/fbripple --send show >/dev/null\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/log) -ge 4 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done\n"
		"printf 'up 0\\nsync\\n' >&4; sleep 0.3\n"
		"say \"lifted after the show: touches $((`cat /tmp/app.count` - c0))"
		" lifts $((`cat /tmp/app.lifts` - l0))\"\n"
		"echo 'tap 200 200' >&4\n"
		"n=0; until [ $(grep -c 'screensaver: hidden' /tmp/log) -ge 4 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; sleep 0.3\n"
		"say \"then a tap hides it: touches $((`cat /tmp/app.count` - c0))"
		" lifts $((`cat /tmp/app.lifts` - l0)) $(vt 1)\"\n"
		/* a palm resting on the panel through the hide keeps the device from the app for
		 * 3 s, no longer: its lift after that is the app's */
		"/usr/bin/fbripple --send show >/dev/null\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/log) -ge 5 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; l0=$(cat /tmp/app.lifts)\n"
		"printf 'down 0 100 400\\nsync\\n' >&4\n"
		"n=0; until [ $(grep -c 'screensaver: hidden' /tmp/log) -ge 5 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; sleep 1\n"
		"printf 'move 0 110 400\\nsync\\n' >&4; sleep 0.3; printf 'up 0\\nsync\\n' >&4; sleep 0.3\n"
		"say \"palm for 1 s: lifts $((`cat /tmp/app.lifts` - l0))\"\n"
		"/usr/bin/fbripple --send show >/dev/null\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/log) -ge 6 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; l0=$(cat /tmp/app.lifts)\n"
		"printf 'down 0 100 400\\nsync\\n' >&4\n"
		"n=0; until [ $(grep -c 'screensaver: hidden' /tmp/log) -ge 6 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; sleep 3.2\n"
		"printf 'move 0 130 400\\nsync\\n' >&4; sleep 0.3; printf 'up 0\\nsync\\n' >&4; sleep 0.3\n"
		"say \"palm for 3 s: lifts $((`cat /tmp/app.lifts` - l0))\"\n"
		"grep -E 'screensaver|warn' /tmp/log | while read -r l; do say \"log $l\"; done\n"
		"kill $pid; wait $pid; say \"fbripple exit $?\"\n"
		/* killed while shown over the app's framebuffer, as systemd's watchdog kills: SIGABRT
		 * to the daemon and its guard alike; the guard outlives it and writes its frame back */
		"/usr/bin/fbripple -v >/tmp/log5 2>&1 4>&- & pid=$!\n"
		"n=0; until /usr/bin/fbripple --send status >/dev/null 2>&1 || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done\n"
		"/usr/bin/fbripple --send show >/dev/null; waitlog5() { n=0; until grep -q \"$1\" /tmp/log5"
		" || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; }; waitlog5 'screensaver: shown'\n"
		"/usr/bin/fbripple --send 'drop 320 240' >/dev/null; sleep 0.3\n"
		"kill -ABRT $pid $(grep -ls fbripple-guard /proc/[0-9]*/comm | cut -d/ -f3); wait $pid;"
		" say \"fbdev aborted: exit $?\"\n"
		"n=0; until /bin/vtstate /dev/tty7 | grep -q 'kd=text switching=auto' || [ $n -ge 200 ];"
		" do sleep 0.05; n=$((n+1)); done\n"
		"say \"fbdev killed: $(vt 1) $(/bin/vtstate /dev/tty7 | grep -o 'kd=[a-z]* switching=[a-z]*')\";"
		" hear cmd\n"
		/* on the app's own VT (display.vt = 0), woken by command only */
		"printf 'display = { device = \"/dev/fb0\"; };\\nsplash = { image = \"@screen\"; };\\n"
		"screensaver = { mode = \"idle\"; after = 2; wake = \"command\"; };\\n"
		"control = { socket = \"/tmp/ctl3\"; };\\n' >/tmp/cmd.conf\n"
		"ctl3() { /usr/bin/fbripple -c /tmp/cmd.conf --send \"$1\"; }\n"
		"/usr/bin/fbripple -v -c /tmp/cmd.conf >/tmp/log3 2>&1 4>&- & pid=$!\n"
		"n=0; until grep -q 'screensaver: shown' /tmp/log3 || [ $n -ge 160 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"say \"same vt: $(ctl3 status | grep -o 'screensaver=[a-z]*') $(vt 1)\"; hear cmd\n"
		"echo 'tap 320 240' >&4; sleep 0.5\n"
		"say \"command tap: $(ctl3 status | grep -o 'screensaver=[a-z]*') count=$(cat /tmp/app.count)\";"
		" hear cmd\n"
		"say \"command hide: $(ctl3 hide)\"\n"
		"n=0; until grep -q 'screensaver: hidden' /tmp/log3 || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"say \"command hidden: $(ctl3 status | grep -o 'screensaver=[a-z]*') $(vt 1)\"; hear cmd\n"
		/* stopped while shown there: the app's frame back, the frame's guard gone with it */
		"ctl3 show >/dev/null\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/log3) -ge 2 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done\n"
		"ctl3 'drop 320 240' >/dev/null; sleep 0.3; say \"same vt guards=$(guards)\"\n"
		"kill $pid; wait $pid; say \"fbripple3 exit $? guards=$(guards)\"; hear cmd\n"
		/* killed while shown there: no VT of its own to give back, the frame still is */
		"/usr/bin/fbripple -v -c /tmp/cmd.conf >/tmp/log3 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl3 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"ctl3 show >/dev/null; n=0; until grep -q 'screensaver: shown' /tmp/log3 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"ctl3 'drop 320 240' >/dev/null; sleep 0.3; kill -9 $pid; wait $pid; noguard\n"
		"say \"same vt killed: $(vt 1) guards=$(guards)\"; hear cmd\n"
		/* DRM, as display.device "auto" finds the bochs card, beside the same fbdev app:
		 * hidden, the app's screen stays on the CRTC; shown, its frame is read from
		 * /dev/fb0; hidden again, the CRTC is the app's once more */
		"printf 'display = { vt = 7; };\\nsplash = { image = \"@screen\"; };\\n"
		"screensaver = { mode = \"idle\"; after = 3; };\\ncontrol = { socket = \"/tmp/ctl4\"; };\\n'"
		" >/tmp/drm4.conf\n"
		"ctl4() { /usr/bin/fbripple -c /tmp/drm4.conf --send \"$1\"; }\n"
		"/usr/bin/fbripple -v -c /tmp/drm4.conf >/tmp/log4 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl4 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"echo 'tap 100 100' >&4; sleep 0.3\n"
		"say \"drm hidden: $(ctl4 status | grep -o 'display=[a-z]*')"
		" $(ctl4 status | grep -o 'screensaver=[a-z]*') count=$(cat /tmp/app.count) $(vt 1)\";"
		" hear cmd\n"
		"n=0; until grep -q 'screensaver: shown' /tmp/log4 || [ $n -ge 200 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"say \"drm shown: $(ctl4 status | grep -o 'screensaver=[a-z]*') $(vt 7)\"; hear cmd\n"
		"ctl4 'drop 320 240' >/dev/null; say 'drm dropped'; hear cmd\n"
		"echo 'tap 500 400' >&4\n"
		"n=0; until grep -q 'screensaver: hidden' /tmp/log4 || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3\n"
		"say \"drm hidden again: count=$(cat /tmp/app.count) $(vt 1)\"; hear cmd\n"
		"grep -E 'screensaver|warn' /tmp/log4 | while read -r l; do say \"log4 $l\"; done\n"
		/* killed while shown: the guard brings the app's VT back */
		"ctl4 show >/dev/null\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/log4) -ge 2 ] || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; sleep 0.3\n"
		"say \"drm shown again: $(vt 7)\"\n"
		"kill -9 $pid; wait $pid; sleep 0.5\n"
		"say \"drm killed: $(vt 1) $(/bin/vtstate /dev/tty7 | grep -o 'kd=[a-z]* switching=[a-z]*')\";"
		" hear cmd\n"
		/* DRM on the app's own VT (display.vt = 0), killed while shown: the card's fbdev
		 * emulation, refreshed by the guard, shows the app's frame again */
		"printf 'splash = { image = \"@screen\"; };\\nscreensaver = { mode = \"idle\"; after = 60;"
		" wake = \"command\"; };\\ncontrol = { socket = \"/tmp/ctl6\"; };\\n' >/tmp/drm6.conf\n"
		"ctl6() { /usr/bin/fbripple -c /tmp/drm6.conf --send \"$1\"; }\n"
		"/usr/bin/fbripple -v -c /tmp/drm6.conf >/tmp/log6 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl6 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"ctl6 show >/dev/null; n=0; until grep -q 'screensaver: shown' /tmp/log6 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; ctl6 'drop 320 240' >/dev/null\n"
		"say \"drm same vt: $(ctl6 status | grep -o 'display=[a-z]*') $(vt 1)\"; hear cmd\n"
		"kill -9 $pid; wait $pid; noguard\n"
		"say \"drm same vt killed: $(vt 1) guards=$(guards)\"; hear cmd\n"
		/* started on tty7 with the app's tty1 in front in graphics mode, which ignores a
		 * plain VT switch: fbripple answers the switch for it, and does not wait for ever */
		"printf 'display = { device = \"/dev/fb0\"; vt = 7; };\\ncontrol = { socket ="
		" \"/tmp/ctl8\"; };\\n' >/tmp/plain8.conf\n"
		"timeout 10 /usr/bin/fbripple -c /tmp/plain8.conf --frames 30 >/tmp/log8 2>&1 4>&-\n"
		"say \"plain on tty7: exit $? $(vt 7)\"; chvt 1; kill $app\n"
		/* DRM: another process becomes master while fbripple is hidden */
		"printf 'display = { device = \"/dev/dri/card0\"; };\\nscreensaver = { mode = \"idle\";"
		" after = 3; };\\ncontrol = { socket = \"/tmp/ctl2\"; };\\n' >/tmp/drm.conf\n"
		"ctl2() { /usr/bin/fbripple -c /tmp/drm.conf --send \"$1\"; }\n"
		"/usr/bin/fbripple -v -c /tmp/drm.conf >/tmp/log2 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl2 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"/bin/drmhold >/tmp/hold 2>&1 & hold=$!; sleep 0.2\n"
		"n=0; until grep -q 'cannot take the screen' /tmp/log2 || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3\n"
		"say \"drm held: $(cat /tmp/hold) $(ctl2 status | grep -o 'screensaver=[a-z]*')"
		" $(grep -c 'cannot take the screen' /tmp/log2)\"\n"
		"grep 'cannot take the screen' /tmp/log2 | while read -r l; do say \"log2 $l\"; done\n"
		"kill $hold; wait $hold\n"
		"n=0; until grep -q 'screensaver: shown' /tmp/log2 || [ $n -ge 160 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"say \"drm let go: $(ctl2 status | grep -o 'screensaver=[a-z]*')\"\n"
		"kill $pid; wait $pid; say \"fbripple2 exit $?\"\n"
		/* beside a DRM application on tty1 that hands master over on its VT switches, as a
		 * compositor does: fbripple opens the card first (a user's fbripple must) */
		"printf 'display = { device = \"/dev/dri/card0\"; vt = 7; };\\nsplash = { image ="
		" \"@screen\"; };\\nscreensaver = {"
		" mode = \"idle\"; after = 60; wake = \"command\"; };\\ncontrol = { socket ="
		" \"/tmp/ctl7\"; };\\n' >/tmp/drm7.conf\n"
		"ctl7() { /usr/bin/fbripple -c /tmp/drm7.conf --send \"$1\"; }\n"
		"/usr/bin/fbripple -v -c /tmp/drm7.conf >/tmp/log7 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl7 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"/bin/drmapp /dev/tty1 >/tmp/drmapp 2>&1 4>&- & dapp=$!\n"
		"n=0; until grep -q drawn /tmp/drmapp || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"say \"drm app: $(head -1 /tmp/drmapp) $(vt 1)\"; hear cmd\n"
		/* the app says what it did from its own signal handling: waited for, not assumed */
		"applast() { n=0; until tail -n 1 /tmp/drmapp | grep -qE \"$1\" || [ $n -ge 100 ]; do"
		" sleep 0.05; n=$((n+1)); done; }\n"
		"ctl7 show >/dev/null; n=0; until grep -q 'screensaver: shown' /tmp/log7 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'release'; sleep 0.3\n"
		"say \"drm app shown: $(vt 7) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"ctl7 'drop 320 240' >/dev/null; say 'drm app dropped'; hear cmd\n"
		/* a reload that sets the display up anew while shown keeps what the show found */
		"sed -i 's/vt = 7;/vt = 7; double_buffer = \"off\";/' /tmp/drm7.conf\n"
		"say \"drm app reloaded: $(ctl7 reload)\"; hear cmd\n"
		"ctl7 hide >/dev/null; n=0; until grep -q 'screensaver: hidden' /tmp/log7 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'acquire'; sleep 0.3\n"
		"say \"drm app hidden: $(vt 1) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"say \"log7 warnings: $(grep -cE 'warn|error' /tmp/log7)\"\n"
		"grep -E 'warn|error' /tmp/log7 | while read -r l; do say \"log7 $l\"; done\n"
		"kill $pid; wait $pid; say \"fbripple7 exit $?\"\n"
		/* started after the DRM app, as root: the card without master until the show */
		"/usr/bin/fbripple -v -c /tmp/drm7.conf >/tmp/log9 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl7 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		/* the app flips: the buffer fbripple found at its start is off the screen */
		"kill -HUP $dapp; applast 'flip'\n"
		"say \"drm app first: $(ctl7 status | grep -o 'display=[a-z]*') $(vt 1)"
		" $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"ctl7 show >/dev/null; n=0; until grep -q 'screensaver: shown' /tmp/log9 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'release'; sleep 0.3\n"
		"say \"drm app first shown: $(vt 7) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"ctl7 'drop 320 240' >/dev/null; say 'drm app first dropped'; hear cmd\n"
		"sed -i 's/ double_buffer = \"off\";//' /tmp/drm7.conf\n"
		"say \"drm app first reloaded: $(ctl7 reload)\"; hear cmd\n"
		"hide9() { ctl7 hide >/dev/null; n=0; until [ $(grep -c 'screensaver: hidden' /tmp/log9)"
		" -ge $1 ] || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'acquire';"
		" sleep 0.3; }\n"
		"hide9 1; say \"drm app first hidden: $(vt 1) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"ctl7 show >/dev/null; n=0; until [ $(grep -c 'screensaver: shown' /tmp/log9) -ge 2 ] ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'release'; sleep 0.3\n"
		"say \"drm app first shown again: $(vt 7) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"hide9 2; say \"drm app first hidden again: $(vt 1) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		"say \"log9 warnings: $(grep -cE 'warn|error' /tmp/log9)\"\n"
		"grep -E 'warn|error' /tmp/log9 | while read -r l; do say \"log9 $l\"; done\n"
		/* a crash while shown: the handler puts the app's buffer back, the guard its VT */
		"ctl7 show >/dev/null; n=0; until [ $(grep -c 'screensaver: shown' /tmp/log9) -ge 3 ] ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'release'; sleep 0.3\n"
		"kill -SEGV $pid; wait $pid; say \"fbripple9 exit $?\"; applast 'acquire'; sleep 0.3\n"
		"say \"drm app after a crash: $(vt 1) $(tail -1 /tmp/drmapp)\"; hear cmd\n"
		/* the app killed while shown, its buffers removed with it: the hide cannot put
		 * the CRTC back as found (the kernel refuses a removed buffer) and says so */
		"/usr/bin/fbripple -v -c /tmp/drm7.conf >/tmp/log10 2>&1 4>&- & pid=$!\n"
		"n=0; until ctl7 status >/dev/null 2>&1 || [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"ctl7 show >/dev/null; n=0; until grep -q 'screensaver: shown' /tmp/log10 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done; applast 'release'; sleep 0.3\n"
		"kill -KILL $dapp; wait $dapp\n"
		"ctl7 hide >/dev/null; n=0; until grep -q 'screensaver: hidden' /tmp/log10 ||"
		" [ $n -ge 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"say \"drm app gone: warned $(grep -c 'release: the screen cannot be put back as it"
		" was found' /tmp/log10)\"; hear cmd\n"
		"kill $pid; wait $pid; say \"fbripple10 exit $?\"\n"
		"exec 4>&-; wait\n", NULL);

	vm_case_expect(s, "app drawn 640x480 active=1", 40000);
	expect_app_picture(s, "before fbripple");
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	vm_case_expect(s, "tapped hidden count=1 screensaver=hidden active=1", 20000);
	vm_case_expect(s, "frames frames=0", 5000);
	expect_app_picture(s, "hidden, after a tap");
	if (vm_expect_line(&s->vm, "hidden cpu ", 20000, line, sizeof(line)) ||
	    sscanf(strstr(line, "hidden cpu "), "hidden cpu %lu %lu %lu %lu", &u0, &s0, &u1,
		   &s1) != 4)
		fail_msg("no CPU figure from the guest");
	printf("# vm: hidden for 10 s: %lu clock ticks of CPU (utime + stime)\n",
	       u1 + s1 - u0 - s0);
	assert_int_equal(u1 + s1, u0 + s0);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	/* the middle pixel in the framebuffer's memory, sampled through the show and the hide */
	if (vm_expect_line(&s->vm, "shown active=7 black ", 20000, line, sizeof(line)))
		fail_msg("not shown on tty7");
	printf("# vm: through the show: %s\n", strstr(line, "black "));
	assert_non_null(strstr(line, "black 0 of "));
	expect_app_picture(s, "shown on tty7");
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	vm_case_expect(s, "dropped", 10000);
	vm_case_wait_screen(s, 5000, check_rippled, NULL);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	if (vm_expect_line(&s->vm, "hidden count=", 20000, line, sizeof(line)))
		fail_msg("not hidden by the tap");
	printf("# vm: through the hide: %s\n", strstr(line, "black "));
	if (!strstr(line, "hidden count=1 active=1 black 0 of "))
		fail_msg("after the tap: %s (want the app's count 1, tty1 in front, no black)", line);
	expect_app_picture(s, "hidden again after a tap, tty1 in front");
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	vm_case_expect(s, "client show: ok shown active=7", 20000);
	vm_case_expect(s, "client hide: ok fading", 10000);
	vm_case_expect(s, "client hidden active=1", 10000);
	expect_app_picture(s, "hidden by a client");
	vm_case_expect(s, "events ok watching,event shown,event hidden,event shown,event hidden,",
		       5000);
	expect_step(s, "held through the hide: touches 0 lifts 0 active=1",
		    "hidden by a finger held past the fade");
	vm_case_expect(s, "tap after the lift: touches 1 lifts 1", 10000);
	vm_case_expect(s, "lifted after the show: touches 2 lifts 2", 10000);
	vm_case_expect(s, "then a tap hides it: touches 2 lifts 2 active=1", 10000);
	vm_case_expect(s, "palm for 1 s: lifts 0", 10000);
	vm_case_expect(s, "palm for 3 s: lifts 1", 10000);
	vm_case_expect(s, "fbripple exit 0", 15000);
	/* the watchdog's SIGABRT to daemon and guard while shown on /dev/fb0: tty1 in front and
	 * the app's picture, not the water */
	vm_case_expect(s, "fbdev aborted: exit 134", 15000);
	expect_step(s, "fbdev killed: active=1 kd=text switching=auto",
		    "killed while shown on fbdev, tty1 in front");
	/* on the app's VT, wake = command: a tap ripples and reaches not the app, only "hide"
	 * hides */
	expect_step(s, "same vt: screensaver=shown active=1", "shown on the app's own VT");
	expect_step(s, "command tap: screensaver=shown count=3", NULL);
	vm_case_expect(s, "command hide: ok fading", 10000);
	expect_step(s, "command hidden: screensaver=hidden active=1",
		    "hidden by command on the app's own VT");
	/* stopped, then killed, while shown there: the app's picture exactly either way, and the
	 * guard of its frame gone with fbripple */
	vm_case_expect(s, "same vt guards=1", 10000);
	expect_step(s, "fbripple3 exit 0 guards=0", "stopped while shown on the app's own VT");
	expect_step(s, "same vt killed: active=1 guards=0",
		    "killed while shown on the app's own VT");
	/* DRM beside the fbdev app: the app's screen while hidden (not a buffer of ours set at
	 * start), its frame exactly when shown on tty7, the app's own framebuffer back after */
	expect_step(s, "drm hidden: display=drm screensaver=hidden count=4 active=1", "hidden on DRM");
	expect_step(s, "drm shown: screensaver=shown active=7", "shown on DRM, tty7 in front");
	expect_step(s, "drm dropped", NULL);
	expect_step(s, "drm hidden again: count=4 active=1", "hidden again on DRM, tty1 in front");
	/* SIGKILL while shown: tty1 in front again and the app's picture, tty7 in text mode */
	vm_case_expect(s, "drm shown again: active=7", 10000);
	expect_step(s, "drm killed: active=1 kd=text switching=auto",
		    "killed while shown on DRM, tty1 in front");
	/* DRM on the app's own VT: rippled while shown, the app's picture exactly once killed */
	expect_step(s, "drm same vt: display=drm active=1", NULL);
	expect_step(s, "drm same vt killed: active=1 guards=0",
		    "killed while shown on DRM on the app's own VT");
	vm_case_expect(s, "plain on tty7: exit 0 active=7", 15000);
	/* DRM: while another process is master, showing fails with one line and fbripple stays
	 * hidden; once it lets go, the next idle spell shows */
	vm_case_expect(s, "drm held: master screensaver=hidden 1", 20000);
	vm_case_expect(s, "log2 fbripple: warning: /dev/dri/card0: cannot take the screen: another "
		       "process is its DRM master; staying hidden until the next idle spell", 5000);
	vm_case_expect(s, "drm let go: screensaver=shown", 20000);
	vm_case_expect(s, "fbripple2 exit 0", 15000);
	/* DRM beside a DRM application: its picture while hidden; shown, it has let master go
	 * for fbripple's water on tty7; hidden, it has master back first try and shows its own
	 * buffer again on tty1 (a compositor that found the card still held could not), which
	 * fbripple had put back on the CRTC (the console's there would flash up meanwhile) */
	/* "@screen": the app's own buffer read from the card, not /dev/fb0 (which holds
	 * kioskapp's stale picture here, of another blue) */
	expect_app_step(s, "drm app: drawn 640x480 active=1", "a DRM app on tty1, fbripple hidden",
			&drmapp_blue);
	expect_app_step(s, "drm app shown: active=7 released",
			"shown beside a DRM app, tty7 in front: calm water over its buffer",
			&drmapp_blue);
	expect_app_step(s, "drm app dropped", NULL, &drmapp_blue);
	vm_case_expect(s, "drm app reloaded: ok changed display", 20000);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	expect_app_step(s, "drm app hidden: active=1 acquired, its own buffer on screen",
			"hidden beside a DRM app, tty1 in front", &drmapp_blue);
	vm_case_expect(s, "log7 warnings: 0", 5000);
	vm_case_expect(s, "fbripple7 exit 0", 15000);
	/* root's fbripple started after the app: DRM too (it fell back to /dev/fb0, which the
	 * app does not show: its water was invisible), master taken at the show */
	expect_app_step(s, "drm app first: display=drm active=1 flipped",
			"started after a DRM app, hidden", &drmapp_blue);
	expect_app_step(s, "drm app first shown: active=7 released",
			"shown, started after a DRM app: calm water over its buffer", &drmapp_blue);
	expect_app_step(s, "drm app first dropped", NULL, &drmapp_blue);
	vm_case_expect(s, "drm app first reloaded: ok changed display", 20000);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	expect_app_step(s, "drm app first hidden: active=1 acquired, its own buffer on screen",
			"hidden, started after a DRM app, tty1 in front", &drmapp_blue);
	/* that reload's display knows the buffer on the CRTC is the app's, not the console's */
	expect_app_step(s, "drm app first shown again: active=7 released",
			"shown again after a reload: calm water over the app's buffer",
			&drmapp_blue);
	expect_app_step(s, "drm app first hidden again: active=1 acquired, its own buffer on "
			"screen", "hidden again, tty1 in front", &drmapp_blue);
	vm_case_expect(s, "log9 warnings: 0", 5000);
	/* killed by a fault while shown: the app's buffer goes back on the CRTC (the console's,
	 * or the app's from fbripple's start, would show until the app takes the card again) */
	vm_case_expect(s, "fbripple9 exit 139", 15000);
	expect_app_step(s, "drm app after a crash: active=1 acquired, its own buffer on screen",
			"after a crash while shown, tty1 in front", &drmapp_blue);
	/* the app killed while shown: what shows then is the console's to redraw (the app's VT
	 * is no longer held), so only the log is held to: one warning, the CRTC not put back */
	vm_case_expect(s, "drm app gone: warned 1", 20000);
	assert_int_equal(vm_send(&s->vm, "go"), 0);
	vm_case_expect(s, "fbripple10 exit 0", 15000);
	vm_case_expect_exit(s, 0);
}

int main(void)
{
	const char *only = getenv("FBRIPPLE_TEST_FILTER");	/* a glob of test names */

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_multitouch_offset_ranges, case_teardown),
		cmocka_unit_test_teardown(test_single_touch_hotplug, case_teardown),
		cmocka_unit_test_teardown(test_mouse, case_teardown),
		cmocka_unit_test_teardown(test_pen_tablet, case_teardown),
		cmocka_unit_test_teardown(test_virtio_tablet, case_teardown),
		cmocka_unit_test_teardown(test_calibration_90, case_teardown),
		cmocka_unit_test_teardown(test_rotated_display, case_teardown),
		cmocka_unit_test_teardown(test_unplug_mid_stroke, case_teardown),
		cmocka_unit_test_teardown(test_grab_follows_the_vt, case_teardown),
		cmocka_unit_test_teardown(test_permissions_later, case_teardown),
		cmocka_unit_test_teardown(test_flood, case_teardown),
		cmocka_unit_test_teardown(test_egalax_axes, case_teardown),
		cmocka_unit_test_teardown(test_slow_frames, case_teardown),
		cmocka_unit_test_teardown(test_latency, case_teardown),
		cmocka_unit_test_teardown(test_beside_a_kiosk_app, case_teardown),
	};

	if (only)
		cmocka_set_test_filter(only);
	return cmocka_run_group_tests_name("vm input", tests, suite_setup, suite_teardown);
}
