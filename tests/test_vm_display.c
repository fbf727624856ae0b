/* test_vm_display.c - fbripple on a real kernel's framebuffer: the splash at 16, 24 and 32 bpp,
 * rings, rotation, VT switching, and the console given back after SIGTERM, SIGSEGV and SIGKILL. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/image.h"
#include "vm/vmcase.h"

enum { W = 640, H = 480, RED = 0xff0000, GREEN = 0x00ff00, BLUE = 0x0000ff, WHITE = 0xffffff,
       YELLOW = 0xffff00 };

/*
 * The splash is 160x80 in four flat quadrants, fitted onto 640x480 over yellow: four times
 * larger, 640x320 from row 80 to 399, yellow above and below. Every channel is 00 or ff, which
 * even RGB565 shows exactly (the screendump gives f8 for ff there: tolerance 8).
 */
static const char splash_png[] = "/tmp/fbripple-vm-splash.png";

static int make_splash(void)
{
	struct image img = { 160, 80, malloc(160 * 80 * sizeof(uint32_t)) };
	int ret;

	for (int y = 0; y < 80; y++)
		for (int x = 0; x < 160; x++)
			img.pixels[y * 160 + x] = 0xff000000u | (y < 40 ? (x < 80 ? RED : GREEN)
									: (x < 80 ? BLUE : WHITE));
	ret = image_write_png(&img, splash_png);
	image_free(&img);
	return ret;
}

/* A large picture, slow to decode and scale in the emulated guest: startup takes seconds. */
static const char big_png[] = "/tmp/fbripple-vm-big.png";

static int make_big(void)
{
	enum { BW = 2400, BH = 1800 };
	struct image img = { BW, BH, malloc((size_t)BW * BH * sizeof(uint32_t)) };
	int ret;

	for (int y = 0; y < BH; y++)
		for (int x = 0; x < BW; x++)
			img.pixels[(size_t)y * BW + x] = 0xff000000u | (x * 255 / BW) << 16 |
							 (y * 255 / BH) << 8;
	ret = image_write_png(&img, big_png);
	image_free(&img);
	return ret;
}

static int setup(void **state)
{
	static const char *const extra[] = { "/tmp/fbripple-vm-splash.png=/etc/fbr/splash.png",
					     "/tmp/fbripple-vm-big.png=/etc/fbr/big.png", NULL };

	if (make_splash() < 0 || make_big() < 0)
		return -1;
	return vm_suite_setup(state, extra);
}

static int teardown(void **state)
{
	unlink(splash_png);
	unlink(big_png);
	return vm_suite_teardown(state);
}

/* Writes a text mark on tty1, starts fbripple on it with this config, says "started", then
 * does what the host says: term, segv (say how it exited), vt N, bye. */
#define CASE_SCRIPT(conf, args)                                                                \
	"mkdir -p /etc/fbr\n"                                                                  \
	"printf '%s\\n' " conf " > /etc/fbr/fbr.conf\n"                                        \
	"printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' > /dev/tty1\n"                        \
	"fbripple -c /etc/fbr/fbr.conf " args " 2>/tmp/fbr.log &\n"                            \
	"pid=$!\n"                                                                             \
	"say started\n"                                                                        \
	"while hear cmd; do\n"                                                                 \
	"  case $cmd in\n"                                                                     \
	"  term|segv) kill -$(echo $cmd | tr a-z A-Z) $pid; wait $pid; say \"exited $?\" ;;\n" \
	"  vt*) chvt ${cmd#vt}; say \"on $cmd\" ;;\n"                                          \
	"  bye) break ;;\n"                                                                    \
	"  esac\n"                                                                             \
	"done\n"                                                                               \
	"kill $pid 2>/dev/null; wait $pid\n"                                                    \
	"say \"warnings $(grep -c warning /tmp/fbr.log): $(grep warning /tmp/fbr.log)\"\n"       \
	"cat /tmp/fbr.log\n"

#define SPLASH_CONF(more)                                                                      \
	"'splash: { image = \"/etc/fbr/splash.png\"; scale = \"fit\"; background = \"#ffff00\"; };' " \
	"'water: { damping_shift = 10; };' " more

struct expect_points {
	int n;
	struct { int x, y; uint32_t colour; } p[12];
	int tol;
};

static int check_points(const struct image *img, void *ctx, char *why, size_t len)
{
	const struct expect_points *e = ctx;

	if (img->width != W || img->height != H) {
		snprintf(why, len, "screen is %dx%d, expected %dx%d", img->width, img->height, W, H);
		return -1;
	}
	for (int i = 0; i < e->n; i++)
		if (vm_check_pixel(img, e->p[i].x, e->p[i].y, e->p[i].colour, e->tol, why, len))
			return -1;
	return 0;
}

/* Quadrant middles and the letterbox, away from the centre where the rings are. */
static const struct expect_points fitted = { 8, {
	{ 80, 120, RED }, { 560, 120, GREEN }, { 80, 360, BLUE }, { 560, 360, WHITE },
	{ 320, 30, YELLOW }, { 10, 79, YELLOW }, { 630, 400, YELLOW }, { 320, 470, YELLOW } }, 0 };

/* The edges of the fitted picture: a pixel off either way and these fail. */
static const struct expect_points fitted_edges = { 6, {
	{ 5, 80, RED }, { 634, 80, GREEN }, { 5, 399, BLUE }, { 634, 399, WHITE },
	{ 5, 78, YELLOW }, { 634, 401, YELLOW } }, 0 };

/* The rings: pixels near the centre, where the four quadrants meet, show colours moved from
 * elsewhere; the corners of the picture show none of that. */
static int check_rings(const struct image *img, void *ctx, char *why, size_t len)
{
	int moved = 0;

	(void)ctx;
	if (check_points(img, (void *)&fitted, why, len))
		return -1;
	for (int y = 200; y < 280; y++)
		for (int x = 280; x < 360; x++) {
			uint32_t want = y < 240 ? (x < 320 ? RED : GREEN) : (x < 320 ? BLUE : WHITE);

			moved += !vm_colour_near(img->pixels[y * W + x] & 0xffffff, want, 8);
		}
	if (moved < 200) {
		snprintf(why, len, "only %d pixels near the drop differ from the splash", moved);
		return -1;
	}
	return 0;
}

/* The console is back: its text mark at the top, and no trace of the splash. */
static int check_console(const struct image *img, void *ctx, char *why, size_t len)
{
	int text = 0;

	(void)ctx;
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 8 * 21; x++)
			text += (img->pixels[y * img->width + x] & 0xffffff) > 0x808080;
	if (text < 60) {
		snprintf(why, len, "the console's text mark is not at the top (%d light pixels)",
			 text);
		return -1;
	}
	for (int y = 40; y < img->height; y += 37)
		for (int x = 3; x < img->width; x += 41)
			if (vm_check_pixel(img, x, y, 0x000000, 24, why, len))
				return -1;
	return 0;
}

/* Boots the case and waits for fbripple's splash on screen, fitted. */
static void start_on_splash(struct vm_suite *s, const struct vm_opts *o)
{
	vm_case_start(s, o);
	vm_case_expect(s, "started", 30000);
	vm_case_wait_screen(s, 20000, check_points, (void *)&fitted);
}

/* Tells the case script to stop fbripple and end; it must end well. */
static void end_case(struct vm_suite *s)
{
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect_exit(s, 0);
}

static void splash_case(void **state, struct vm_opts *o, int tol)
{
	struct vm_suite *s = vm_case_begin(state);
	struct expect_points points = fitted, edges = fitted_edges;

	points.tol = edges.tol = tol;
	vm_case_start(s, o);
	vm_case_expect(s, "started", 30000);
	vm_case_wait_screen(s, 20000, check_points, &points);
	vm_case_wait_screen(s, 5000, check_points, &edges);
	end_case(s);
}

static void test_splash_32bpp_bochs(void **state)
{
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "splash bochs",
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "") };

	splash_case(state, &o, 0);
}

static void test_splash_16bpp_vesa(void **state)
{
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x311, .width = W, .height = H,
			     .name = "splash vesa 16 bpp",
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "") };

	splash_case(state, &o, 8);
}

static void test_splash_24bpp_vesa(void **state)
{
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x312, .width = W, .height = H,
			     .name = "splash vesa 24 bpp",
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "") };

	splash_case(state, &o, 0);
}

static void test_drop_makes_rings(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "rings",
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "--drop 320,240") };

	vm_case_start(s, &o);
	vm_case_expect(s, "started", 30000);
	vm_case_wait_screen(s, 20000, check_rings, NULL);
	end_case(s);
}

/* Turned clockwise: the picture's left edge is at the top, its top edge on the right. The
 * logical screen is 480x640, the picture fitted to 480x240 from logical row 200 to 439. */
static void test_rotate_90(void **state)
{
	static const struct expect_points turned = { 8, {
		{ 380, 120, RED }, { 380, 360, GREEN }, { 260, 120, BLUE }, { 260, 360, WHITE },
		{ 540, 240, YELLOW }, { 100, 240, YELLOW }, { 439, 5, RED }, { 200, 474, WHITE } }, 0 };
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "rotate 90",
			     .script = CASE_SCRIPT(SPLASH_CONF("'display: { rotate = 90; };'"), "") };

	vm_case_start(s, &o);
	vm_case_expect(s, "started", 30000);
	vm_case_wait_screen(s, 20000, check_points, (void *)&turned);
	end_case(s);
}

static int check_black(const struct image *img, void *ctx, char *why, size_t len)
{
	static const struct expect_points black = { 4, {
		{ 80, 120, 0 }, { 560, 120, 0 }, { 80, 360, 0 }, { 320, 30, 0 } }, 24 };

	(void)ctx;
	return check_points(img, (void *)&black, why, len);
}

/* chvt waits for fbripple to let go of the VT: it must acknowledge, then redraw on return. */
static void test_vt_switch_and_back(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "vt switch",
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "") };

	start_on_splash(s, &o);
	assert_int_equal(vm_send(&s->vm, "vt2"), 0);
	vm_case_expect(s, "on vt2", 10000);
	vm_case_wait_screen(s, 5000, check_black, NULL);
	assert_int_equal(vm_send(&s->vm, "vt1"), 0);
	vm_case_expect(s, "on vt1", 10000);
	vm_case_wait_screen(s, 10000, check_points, (void *)&fitted);
	end_case(s);
}

static void console_case(void **state, const char *signal, const char *exited)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = signal,
			     .script = CASE_SCRIPT(SPLASH_CONF(""), "--drop 100,100") };

	start_on_splash(s, &o);
	assert_int_equal(vm_send(&s->vm, signal), 0);
	vm_case_expect(s, exited, 10000);
	vm_case_wait_screen(s, 5000, check_console, NULL);
	end_case(s);
}

/* Stopped while still loading its splash, the VT already in graphics mode: the signal must
 * wait for the loop, which then restores the console; by default it would kill us there. */
static void test_stop_during_startup(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "stop at start",
			     .script =
		"printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' > /dev/tty1\n"
		"echo 'splash: { image = \"/etc/fbr/big.png\"; };' > /tmp/big.conf\n"
		"fbripple -v -c /tmp/big.conf 2>/tmp/log & pid=$!\n"
		"n=0; while ! grep -q 'drawing on VT' /tmp/log && [ $n -lt 400 ]; do"
		" sleep 0.01; n=$((n+1)); done\n"
		"kill -TERM $pid; wait $pid; say \"exited $?\"\n"
		"hear cmd\n" };
	char line[64];

	vm_case_start(s, &o);
	if (vm_expect_line(&s->vm, "exited ", 60000, line, sizeof(line)))
		fail_msg("fbripple did not end");
	assert_string_equal(line, "exited 0");
	vm_case_wait_screen(s, 5000, check_console, NULL);
	end_case(s);
}

/* Stopped while another VT is in front: that VT's text stays on screen. */
static void test_stop_while_away_keeps_the_other_vt(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "stop while away",
			     .script = "printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' > /dev/tty2\n"
				       CASE_SCRIPT(SPLASH_CONF(""), "") };

	start_on_splash(s, &o);
	assert_int_equal(vm_send(&s->vm, "vt2"), 0);
	vm_case_expect(s, "on vt2", 10000);
	vm_case_wait_screen(s, 5000, check_console, NULL);
	assert_int_equal(vm_send(&s->vm, "term"), 0);
	vm_case_expect(s, "exited 0", 10000);
	usleep(500000);		/* a wipe would reach the screen by then (deferred I/O: ~50 ms) */
	vm_case_wait_screen(s, 1000, check_console, NULL);
	end_case(s);
}

static void test_console_back_after_sigterm(void **state)
{
	console_case(state, "term", "exited 0");
}

static void test_console_back_after_sigsegv(void **state)
{
	console_case(state, "segv", "exited 139");
}

/* A palette mode fbripple cannot draw and vesafb cannot leave: one clear line, exit 1, and the
 * console as it was. */
static void test_8bpp_refused_clearly(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x301, .width = W, .height = H,
			     .name = "vesa 8 bpp refused", .script =
		"printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' > /dev/tty1\n"
		"fbripple -c /dev/null 2>/tmp/err; say \"exit $?\"\n"
		"say \"$(grep -c . /tmp/err) line: $(cat /tmp/err)\"\n"
		"hear cmd\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "exit 1", 30000);
	vm_case_expect(s, "1 line: fbripple: error: /dev/fb0: 8 bpp (type 0, visual 3) and no 32 "
		       "or 16 bpp true-colour mode could be set", 2000);
	vm_case_wait_screen(s, 5000, check_console, NULL);
	end_case(s);
}

/* No VT to take (a serial console, or a kernel without CONFIG_VT): draw anyway, warn once. */
static void test_no_vt_draws_anyway(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "no VT",
			     .script = "rm -f /dev/tty0\n" CASE_SCRIPT(SPLASH_CONF(""), "") };

	start_on_splash(s, &o);
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect(s, "warnings 1: fbripple: warning: no virtual terminal (/dev/tty0: No such "
		       "file or directory); drawing without one", 10000);
	vm_case_expect_exit(s, 0);
}

/* vfb (640x480 at 8 bpp, 4 MB) loaded, and geometry() to say its depth, size and pan. */
#define VFB_PRELUDE                                                                          \
	"while read -r m; do case $m in */vfb.ko) insmod $m vfb_enable=1"                    \
	" videomemorysize=4194304 ;; *) insmod $m ;; esac 2>/dev/null; done"                 \
	" </etc/fbvm/vfb.modules\n"                                                          \
	"geometry() { echo \"$(cat /sys/class/graphics/fb0/bits_per_pixel) bpp"              \
	" $(cat /sys/class/graphics/fb0/virtual_size) at $(cat /sys/class/graphics/fb0/pan)\"; }\n"

/*
 * A framebuffer that pans, as legacy drivers do (vfb: 640x480 at 8 bpp, 4 MB): fbripple
 * switches it to 32 bpp and grows a second page. A VT switch away has the console put its
 * own mode back (fbcon); back on fbripple's VT its mode and pages must be fbripple's again.
 * In the same boot, idle mode beside an application that pans between two pages of its own.
 */
static void test_panning_fbdev_across_a_vt_switch(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_NONE, .name = "vfb vt switch", .script =
		VFB_PRELUDE
		"echo >/dev/tty2\n"	/* allocated now, tty2 keeps the console's mode */
		"say \"found $(cat /sys/class/graphics/fb0/name) $(geometry)\"\n"
		/* a look, and idle mode beside whatever shows 8 bpp: no depth switched */
		"fbripple --list-devices -c /dev/null >/tmp/list 2>&1; say \"list exit $?\"\n"
		"say \"list said $(head -n 1 /tmp/list)\"; say \"after list $(geometry)\"\n"
		"echo 'screensaver = { mode = \"idle\"; };' >/tmp/idle8.conf\n"
		"fbripple -c /tmp/idle8.conf 2>/tmp/idle8.log; say \"idle at 8 bpp exit $?\"\n"
		"say \"after idle $(geometry)\"\n"
		"fbripple -v -c /dev/null 2>/tmp/fbr.log & pid=$!\n"
		"n=0; until grep -q 'double buffered' /tmp/fbr.log || [ $n -ge 200 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3\n"
		"say \"running $(geometry)\"\n"
		"say \"format $(grep -o 'fbdev 640x480 [^,]*' /tmp/fbr.log)\"\n"
		"px=$(dd if=/dev/fb0 bs=4 count=1 2>/dev/null | od -An -tx1 | tr -d ' ')\n"
		"case $px in ??????ff) say 'pixel opaque' ;; *) say \"pixel $px\" ;; esac\n"
		"chvt 2; sleep 0.3; say \"away $(geometry)\"\n"
		"chvt 1; sleep 0.5; say \"back $(geometry)\"\n"
		"kill $pid; wait $pid; say \"exit $?\"\n"
		"say \"warnings $(grep -c warning /tmp/fbr.log)\"; cat /tmp/fbr.log\n"
		/* idle mode beside an application that double-buffers by panning */
		"fbfill -g -M 32x1 ff0000 && say \"app on one page: $(geometry)\"\n"
		"echo 'screensaver = { mode = \"idle\"; after = 1; };' >/tmp/idle.conf\n"
		"idle() { fbripple -v -c /tmp/idle.conf 2>/tmp/idle.log & pid=$!; n=0;"
		" until grep -q 'fbdev 640x480' /tmp/idle.log || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; }\n"
		"idle; fbfill -M 32x2 -P 480 00ff00 && say \"app on page 480: $(geometry)\"\n"
		"sleep 2; m=$(fbfill -m)\n"
		"case $m in 'middle 00ff00'|'') say \"idle not shown: $m\" ;;"
		" *) say \"idle shown on the page in front: $m\" ;; esac\n"
		"kill $pid; wait $pid; say \"idle exit $?\"\n"
		"say \"idle back: $(fbfill -m), $(geometry)\"; cat /tmp/idle.log\n"
		/* the application sets another depth meanwhile: fbripple cannot draw it */
		"idle; fbfill -M 16x1 0000ff && say \"app at $(geometry)\"; sleep 2\n"
		"grep -q 'cannot take the screen: an application set another mode since fbripple"
		" opened it' /tmp/idle.log && say 'idle refused, said why'\n"
		"say \"idle left it: $(fbfill -m)\"\n"
		"kill $pid; wait $pid; say \"idle exit $?\"; cat /tmp/idle.log\n"
		/* fbripple on one page of a mode set in graphics mode, which the console never
		 * learns: its VT switch puts the console's own back, fbripple's return its own */
		"fbfill -M 32x1 && say \"one page at $(geometry)\"\n"
		"echo 'display = { double_buffer = \"off\"; };' >/tmp/one.conf\n"
		"fbripple -v -c /tmp/one.conf 2>/tmp/one.log & pid=$!\n"
		"n=0; until grep -q 'fbdev 640x480' /tmp/one.log || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3\n"
		"chvt 2; sleep 0.3; say \"one page away $(geometry)\"\n"
		"chvt 1; sleep 0.5; say \"one page back $(geometry)\"\n"
		"kill $pid; wait $pid; say \"one page exit $?\"\n"
		"say \"one page warnings $(grep -c warning /tmp/one.log)\"; cat /tmp/one.log\n"
		/* idle mode on a VT of its own beside the panning application: there the
		 * console's switch sets the mode it keeps, and fbripple its own */
		"fbfill -g -M 32x2 -P 480 ff00ff && say \"app again at $(geometry)\"\n"
		"printf 'display = { vt = 7; };\\nscreensaver = { mode = \"idle\"; after = 1; };\\n'"
		" >/tmp/idle7.conf\n"
		"fbripple -v -c /tmp/idle7.conf 2>/tmp/idle7.log & pid=$!; sleep 2.5\n"
		"say \"vt7 shown on tty$(cat /sys/class/tty/tty0/active | tr -dc 0-9): $(geometry),"
		" $(fbfill -m)\"\n"
		"kill $pid; wait $pid; say \"vt7 exit $?\"; say \"vt7 back on tty$(cat"
		" /sys/class/tty/tty0/active | tr -dc 0-9)\"; cat /tmp/idle7.log\n"
		/* the same beside an application at 8 bpp: its depth stays while hidden */
		"idle7() { fbripple -v -c /tmp/idle7.conf 2>$1 & pid=$!; n=0;"
		" until grep -q 'fbdev 640x480' $1 || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done; }\n"
		"fbfill -g -M 8x1 && idle7 /tmp/idle78.log; sleep 0.3; say \"hidden at $(geometry)\"\n"
		"sleep 2; say \"8 bpp app, shown on tty$(cat /sys/class/tty/tty0/active | tr -dc 0-9):"
		" $(geometry)\"; kill $pid; wait $pid; say \"8 bpp app exit $?\"; cat /tmp/idle78.log\n"
		/* its VT not to be had: drawn over the application's, following its pan */
		"fbfill -g -M 32x2 -P 480 ff0000 && mv /dev/tty7 /dev/tty7.off && idle7 /tmp/idle7b.log\n"
		"fbfill -P 0 00ff00; sleep 2\n"
		"m=$(fbfill -m); [ \"$m\" = 'middle 00ff00' ] && m='the application'\"'\"'s picture'\n"
		"say \"no VT 7, shown on tty$(cat /sys/class/tty/tty0/active | tr -dc 0-9): $(geometry),"
		" $m\"\n"
		"say \"no VT 7 said $(grep -c 'drawing on the VT in front' /tmp/idle7b.log)\"\n"
		"kill $pid; wait $pid; say \"no VT 7 exit $?\"; mv /dev/tty7.off /dev/tty7\n"
		"say \"no VT 7 back: $(fbfill -m), $(geometry)\"; cat /tmp/idle7b.log\n"
		/* beside an 8 bpp application, its VT not to be had: refused, said why */
		"fbfill -g -M 8x1 && mv /dev/tty7 /dev/tty7.off && idle7 /tmp/idle7c.log; sleep 2\n"
		"grep -q 'at a depth fbripple cannot draw' /tmp/idle7c.log && w='said why' || w=silent\n"
		"say \"8 bpp, no VT 7: $(geometry), $w\"\n"
		"kill $pid; wait $pid; mv /dev/tty7.off /dev/tty7; cat /tmp/idle7c.log\n"
		/* stopped while hidden, after the application grew a page and panned to it: its
		 * mode and pan stay */
		"sed 's/after = 1/after = 60/' /tmp/idle7.conf >/tmp/idle7d.conf\n"
		"fbripple -v -c /tmp/idle7d.conf 2>/tmp/idle7d.log & pid=$!; n=0;"
		" until grep -q 'fbdev 640x480' /tmp/idle7d.log || [ $n -ge 100 ]; do sleep 0.05;"
		" n=$((n+1)); done\n"
		"fbfill -M 8x2 -P 480; kill $pid; wait $pid\n"
		"say \"stopped hidden: exit $?, $(geometry)\"; cat /tmp/idle7d.log\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "found Virtual FB 8 bpp 640,480 at 0,0", 30000);
	vm_case_expect(s, "list exit 1", 5000);
	vm_case_expect(s, "list said fbripple: error: /dev/fb0: 8 bpp (type 0, visual 3), which "
		       "fbripple draws only after switching to 32 or 16 bpp, and not while another "
		       "program's picture is on it", 2000);
	vm_case_expect(s, "after list 8 bpp 640,480 at 0,0", 2000);
	vm_case_expect(s, "idle at 8 bpp exit 1", 5000);
	vm_case_expect(s, "after idle 8 bpp 640,480 at 0,0", 2000);
	vm_case_expect(s, "running 32 bpp 640,960 at 0,", 10000);
	/* vfb's 32 bpp has alpha (its fourth byte): every pixel drawn opaque, as hardware that
	 * blends by it needs them */
	vm_case_expect(s, "format fbdev 640x480 ABGR8888", 5000);
	vm_case_expect(s, "pixel opaque", 5000);
	vm_case_expect(s, "away 8 bpp 640,480 at 0,0", 5000);	/* the console's own mode */
	vm_case_expect(s, "back 32 bpp 640,960 at 0,", 5000);
	vm_case_expect(s, "exit 0", 5000);
	vm_case_expect(s, "warnings 0", 5000);
	/* the application grows a second page and pans to it while fbripple waits hidden:
	 * shown, the water is drawn on the page in front, and the application's own frame put
	 * back there */
	vm_case_expect(s, "app on one page: 32 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "app on page 480: 32 bpp 640,960 at 0,480", 5000);
	vm_case_expect(s, "idle shown on the page in front: middle ", 5000);
	vm_case_expect(s, "idle exit 0", 5000);
	vm_case_expect(s, "idle back: middle 00ff00, 32 bpp 640,960 at 0,480", 5000);
	/* another depth: not drawn in, and the log says why, every idle spell */
	vm_case_expect(s, "app at 16 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "idle refused, said why", 5000);
	vm_case_expect(s, "idle left it: middle 0000f8", 5000);
	vm_case_expect(s, "idle exit 0", 5000);
	vm_case_expect(s, "one page at 32 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "one page away 8 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "one page back 32 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "one page exit 0", 5000);
	vm_case_expect(s, "one page warnings 0", 5000);
	vm_case_expect(s, "app again at 32 bpp 640,960 at 0,480", 5000);
	vm_case_expect(s, "vt7 shown on tty7: 32 bpp 640,960 at 0,480, middle ", 8000);
	vm_case_expect(s, "vt7 exit 0", 5000);
	vm_case_expect(s, "vt7 back on tty1", 5000);
	vm_case_expect(s, "hidden at 8 bpp 640,480 at 0,0", 8000);
	vm_case_expect(s, "8 bpp app, shown on tty7: 32 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "8 bpp app exit 0", 5000);
	vm_case_expect(s, "no VT 7, shown on tty1: 32 bpp 640,960 at 0,0, middle ", 8000);	/* drawn */
	vm_case_expect(s, "no VT 7 said 1", 2000);
	vm_case_expect(s, "no VT 7 exit 0", 5000);
	vm_case_expect(s, "no VT 7 back: middle 00ff00, 32 bpp 640,960 at 0,0", 5000);
	vm_case_expect(s, "8 bpp, no VT 7: 8 bpp 640,480 at 0,0, said why", 8000);
	vm_case_expect(s, "stopped hidden: exit 0, 8 bpp 640,960 at 0,480", 8000);
	vm_case_expect_exit(s, 0);
}

/*
 * Another program sets the mode of the framebuffer fbripple is drawing on, on fbripple's own VT
 * (fbset in a boot script, a second program): vfb, a driver that takes the mode it is given.
 * fbripple puts its own mode back at the next frame and says so, with two pages and with one;
 * its exit puts back the mode found at start.
 */
static void test_fbdev_mode_set_under_it(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_NONE, .name = "vfb mode set under it", .script =
		VFB_PRELUDE
		"echo 'rain = { enabled = true; rate = 40.0; };' >/tmp/two.conf\n"
		"cp /tmp/two.conf /tmp/one.conf; echo 'display = { double_buffer = \"off\"; };'"
		" >>/tmp/one.conf\n"
		"for c in two one; do\n"
		"  fbripple -v -c /tmp/$c.conf 2>/tmp/$c.log & pid=$!\n"
		"  n=0; until grep -q 'fbdev 640x480' /tmp/$c.log || [ $n -ge 200 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3\n"
		"  say \"$c running $(geometry)\"\n"
		"  fbfill -M 16x1 >/dev/null; sleep 1; say \"$c after $(geometry)\"\n"
		"  say \"$c said $(grep -c 'another program set its mode while fbripple was drawing on it; fbripple.s put back' /tmp/$c.log)\"\n"
		"  kill $pid; wait $pid; say \"$c exit $?, $(geometry)\"; cat /tmp/$c.log\n"
		"done\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "two running 32 bpp 640,960 at 0,", 30000);
	vm_case_expect(s, "two after 32 bpp 640,960 at 0,", 5000);
	vm_case_expect(s, "two said 1", 2000);
	vm_case_expect(s, "two exit 0, 8 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "one running 32 bpp 640,480 at 0,0", 10000);
	vm_case_expect(s, "one after 32 bpp 640,480 at 0,0", 5000);
	vm_case_expect(s, "one said 1", 2000);
	vm_case_expect(s, "one exit 0, 8 bpp 640,480 at 0,0", 5000);
	vm_case_expect_exit(s, 0);
}

/*
 * A reload that opens the framebuffer anew (display.double_buffer changed) on vfb, found at
 * 8 bpp: the new display draws in the mode on screen, the old one's close puts nothing back
 * under it, nothing is taken for another program's mode, and the exit puts back the 8 bpp
 * found at start.
 */
static void test_fbdev_reload_keeps_the_mode(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_NONE, .name = "vfb reload", .script =
		VFB_PRELUDE
		"printf '%s\\n' 'rain = { enabled = true; rate = 40.0; };'"
		" 'control = { socket = \"/tmp/fbr.sock\"; };' >/tmp/base.conf\n"
		"cp /tmp/base.conf /tmp/fbr.conf\n"
		"fbripple -v -c /tmp/fbr.conf 2>/tmp/fbr.log & pid=$!\n"
		"n=0; until grep -q 'double buffered' /tmp/fbr.log || [ $n -ge 200 ]; do sleep 0.05;"
		" n=$((n+1)); done; sleep 0.3; say \"running $(geometry)\"\n"
		"for b in off auto; do\n"
		"  cp /tmp/base.conf /tmp/fbr.conf\n"
		"  echo \"display = { double_buffer = \\\"$b\\\"; };\" >>/tmp/fbr.conf\n"
		"  say \"reload $b $(fbripple -c /tmp/fbr.conf --send reload)\"; sleep 1\n"
		"  say \"after $b $(geometry)\"\n"
		"done\n"
		"say \"warnings $(grep -c warning /tmp/fbr.log)\"\n"
		"kill $pid; wait $pid; say \"exit $?, $(geometry)\"; cat /tmp/fbr.log\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "running 32 bpp 640,960 at 0,", 30000);
	vm_case_expect(s, "reload off ok", 10000);
	vm_case_expect(s, "after off 32 bpp 640,960 at 0,", 5000);
	vm_case_expect(s, "reload auto ok", 10000);
	vm_case_expect(s, "after auto 32 bpp 640,960 at 0,", 5000);
	vm_case_expect(s, "warnings 0", 5000);
	vm_case_expect(s, "exit 0, 8 bpp 640,480 at 0,0", 5000);
	vm_case_expect_exit(s, 0);
}

/* What the real driver offers, as --list-devices tells an integrator. */
static void test_list_devices_display(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x311, .width = W, .height = H,
			     .name = "list devices", .script =
		"fbripple --list-devices -c /dev/null > /tmp/out 2>&1; say \"exit $?\"\n"
		"head -n 3 /tmp/out | while read -r l; do say \"list $l\"; done\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "exit 0", 30000);
	vm_case_expect(s, "list display /dev/fb0: fbdev VESA VGA", 2000);
	vm_case_expect(s, "list resolution 640x480, virtual 640x480, 16 bpp RGB565, stride 1280 bytes",
		       2000);
	vm_case_expect(s, "list pan and vsync: not tried (that would move the picture on screen)",
		       2000);
	vm_case_expect_exit(s, 0);
}

/* ---- DRM/KMS: /dev/dri/card0 of bochs-drm and virtio-gpu ---- */

/*
 * One boot per driver runs several steps: fbripple with FBRIPPLE_TEST_STRIPES=1 on DRM in busy
 * water (rain), then what the host asks: send CMD (a control command, its reply said back), vt
 * N, kill (SIGKILL), kd (tty1's mode, by vtstate), term (SIGTERM), again (start it once more),
 * fbdev (fbripple on /dev/fb0 instead, the same water), hold and letgo (drmhold, another process, becomes the card's master
 * and lets go), busy (start it while the card is held: its log lines about the card said
 * back), blank and wake (blank_after = 1 by a reload, then a drop; the connector's DPMS and the
 * daemon's status said back; blank_after = 0 again), blankaway (blank_after = 1, said back 2 s
 * later), dpms STATE (the connector's DPMS once it is STATE, or after 5 s), shot (the water paused, a screenshot
 * through the control socket: its md5 and size said back), wrong (refused starts: a connector
 * and a mode the card lacks; then the mode --list-devices chooses for "1024x768"), single
 * (fbripple restarted on one buffer, 800x600@60 on Virtual-1), reconf FILE (the running
 * daemon's file replaced by /etc/fbr/FILE and reloaded), legacy (FBRIPPLE_TEST_LEGACY=1: the
 * card listed, then fbripple on it with legacy page flips), bye.
 */
#define DRM_CONF(display)                                                                      \
	SPLASH_CONF("'control: { socket = \"/tmp/fbr.sock\"; };' "                             \
		    "'rain: { enabled = true; rate = 40.0; };' "                                \
		    "'display: { " display " };'")

#define DRM_SCRIPT                                                                             \
	"mkdir -p /etc/fbr\n"                                                                  \
	"printf '%s\\n' " DRM_CONF("device = \"auto\";") " > /etc/fbr/drm.conf\n"             \
	"printf '%s\\n' " DRM_CONF("device = \"/dev/fb0\";") " > /etc/fbr/fb.conf\n"          \
	"printf '%s\\n' " DRM_CONF("double_buffer = \"off\"; mode = \"800x600@60\";"           \
				   " output = \"Virtual-1\";") " > /etc/fbr/single.conf\n"        \
	"printf '%s\\n' " DRM_CONF("output = \"HDMI-A-9\";") " > /etc/fbr/noout.conf\n"        \
	"printf '%s\\n' " DRM_CONF("mode = \"1234x567\";") " > /etc/fbr/nomode.conf\n"         \
	"printf '%s\\n' " DRM_CONF("mode = \"1024x768\";") " > /etc/fbr/xga.conf\n"            \
	"printf '%s\\n' " DRM_CONF("device = \"/dev/dri/card0\";") " > /etc/fbr/card0.conf\n"  \
	"printf '%s\\n' " DRM_CONF("mode = \"800x600\";") " > /etc/fbr/m800.conf\n"            \
	"for c in drm fb; do cp /etc/fbr/$c.conf /etc/fbr/$c.keep; done\n"                     \
	"dpms=$(ls /sys/class/drm/card0-*/dpms | head -n 1)\n"                                 \
	"printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' > /dev/tty1\n"                     \
	"fbripple --list-devices -c /etc/fbr/drm.conf 2>&1 | head -n 4 |"                        \
	" while read -r l; do say \"list $l\"; done\n"                                          \
	"ctl() { fbripple -c /etc/fbr/drm.conf --send \"$*\"; }\n"                              \
	"bl() { ctl status | grep -o 'blanked=[a-z]*'; }\n"                                    \
	"up() { n=0; while ! ctl status >/dev/null 2>&1 && [ $n -lt 300 ]; do sleep 0.1;"        \
	" n=$((n+1)); done; }\n"                                                                \
	"run() { conf=/etc/fbr/$1; FBRIPPLE_TEST_STRIPES=1 fbripple -c $conf.conf $2"            \
	" 2>>/tmp/fbr.log &"                                                                     \
	" pid=$!; }\n"                                                                          \
	"drm() { run drm --drop=320,240; }\n"                                                   \
	"drm; say started\n"                                                                   \
	"while hear cmd; do\n"                                                                 \
	"  case $cmd in\n"                                                                     \
	"  send*) say \"reply $(ctl \"${cmd#send }\")\" ;;\n"                                  \
	"  vt*) chvt ${cmd#vt}; say \"on $cmd\" ;;\n"                                          \
	"  kill) kill -KILL $pid; wait $pid; say \"exited $?\" ;;\n"                           \
	"  kd) say \"kd $(vtstate /dev/tty1)\" ;;\n"                                          \
	"  term) kill -TERM $pid; wait $pid; say \"exited $?\" ;;\n"                           \
	"  again) drm; say \"started again\" ;;\n"                                              \
	"  fbdev) kill $pid; wait $pid; run fb; up; say \"fbdev started\" ;;\n"                                          \
	"  hold) rm -f /tmp/hold; drmhold >/tmp/hold & hpid=$!; n=0;"                                     \
	" while [ ! -s /tmp/hold ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done;"          \
	" say \"hold $(cat /tmp/hold)\" ;;\n"                                                   \
	"  letgo) kill $hpid; wait $hpid; say \"let go $? $(tail -n 1 /tmp/hold)\" ;;\n"        \
	"  busy) l=$(wc -l </tmp/fbr.log); drm; up; tail -n +$((l + 1)) /tmp/fbr.log >/tmp/busy;" \
	" say \"busy $(grep -c card0 /tmp/busy): $(grep card0 /tmp/busy)\" ;;\n"                \
	"  held) n=0; while ! grep -q 'held by another' /tmp/fbr.log && [ $n -lt 100 ]; do"    \
	" sleep 0.1; n=$((n+1)); done; say \"held $(grep 'held by another' /tmp/fbr.log)\" ;;\n" \
	"  blank*) echo 'screensaver: { blank_after = 1; };' >>$conf.conf; ctl reload >/dev/null;" \
	" [ $cmd = blankaway ] && { sleep 2; say \"away dpms=$(cat $dpms) $(bl)\"; continue; };"  \
	" n=0; while ! grep -q Off $dpms && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done;"     \
	" say \"blank dpms=$(cat $dpms) $(ctl status | grep -o 'blanked=[a-z]*')\" ;;\n"        \
	"  wake) ctl drop 320 240 >/dev/null;"                                                  \
	" say \"wake dpms=$(cat $dpms) $(ctl status | grep -o 'blanked=[a-z]*')\";"             \
	" cp $conf.keep $conf.conf; ctl reload >/dev/null ;;\n"                                   \
	"  dpms*) n=0; while [ \"$(cat $dpms)\" != ${cmd#dpms } ] && [ $n -lt 50 ]; do sleep 0.1;" \
	" n=$((n+1)); done; say \"dpms $(cat $dpms) $(bl)\" ;;\n"                              \
	"  shot) ctl pause >/dev/null; sleep 0.5; rm -f /tmp/shot.png;"                        \
	" ctl screenshot /tmp/shot.png >/dev/null;"                                             \
	" say \"shot $(md5sum </tmp/shot.png | cut -c 1-32) $(wc -c </tmp/shot.png)\" ;;\n"     \
	"  wrong) for c in noout nomode; do fbripple -c /etc/fbr/$c.conf 2>/tmp/wrong;"        \
	" say \"wrong $c $? $(cat /tmp/wrong)\"; done;"                                         \
	" say \"xga $(fbripple --list-devices -c /etc/fbr/xga.conf 2>&1 | grep chosen)\" ;;\n"  \
	"  single) run single; up; say \"single started\" ;;\n"                                 \
	"  reconf*) f=${cmd#reconf }; cp /etc/fbr/$f $conf.conf; say \"reconf $f $(ctl reload)\" ;;\n" \
	"  legacy) export FBRIPPLE_TEST_LEGACY=1;"                                              \
	" say \"legacy $(fbripple --list-devices -c /etc/fbr/drm.conf 2>&1 | grep -o 'flips:.*')\";"   \
	" drm; up; unset FBRIPPLE_TEST_LEGACY; say \"legacy started\" ;;\n"                     \
	"  bye) break ;;\n"                                                                    \
	"  esac\n"                                                                             \
	"done\n"                                                                               \
	"kill $pid 2>/dev/null; wait $pid\n"                                                    \
	"cat /tmp/fbr.log\n"

/* Killed outright: the guard the daemon left gives the console back, in text mode and
 * switching by itself, and the console redraws its text (the mark) over the water. */
static void expect_console_after_kill(struct vm_suite *s)
{
	assert_int_equal(vm_send(&s->vm, "kill"), 0);
	vm_case_expect(s, "exited 137", 10000);
	assert_int_equal(vm_send(&s->vm, "kd"), 0);
	vm_case_expect(s, "kd vt 1 kd=text switching=auto active=1", 10000);
	vm_case_wait_screen(s, 5000, check_console, NULL);
}

/* The frame number a test stripe row holds: bit i white or black at x = 8i + 4. -1 for a row
 * that is not a stripe (water drawn over it, or half of one frame and half of another). */
static int stripe_number(const struct image *img, int y, uint32_t *n)
{
	*n = 0;
	for (int i = 0; i < 32; i++) {
		uint32_t p = img->pixels[(size_t)y * img->width + 8 * i + 4] & 0xffffff;

		if (vm_colour_near(p, WHITE, 24))
			*n |= 1u << i;
		else if (!vm_colour_near(p, 0, 24))
			return -1;
	}
	return 0;
}

/* fbripple's frames on screen again: numbered, in the rain (which moves every colour). A black
 * screen reads as frame 0 everywhere: frame 0, shown for one frame's time, does not count. */
static int check_numbered(const struct image *img, void *ctx, char *why, size_t len)
{
	uint32_t top, bottom;

	(void)ctx;
	if (stripe_number(img, 3, &top) == 0 && stripe_number(img, img->height - 4, &bottom) == 0 &&
	    top && bottom)
		return 0;
	snprintf(why, len, "no frame number in the top and bottom rows");
	return -1;
}

struct tears {
	int dumps, differ, distinct, backwards;
	uint32_t first, last;
};

/*
 * A screendump with the guest stopped: what the display scans out at one instant. QEMU reads
 * the guest's video memory while the guest runs on, so a running guest that flips and draws on
 * during a dump would show a tear no screen ever shows.
 */
static int instant_screendump(struct vm_suite *s, struct image *img)
{
	int rc = vm_qmp(&s->vm, "{\"execute\":\"stop\"}", NULL, 0);

	rc = rc ? rc : vm_screendump(&s->vm, img);
	if (vm_qmp(&s->vm, "{\"execute\":\"cont\"}", NULL, 0) && !rc)
		rc = -EIO;
	return rc;
}

/* dumps screendumps about a frame apart, each read for its top and bottom number. */
static void count_tears(struct vm_suite *s, int dumps, struct tears *t)
{
	*t = (struct tears){ .dumps = dumps };
	for (int i = 0; i < dumps; i++) {
		struct image img = { 0 };
		uint32_t top, bottom;
		int rc = instant_screendump(s, &img), ok;

		if (rc)
			fail_msg("%s: screendump: %s", s->vm.name, strerror(-rc));
		ok = stripe_number(&img, 3, &top) == 0 &&
		     stripe_number(&img, img.height - 4, &bottom) == 0 && top == bottom;
		free(img.pixels);
		usleep(20000);		/* a frame's time for the guest between two instants */
		if (!ok) {
			t->differ++;
			continue;
		}
		if (t->distinct && top < t->last)
			t->backwards++;
		if (!t->distinct)
			t->first = top;
		if (!t->distinct || top != t->last)
			t->distinct++;
		t->last = top;
	}
}

/* "ok ... key=N ...": N. */
static unsigned long status_value(const char *reply, const char *key)
{
	char want[32];
	const char *at;

	snprintf(want, sizeof(want), " %s=", key);
	at = strstr(reply, want);
	if (!at)
		fail_msg("no %s in the status reply: %s", key, reply);
	return strtoul(at + strlen(want), NULL, 10);
}

static void send_control(struct vm_suite *s, const char *cmd, char *reply, size_t len)
{
	char line[64];

	snprintf(line, sizeof(line), "send %s", cmd);
	assert_int_equal(vm_send(&s->vm, line), 0);
	if (vm_expect_line(&s->vm, "reply ", 20000, reply, len))
		fail_msg("%s: no reply to %s", s->vm.name, cmd);
}

/* Paused water: every frame drawn has been flipped to, none lost and none counted twice. */
static void expect_flips_equal_frames(struct vm_suite *s)
{
	char reply[1024];

	send_control(s, "pause", reply, sizeof(reply));
	usleep(300000);
	send_control(s, "status", reply, sizeof(reply));
	printf("# vm[%s]: %s\n", s->vm.name, reply);
	if (!strstr(reply, " display=drm"))
		fail_msg("%s: not on DRM: %s", s->vm.name, reply);
	if (status_value(reply, "frames") < 10 ||
	    status_value(reply, "flips") != status_value(reply, "frames"))
		fail_msg("%s: flips and frames differ, or too few frames: %s", s->vm.name, reply);
	send_control(s, "resume", reply, sizeof(reply));
}

/* Busy water on DRM: every screendump holds one whole frame, and the frames advance. */
static void expect_no_tears(struct vm_suite *s, int dumps)
{
	struct tears t;
	long start = vm_now_ms();

	count_tears(s, dumps, &t);
	printf("# vm[%s]: drm: %d of %d screendumps torn, %d frames seen (%u..%u), %.1f s\n",
	       s->vm.name, t.differ, t.dumps, t.distinct, t.first, t.last,
	       (vm_now_ms() - start) / 1000.0);
	if (t.differ || t.backwards || t.distinct < 10)
		fail_msg("%s: %d of %d screendumps torn, %d went backwards, %d frames seen",
			 s->vm.name, t.differ, t.dumps, t.backwards, t.distinct);
}

/* The same water through /dev/fb0 on the same VM, counted for the record only: the kernel's
 * fbdev emulation copies a single buffer out while it is drawn. */
static void report_fbdev_tears(struct vm_suite *s, int dumps)
{
	struct tears t;
	char reply[1024];

	assert_int_equal(vm_send(&s->vm, "fbdev"), 0);
	vm_case_expect(s, "fbdev started", 40000);
	send_control(s, "status", reply, sizeof(reply));
	if (!strstr(reply, " display=fbdev "))
		fail_msg("%s: not on fbdev: %s", s->vm.name, reply);
	usleep(3000000);	/* the splash decoded and the rain falling */
	count_tears(s, dumps, &t);
	printf("# vm[%s]: fbdev: %d of %d screendumps torn, %d frames seen (%u..%u)\n",
	       s->vm.name, t.differ, t.dumps, t.distinct, t.first, t.last);
}

/* Started while another process is the card's master: /dev/fb0 instead, one line saying why,
 * and the water shown there. */
static void expect_fallback_when_held(struct vm_suite *s)
{
	char reply[1024];

	assert_int_equal(vm_send(&s->vm, "hold"), 0);
	vm_case_expect(s, "hold master", 10000);
	assert_int_equal(vm_send(&s->vm, "busy"), 0);
	vm_case_expect(s, "busy 1: fbripple: warning: /dev/dri/card0: another process is its DRM "
		       "master (a display server or Plymouth); drawing on /dev/fb0 (fbdev) instead",
		       40000);
	send_control(s, "status", reply, sizeof(reply));
	if (!strstr(reply, " display=fbdev"))
		fail_msg("%s: not on fbdev while the card is held: %s", s->vm.name, reply);
	vm_case_wait_screen(s, 20000, check_numbered, NULL);
	assert_int_equal(vm_send(&s->vm, "term"), 0);
	vm_case_expect(s, "exited 0", 10000);
	assert_int_equal(vm_send(&s->vm, "letgo"), 0);
	vm_case_expect(s, "let go 0 dropped", 10000);
}

/* Back on its VT while another process is the card's master: nothing drawn, and the card taken
 * back (the 20 ms retry) once that process lets go. */
static void expect_retake_after_other_master(struct vm_suite *s)
{
	struct image img = { 0 };
	char why[128];
	int rc, numbered;

	assert_int_equal(vm_send(&s->vm, "hold"), 0);
	vm_case_expect(s, "hold master", 10000);
	assert_int_equal(vm_send(&s->vm, "vt1"), 0);
	vm_case_expect(s, "on vt1", 10000);
	assert_int_equal(vm_send(&s->vm, "held"), 0);
	vm_case_expect(s, "held fbripple: /dev/dri/card0: held by another process; taking it back "
		       "once it lets go", 15000);
	usleep(500000);
	rc = vm_screendump(&s->vm, &img);
	numbered = rc == 0 && check_numbered(&img, NULL, why, sizeof(why)) == 0;
	free(img.pixels);
	if (rc || numbered)
		fail_msg("%s: %s while another process is master", s->vm.name,
			 rc ? "no screendump" : "fbripple's frames on screen");
	assert_int_equal(vm_send(&s->vm, "letgo"), 0);
	vm_case_expect(s, "let go 0 dropped", 10000);
	vm_case_wait_screen(s, 10000, check_numbered, NULL);
}

/* A VT switch with the host waiting for the case to say it is done. */
static void switch_vt(struct vm_suite *s, int vt)
{
	char cmd[16], done[16];

	snprintf(cmd, sizeof(cmd), "vt%d", vt);
	snprintf(done, sizeof(done), "on vt%d", vt);
	assert_int_equal(vm_send(&s->vm, cmd), 0);
	vm_case_expect(s, done, 10000);
}

/* The connector's DPMS once it is want (or after 5 s), and the daemon's blanked= in status. */
static void expect_dpms(struct vm_suite *s, const char *want, const char *blanked)
{
	char cmd[16], line[64];

	snprintf(cmd, sizeof(cmd), "dpms %s", want);
	snprintf(line, sizeof(line), "dpms %s blanked=%s", want, blanked);
	assert_int_equal(vm_send(&s->vm, cmd), 0);
	vm_case_expect(s, line, 15000);
}

/* The picture lit, not the black of a blank screen: the splash has no black, and the rain only
 * moves its colours about (fbdev's single buffer shows the edge rows mostly under water, not
 * as frame numbers). */
static int check_lit(const struct image *img, void *ctx, char *why, size_t len)
{
	int dark = 0, samples = 0;

	(void)ctx;
	for (int y = 20; y < img->height - 20; y += 23)
		for (int x = 5; x < img->width; x += 29, samples++)
			dark += vm_colour_near(img->pixels[y * img->width + x] & 0xffffff, 0, 24);
	if (dark * 10 > samples) {
		snprintf(why, len, "%d of %d samples black", dark, samples);
		return -1;
	}
	return 0;
}

static void wake(struct vm_suite *s, vm_screen_check *shown)
{
	assert_int_equal(vm_send(&s->vm, "wake"), 0);
	vm_case_expect(s, "wake dpms=On blanked=no", 15000);
	vm_case_wait_screen(s, 10000, shown, NULL);
}

/*
 * screensaver.blank_after: the connector's DPMS goes Off (through the card, or FBIOBLANK on
 * fbdev), a drop (input) turns it On again and the water comes back. With vt: blank stays
 * blank across a VT switch away (the console's screen lit) and back, and a blank_after that
 * runs out while another VT is in front leaves that VT's screen alone and blanks on return.
 */
static void expect_blank_and_wake(struct vm_suite *s, bool vt, vm_screen_check *shown)
{
	assert_int_equal(vm_send(&s->vm, "blank"), 0);
	vm_case_expect(s, "blank dpms=Off blanked=yes", 30000);
	if (vt) {
		switch_vt(s, 2);
		expect_dpms(s, "On", "yes");
		switch_vt(s, 1);
		expect_dpms(s, "Off", "yes");
	}
	wake(s, shown);
	if (!vt)
		return;
	switch_vt(s, 2);
	assert_int_equal(vm_send(&s->vm, "blankaway"), 0);
	vm_case_expect(s, "away dpms=On blanked=yes", 15000);
	switch_vt(s, 1);
	expect_dpms(s, "Off", "yes");
	wake(s, shown);
}

/* The md5 of a file, by md5sum: 0 or -1. */
static int md5_file(const char *path, char *md5, size_t len)
{
	char cmd[300];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "md5sum '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	ok = fscanf(p, "%32s", md5) == 1 && strlen(md5) == 32 && len > 32;
	return pclose(p) == 0 && ok ? 0 : -1;
}

/* The water paused, a screenshot through the control socket holds the frame QEMU scans out:
 * the host's screendump, written by the same PNG code, is the same file. */
static void expect_screenshot_as_shown(struct vm_suite *s)
{
	char line[128], host_md5[40], guest_md5[40], reply[256], png[] = "/tmp/fbr-shot-XXXXXX";
	struct image img = { 0 };
	long guest_size = -1, host_size;
	int fd, rc;
	FILE *f;

	assert_int_equal(vm_send(&s->vm, "shot"), 0);
	if (vm_expect_line(&s->vm, "shot ", 20000, line, sizeof(line)) ||
	    sscanf(line, "shot %32s %ld", guest_md5, &guest_size) != 2)
		fail_msg("%s: no screenshot taken", s->vm.name);
	rc = instant_screendump(s, &img);
	fd = mkstemp(png);
	if (rc || fd < 0)
		fail_msg("%s: screendump: %s", s->vm.name, strerror(rc ? -rc : errno));
	f = fdopen(fd, "wb");
	rc = f && image_write_png_file(&img, f) == 0 ? 0 : -1;
	host_size = f ? ftell(f) : -1;
	if (f)
		fclose(f);
	free(img.pixels);
	rc = rc ? rc : md5_file(png, host_md5, sizeof(host_md5));
	if (rc || strcmp(host_md5, guest_md5) || host_size != guest_size)
		fail_msg("%s: the screenshot (%ld bytes, md5 %s) is not the screendump (%ld bytes, "
			 "md5 %s, in %s)", s->vm.name, guest_size, guest_md5, host_size,
			 rc ? "?" : host_md5, png);
	unlink(png);
	send_control(s, "resume", reply, sizeof(reply));
}

/* 800x600, not the preferred 640x480, on one buffer: fbripple's numbered frames at that size. */
static int check_single(const struct image *img, void *ctx, char *why, size_t len)
{
	uint32_t *seen = ctx, top, bottom;

	if (img->width != 800 || img->height != 600) {
		snprintf(why, len, "screen is %dx%d, expected 800x600", img->width, img->height);
		return -1;
	}
	if (stripe_number(img, 3, &top) || stripe_number(img, img->height - 4, &bottom) || !top ||
	    !bottom) {
		snprintf(why, len, "no frame number in the top and bottom rows");
		return -1;
	}
	if (*seen && top == *seen) {
		snprintf(why, len, "still frame %u on screen", top);
		return -1;
	}
	*seen = top;
	return 0;
}

/* display.output and display.mode: a name or a mode the card lacks is refused with one clear
 * line; "WxH" picks that size at any rate; ones it has are shown, on one buffer (DirtyFB) with
 * double_buffer off. */
static void expect_output_mode_single(struct vm_suite *s)
{
	char reply[1024];
	uint32_t seen = 0;

	assert_int_equal(vm_send(&s->vm, "term"), 0);
	vm_case_expect(s, "exited 0", 10000);
	assert_int_equal(vm_send(&s->vm, "wrong"), 0);
	vm_case_expect(s, "wrong noout 1 fbripple: error: /dev/dri/card0: no connector HDMI-A-9",
		       20000);
	vm_case_expect(s, "wrong nomode 1 fbripple: error: /dev/dri/card0: Virtual-1 has no mode "
		       "1234x567 (see --list-devices)", 20000);
	vm_case_expect(s, "chosen Virtual-1 1024x768@60, 32 bpp XRGB8888, stride 4096 bytes", 10000);
	assert_int_equal(vm_send(&s->vm, "single"), 0);
	vm_case_expect(s, "single started", 40000);
	vm_case_wait_screen(s, 20000, check_single, &seen);
	vm_case_wait_screen(s, 10000, check_single, &seen);
	send_control(s, "status", reply, sizeof(reply));
	printf("# vm[%s]: single: %s\n", s->vm.name, reply);
	if (!strstr(reply, " size=800x600 ") || !strstr(reply, " display=drm ") ||
	    !strstr(reply, " flips=0"))
		fail_msg("%s: not one buffer at 800x600 on DRM: %s", s->vm.name, reply);
}

/* The running daemon's config file replaced by file, reloaded: the reply. */
static void reconfigure(struct vm_suite *s, const char *file, const char *reply)
{
	char cmd[64], want[128];

	snprintf(cmd, sizeof(cmd), "reconf %s", file);
	snprintf(want, sizeof(want), "reconf %s %s", file, reply);
	assert_int_equal(vm_send(&s->vm, cmd), 0);
	vm_case_expect(s, want, 20000);
}

/* The status reply, which must hold each of the NULL-terminated words. */
static void expect_status(struct vm_suite *s, char *reply, size_t len, ...)
{
	va_list ap;
	const char *word;

	send_control(s, "status", reply, len);
	va_start(ap, len);
	while ((word = va_arg(ap, const char *)))
		if (!strstr(reply, word))
			fail_msg("%s: no '%s' in the status: %s", s->vm.name, word, reply);
	va_end(ap);
}

/*
 * Reloads onto the card the daemon holds: display.device naming the card "auto" found keeps
 * the display as it is (master, frames and flips going on, no fbdev); a new display.mode sets
 * the card up again at once on the descriptor that holds it; the old file puts it back.
 */
static void expect_reload_same_card(struct vm_suite *s)
{
	char reply[1024];
	unsigned long flips;
	uint32_t seen = 0;

	reconfigure(s, "card0.conf", "ok changed display");
	expect_status(s, reply, sizeof(reply), " size=640x480 ", " display=drm ", NULL);
	flips = status_value(reply, "flips");
	vm_case_wait_screen(s, 10000, check_numbered, NULL);
	expect_status(s, reply, sizeof(reply), " display=drm ", NULL);
	if (status_value(reply, "flips") <= flips)
		fail_msg("%s: no flips since the reload: %s", s->vm.name, reply);
	reconfigure(s, "m800.conf", "ok changed display");
	expect_status(s, reply, sizeof(reply), " size=800x600 ", " display=drm ", NULL);
	vm_case_wait_screen(s, 20000, check_single, &seen);
	vm_case_wait_screen(s, 10000, check_single, &seen);
	reconfigure(s, "drm.keep", "ok changed display");
	expect_status(s, reply, sizeof(reply), " size=640x480 ", " display=drm ", NULL);
	vm_case_wait_screen(s, 10000, check_numbered, NULL);
}

/* Legacy page flips (FBRIPPLE_TEST_LEGACY=1), as on a driver without atomic commits: whole
 * frames, one flip for each, and a VT switch away and back. */
static void expect_legacy_flips(struct vm_suite *s)
{
	assert_int_equal(vm_send(&s->vm, "legacy"), 0);
	vm_case_expect(s, "legacy flips: legacy; drawing: double buffered", 10000);
	vm_case_expect(s, "legacy started", 40000);
	vm_case_wait_screen(s, 20000, check_numbered, NULL);
	expect_no_tears(s, 200);
	expect_flips_equal_frames(s);
	assert_int_equal(vm_send(&s->vm, "vt2"), 0);
	vm_case_expect(s, "on vt2", 10000);
	vm_case_wait_screen(s, 5000, check_black, NULL);
	assert_int_equal(vm_send(&s->vm, "vt1"), 0);
	vm_case_expect(s, "on vt1", 10000);
	vm_case_wait_screen(s, 10000, check_numbered, NULL);
}

/* What a driver's boot does besides the tear count, flips, SIGKILL and a VT switch. */
struct drm_steps {
	bool fbdev_tears, busy, retake, blank, blank_vt, shot, reload, single, legacy;
};

static void drm_case(void **state, enum vm_display display, const char *driver,
		     const struct drm_steps *steps)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = display, .width = W, .height = H, .name = driver,
			     .script = DRM_SCRIPT, .timeout_ms = 180000 };
	char want[128];

	vm_case_start(s, &o);
	snprintf(want, sizeof(want), "list display /dev/dri/card0: drm %s", driver);
	vm_case_expect(s, want, 30000);
	vm_case_expect(s, "list connector Virtual-1: connected; modes 640x480@", 2000);
	vm_case_expect(s, "list chosen Virtual-1 640x480@", 2000);
	vm_case_expect(s, "list flips: atomic; drawing: double buffered", 2000);
	vm_case_expect(s, "started", 30000);
	vm_case_wait_screen(s, 30000, check_rings, NULL);
	expect_no_tears(s, 200);
	expect_flips_equal_frames(s);
	expect_console_after_kill(s);
	if (steps->busy)
		expect_fallback_when_held(s);
	/* master dropped for the console's VT, which shows its own screen, then taken back */
	assert_int_equal(vm_send(&s->vm, "again"), 0);
	vm_case_expect(s, "started again", 5000);
	vm_case_wait_screen(s, 20000, check_numbered, NULL);
	assert_int_equal(vm_send(&s->vm, "vt2"), 0);
	vm_case_expect(s, "on vt2", 10000);
	vm_case_wait_screen(s, 5000, check_black, NULL);
	if (steps->retake) {
		expect_retake_after_other_master(s);
	} else {
		assert_int_equal(vm_send(&s->vm, "vt1"), 0);
		vm_case_expect(s, "on vt1", 10000);
		vm_case_wait_screen(s, 10000, check_numbered, NULL);
	}
	if (steps->blank)
		expect_blank_and_wake(s, steps->blank_vt, check_numbered);
	if (steps->shot)
		expect_screenshot_as_shown(s);
	if (steps->fbdev_tears) {
		report_fbdev_tears(s, 200);
		expect_blank_and_wake(s, true, check_lit);
		expect_console_after_kill(s);	/* on fbdev the last frame would stay */
	}
	if (steps->reload)
		expect_reload_same_card(s);
	if (steps->single)
		expect_output_mode_single(s);
	if (steps->legacy)
		expect_legacy_flips(s);
	end_case(s);
}

static void test_drm_bochs(void **state)
{
	static const struct drm_steps steps = { .fbdev_tears = true, .blank = true,
						 .shot = true, .legacy = true };

	drm_case(state, VM_BOCHS, "bochs-drm", &steps);
}

static void test_drm_virtio(void **state)
{
	static const struct drm_steps steps = { .busy = true, .retake = true, .blank = true,
						 .blank_vt = true, .shot = true, .reload = true,
						 .single = true };

	drm_case(state, VM_VIRTIO, "virtio_gpu", &steps);
}

/*
 * The display goes away under the daemon (its driver unbound through sysfs, as when a USB
 * display is unplugged): one clear line naming the device and exit 1 within seconds, never a
 * SIGBUS or a hang, on DRM and then on fbdev; with the driver bound again, fbripple started
 * anew shows its splash. Rain falls, so the daemon is drawing when the device goes.
 */
#define GONE_SCRIPT(driver)                                                                    \
	"mkdir -p /etc/fbr\n"                                                                  \
	"printf '%s\\n' " SPLASH_CONF("") " > /etc/fbr/fbr.conf\n"                             \
	"cp /etc/fbr/fbr.conf /etc/fbr/rain.conf\n"                                            \
	"echo 'rain: { enabled = true; rate = 20.0; };' >> /etc/fbr/rain.conf\n"               \
	"cp /etc/fbr/rain.conf /etc/fbr/fbdev.conf\n"                                          \
	"echo 'display: { device = \"/dev/fb0\"; };' >> /etc/fbr/fbdev.conf\n"                 \
	"drv=" driver "; dev=$(ls $drv | grep -E '^(0000:|virtio)')\n"                         \
	"gone() {\n"                                                                           \
	"  hear cmd; echo $dev > $drv/unbind\n"                                                \
	"  t=0; while kill -0 $pid 2>/dev/null && [ $t -lt 150 ]; do sleep 0.1; t=$((t+1)); done\n" \
	"  kill -0 $pid 2>/dev/null && { say 'still running'; kill -9 $pid; }\n"                 \
	"  wait $pid; say \"exit=$?;\"; say \"log $(grep 'went away' /tmp/fbr.log)\"\n"          \
	"  echo $dev > $drv/bind\n"                                                            \
	"  t=0; while [ ! -e $1 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t+1)); done\n"         \
	"}\n"                                                                                  \
	"fbripple -c /etc/fbr/rain.conf 2>/tmp/fbr.log & pid=$!; say started\n"                \
	"gone /dev/dri/card0\n"                                                                \
	"fbripple -c /etc/fbr/fbdev.conf 2>/tmp/fbr.log & pid=$!; say 'fbdev started'\n"       \
	"gone /dev/fb0\n"                                                                      \
	"fbripple -c /etc/fbr/fbr.conf 2>/tmp/fbr.log & pid=$!; say restarted\n"               \
	"hear cmd\n"                                                                           \
	"kill $pid; wait $pid; say \"exit again=$?;\"\n"

/* Unbinds the driver under the running daemon: exit 1 and the line naming device. */
static void expect_gone(struct vm_suite *s, const char *device)
{
	char want[128];

	assert_int_equal(vm_send(&s->vm, "unbind"), 0);
	vm_case_expect(s, "exit=1;", 30000);
	snprintf(want, sizeof(want), "log fbripple: error: %s: the display went away", device);
	vm_case_expect(s, want, 2000);
}

static void gone_case(void **state, enum vm_display display, const char *name,
		      const char *script)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = display, .width = W, .height = H, .name = name,
			     .script = script };

	start_on_splash(s, &o);
	expect_gone(s, "/dev/dri/card0");
	vm_case_expect(s, "fbdev started", 30000);
	vm_case_wait_screen(s, 20000, check_points, (void *)&fitted);
	expect_gone(s, "/dev/fb0");
	vm_case_expect(s, "restarted", 30000);
	vm_case_wait_screen(s, 20000, check_points, (void *)&fitted);
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect(s, "exit again=0;", 10000);
	vm_case_expect_exit(s, 0);
}

static void test_bochs_goes_away(void **state)
{
	gone_case(state, VM_BOCHS, "bochs goes away", GONE_SCRIPT("/sys/bus/pci/drivers/bochs-drm"));
}

static void test_virtio_goes_away(void **state)
{
	gone_case(state, VM_VIRTIO, "virtio goes away",
		  GONE_SCRIPT("/sys/bus/virtio/drivers/virtio_gpu"));
}

/*
 * Two cards (bochs-drm loaded first: card0 and fb0; virtio-gpu: card1 and fb1) and a display
 * server (drmhold) master of the one named: fbripple draws on that card's own fbdev emulation,
 * not on /dev/fb0, the other card's screen. Then the card without fbdev emulation
 * (drm_kms_helper's fbdev_emulation off, the driver bound again): the error says the card is
 * held and has no framebuffer device, not that of another card, nor "/dev/fb0: No such file".
 * Then every connector forced off (a monitor off at start): "auto" says why it draws on
 * /dev/fb0; the card named, with no connector, the one there is or one it lacks, says which
 * connectors it has and which is not connected.
 */
static void test_drm_fallbacks_say_which_card(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	static const char *const qemu[] = { "-device", "VGA,xres=640,yres=480", "-device",
					    "virtio-gpu-pci,xres=640,yres=480", NULL };
	struct vm_opts o = { .display = VM_NONE, .qemu_args = qemu, .name = "which card",
			     .script =
		"l() { while read -r m; do insmod $m 2>/dev/null; done </etc/fbvm/$1.modules;"
		" n=0; while [ ! -e $2 ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n+1)); done; }\n"
		"l bochs /dev/fb0; l virtio-gpu /dev/fb1\n"
		"cardof() { for c in /sys/class/drm/card[0-9]; do [ $(cat $c/device/vendor) = $1 ] &&"
		" echo /dev/dri/${c##*/}; done; }\n"
		"vc=$(cardof 0x1af4)\n"
		"say \"cards bochs $(cardof 0x1234) virtio $vc,"
		" fb0 $(cat /sys/class/graphics/fb0/name) fb1 $(cat /sys/class/graphics/fb1/name)\"\n"
		"hold() { rm -f /tmp/hold; drmhold $vc >/tmp/hold & hpid=$!; n=0;"
		" while [ ! -s /tmp/hold ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done;"
		" say \"hold $(cat /tmp/hold)\"; }\n"
		"echo \"display: { device = \\\"$vc\\\"; };\" >/tmp/vc.conf\n"
		"hold; fbripple --list-devices -c /tmp/vc.conf >/tmp/out 2>&1; say \"held exit $?\"\n"
		"head -n 2 /tmp/out | while read -r l; do say \"held $l\"; done\n"
		"kill $hpid; wait $hpid\n"
		"echo 0 >/sys/module/drm_kms_helper/parameters/fbdev_emulation\n"
		"d=/sys/bus/virtio/drivers/virtio_gpu; vd=$(ls $d | grep '^virtio')\n"
		"echo $vd >$d/unbind; echo $vd >$d/bind\n"
		"n=0; while [ ! -e $vc ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n+1)); done\n"
		"say \"rebound $(cardof 0x1af4), $(ls /dev/fb* | tr '\\n' ' ')\"\n"
		"hold; fbripple --frames 1 -c /tmp/vc.conf 2>/tmp/err; say \"no fbdev exit $?\"\n"
		"say \"no fbdev said $(grep error /tmp/err)\"; kill $hpid; wait $hpid\n"
		"for c in /sys/class/drm/card*-*/status; do echo off >$c; done\n"
		"say \"connectors $(cat /sys/class/drm/card*-*/status | tr '\\n' ' ')\"\n"
		"fbripple --list-devices -c /dev/null >/tmp/out 2>&1; say \"auto exit $?\"\n"
		"head -n 2 /tmp/out | while read -r l; do say \"auto $l\"; done\n"
		"echo 'display: { device = \"/dev/dri/renderD128\"; };' >/tmp/r.conf\n"
		"fbripple --frames 1 -c /tmp/r.conf 2>/tmp/err; say \"render exit $?: $(grep -v debug /tmp/err)\"\n"
		"for out in '' Virtual-1 HDMI-A-9; do"
		" echo \"display: { device = \\\"/dev/dri/card0\\\"; output = \\\"$out\\\"; };\" >/tmp/o.conf;"
		" fbripple --frames 1 -c /tmp/o.conf 2>/tmp/err;"
		" say \"output '$out' exit $?: $(grep error /tmp/err)\"; done\n"
		"mv /dev/fb0 /dev/fb0.off; fbripple --frames 1 -c /dev/null 2>/tmp/err;"
		" say \"no fb0 exit $?\"; say \"no fb0 said $(grep error /tmp/err)\"\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "cards bochs /dev/dri/card0 virtio /dev/dri/card1, fb0 bochs-drmdrmfb "
		       "fb1 virtio_gpudrmfb", 30000);
	vm_case_expect(s, "hold master", 10000);
	vm_case_expect(s, "held exit 0", 10000);
	vm_case_expect(s, "held /dev/dri/card1: another process is its DRM master (a display "
		       "server or Plymouth); drawing on /dev/fb1 (fbdev) instead", 2000);
	vm_case_expect(s, "held display /dev/fb1: fbdev virtio_gpudrmfb", 2000);
	vm_case_expect(s, "rebound /dev/dri/card1, /dev/fb0 ", 10000);
	vm_case_expect(s, "hold master", 10000);
	vm_case_expect(s, "no fbdev exit 1", 20000);
	vm_case_expect(s, "no fbdev said fbripple: error: /dev/dri/card1: another process is its "
		       "DRM master (a display server or Plymouth), and the card has no framebuffer "
		       "device (fbdev emulation) to draw on instead", 2000);
	vm_case_expect(s, "connectors disconnected disconnected ", 10000);
	vm_case_expect(s, "auto exit 0", 10000);
	vm_case_expect(s, "auto display.device \"auto\": /dev/dri/card0 has no connected connector "
		       "(a monitor off or unplugged at start?); drawing on /dev/fb0 (fbdev)", 2000);
	vm_case_expect(s, "auto display /dev/fb0: fbdev bochs-drmdrmfb", 2000);
	vm_case_expect(s, "render exit 1: fbripple: error: /dev/dri/renderD128: a render node, "
		       "which shows nothing (display.device names a /dev/dri/card*)", 10000);
	vm_case_expect(s, "output '' exit 1: fbripple: error: /dev/dri/card0: no connected "
		       "connector among Virtual-1 (a monitor off or unplugged at start?)", 10000);
	vm_case_expect(s, "output 'Virtual-1' exit 1: fbripple: error: /dev/dri/card0: Virtual-1 "
		       "is not connected (a monitor off or unplugged at start?)", 10000);
	vm_case_expect(s, "output 'HDMI-A-9' exit 1: fbripple: error: /dev/dri/card0: no "
		       "connector HDMI-A-9 (the card has Virtual-1)", 10000);
	vm_case_expect(s, "no fb0 exit 1", 10000);
	vm_case_expect(s, "no fb0 said fbripple: error: /dev/fb0: No such file or directory, and "
		       "/dev/dri/card0 has no connected connector (a monitor off or unplugged at "
		       "start?)", 2000);
	vm_case_expect_exit(s, 0);
}

/*
 * A kernel without fbdev emulation (CONFIG_DRM_FBDEV_EMULATION off, as images for Wayland
 * kiosks come): no in-kernel client has probed the connectors at boot, so their status is
 * "unknown" until a master asks. "auto" must still find the card with the screen on it, not
 * fall back to a /dev/fb0 that is not there.
 */
static void test_drm_auto_without_fbdev(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	static const char *const qemu[] = { "-device", "VGA,xres=640,yres=480", NULL };
	struct vm_opts o = { .display = VM_NONE, .qemu_args = qemu, .name = "auto without fbdev",
			     .script =
		"while read -r m; do case $m in */drm_kms_helper.ko) insmod $m fbdev_emulation=0 ;;"
		" *) insmod $m ;; esac 2>/dev/null; done </etc/fbvm/bochs.modules\n"
		"n=0; while [ ! -e /dev/dri/card0 ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n+1)); done\n"
		"say \"boot $(ls /dev/fb* 2>&1 | grep -c fb0) fb, Virtual-1"
		" $(cat /sys/class/drm/card0-Virtual-1/status)\"\n"
		"fbripple --list-devices -c /dev/null >/tmp/out 2>&1; say \"list exit $?\"\n"
		"head -n 2 /tmp/out | while read -r l; do say \"list $l\"; done\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "boot 0 fb, Virtual-1 unknown", 30000);
	vm_case_expect(s, "list exit 0", 10000);
	vm_case_expect(s, "list display /dev/dri/card0: drm bochs-drm", 2000);
	vm_case_expect(s, "list connector Virtual-1: connected; modes 640x480@", 2000);
	vm_case_expect_exit(s, 0);
}

/* The middle of the screen is ctx's colour (0xRRGGBB). */
static int check_middle(const struct image *img, void *ctx, char *why, size_t len)
{
	return vm_check_pixel(img, img->width / 2, img->height / 2, *(const uint32_t *)ctx, 24,
			      why, len);
}

/* The middle of the screen is neither black nor red: the water drawn there. */
static int check_middle_lit(const struct image *img, void *ctx, char *why, size_t len)
{
	uint32_t px = img->pixels[img->height / 2 * img->width + img->width / 2] & 0xffffff;

	(void)ctx;
	if (vm_check_pixel(img, img->width / 2, img->height / 2, 0x000000, 24, why, len) &&
	    vm_check_pixel(img, img->width / 2, img->height / 2, RED, 24, why, len)) {
		why[0] = '\0';
		return 0;
	}
	snprintf(why, len, "the middle is #%06x, no water drawn there", px);
	return -1;
}

/* A round of the two-card case killed (SIGKILL): its guard wrote the application's framebuffer,
 * fb1, and never fb0, the other card's; then the guest says then (NULL: nothing more) and the
 * screen's middle is colour again. */
static void killed_guard_writes_fb1(struct vm_suite *s, const char *round, const char *then,
				    uint32_t *colour)
{
	char want[128];

	assert_int_equal(vm_send(&s->vm, "kill"), 0);
	snprintf(want, sizeof(want), "%s killed 137", round);
	vm_case_expect(s, want, 10000);
	snprintf(want, sizeof(want), "%s guard gone, fb0 writes 0, fb1 written", round);
	vm_case_expect(s, want, 10000);
	if (then)
		vm_case_expect(s, then, 10000);
	vm_case_wait_screen(s, 10000, check_middle, colour);
}

/*
 * Idle mode with splash.image "@screen" on the second of two cards (QEMU's VGA, the console the
 * host dumps, is bochs-drm loaded after virtio-gpu: card1 and fb1): the application's frame is
 * read from that card's fbdev emulation, red, not from /dev/fb0, the other card's, blue. Killed
 * (SIGKILL) while shown, the console's guard has that card's emulation show the application's
 * frame anew (it showed black) by writing fb1 onto itself, and writes nothing to fb0: with no
 * VT of fbripple's, on VT 2 of its own, and after a reload while shown moved it from the first
 * card to the second. Stopped (SIGTERM) while shown, it puts the card back itself: the frame red
 * again, fb0 not written. Then always mode on that card, killed: the console (fbcon's primary
 * device here) shows its text again, not the water's last frame. Last, fbripple on the first
 * card's second head (virtio-gpu's max_outputs=2, Virtual-2 forced on): it takes the CRTC no
 * output uses, and Virtual-1 keeps its CRTC and the console's framebuffer on it, as the kernel's
 * debugfs state says (QEMU gives each head a CRTC of its own, so fbripple before the fix passed
 * too; tests/test_drm fakes outputs that share CRTCs).
 */
static void test_drm_screen_splash_of_its_card(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	static const char *const qemu[] = { "-device", "VGA,xres=640,yres=480", "-device",
					    "virtio-gpu-pci,xres=640,yres=480,max_outputs=2", NULL };
	struct vm_opts o = { .display = VM_NONE, .qemu_args = qemu, .name = "@screen of its card",
			     .script =
		"l() { while read -r m; do insmod $m 2>/dev/null; done </etc/fbvm/$1.modules;"
		" n=0; while [ ! -e $2 ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n+1)); done; }\n"
		"l virtio-gpu /dev/fb0; l bochs /dev/fb1\n"
		"say \"fb0 $(cat /sys/class/graphics/fb0/name) fb1 $(cat /sys/class/graphics/fb1/name)\"\n"
		"fbfill -d /dev/fb0 0000ff >/dev/null; fbfill -d /dev/fb1 -g ff0000 >/dev/null\n"
		"printf '%s\\n' 'display: { device = \"/dev/dri/card1\"; };'"
		" 'splash: { image = \"@screen\"; };'"
		" 'screensaver: { mode = \"idle\"; after = 1; };' >/tmp/idle.conf\n"
		"printf '%s\\n' 'display: { device = \"/dev/dri/card1\"; vt = 2; };'"
		" 'splash: { image = \"@screen\"; };'"
		" 'screensaver: { mode = \"idle\"; after = 1; };' >/tmp/vt.conf\n"
		"killed() { fbfill -c -d /dev/fb0 >/tmp/w0 & w0=$!; fbfill -c -d /dev/fb1 >/tmp/w1 & w1=$!;"
		" n=0; until grep -q watching /tmp/w0 && grep -q watching /tmp/w1 || [ $n -ge 50 ];"
		" do sleep 0.1; n=$((n+1)); done;"
		" kill -${2:-9} $pid; wait $pid; say \"$1 killed $?\";"
		" n=0; while grep -qs fbripple-guard /proc/[0-9]*/comm && [ $n -lt 50 ];"
		" do sleep 0.1; n=$((n+1)); done;"
		" kill $w0 $w1; wait $w0 $w1; say \"$1 guard gone, fb0 $(tail -n 1 /tmp/w0),"
		" fb1 $(grep -q '^writes [1-9]' /tmp/w1 && echo written || tail -n 1 /tmp/w1)\"; }\n"
		"fbripple -v -c /tmp/idle.conf 2>/tmp/fbr.log & pid=$!; say started\n"
		"hear cmd; killed alone\n"
		"fbripple -v -c /tmp/vt.conf 2>>/tmp/fbr.log & pid=$!\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/fbr.log) = 2 ] || [ $n -ge 100 ];"
		" do sleep 0.1; n=$((n+1)); done; say \"shown on vt 2\"\n"
		"hear cmd; killed vt\n"
		"say \"front $(vtstate /dev/tty2 | sed 's/.*active=//')\"\n"
		"sed 's/vt = 2; //; s/card1/card0/' /tmp/vt.conf >/tmp/re.conf\n"
		"fbripple -v -c /tmp/re.conf 2>>/tmp/fbr.log & pid=$!\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/fbr.log) = 3 ] || [ $n -ge 100 ];"
		" do sleep 0.1; n=$((n+1)); done; sed -i 's/card0/card1/' /tmp/re.conf; kill -HUP $pid\n"
		"n=0; until grep -q 'reloaded /tmp/re.conf' /tmp/fbr.log || [ $n -ge 100 ];"
		" do sleep 0.1; n=$((n+1)); done; say \"reloaded: $(grep reloaded /tmp/fbr.log)\"\n"
		"hear cmd; killed reload\n"
		"fbripple -v -c /tmp/idle.conf 2>>/tmp/fbr.log & pid=$!\n"
		"n=0; until [ $(grep -c 'screensaver: shown' /tmp/fbr.log) = 4 ] || [ $n -ge 100 ];"
		" do sleep 0.1; n=$((n+1)); done; say \"shown to stop\"\n"
		"hear cmd; killed stop TERM\n"
		"printf '%s\\n' 'display: { device = \"/dev/dri/card1\"; };'"
		" 'screensaver: { mode = \"always\"; };' >/tmp/always.conf\n"
		"printf '\\033[2J\\033[HFBRIPPLE CONSOLE MARK\\n' >/dev/tty1\n"
		"fbripple -v -c /tmp/always.conf 2>>/tmp/fbr.log & pid=$!; say \"always started\"\n"
		"hear cmd; killed always\n"
		"mount -t debugfs none /sys/kernel/debug\n"
		"heads() { awk '/^plane\\[/ { p = 1; c = \"\" } /^(crtc|connector)\\[/ { p = 0 }"
		" /^connector\\[/ { n = $2 } p && /crtc=/ { split($1, a, \"=\"); c = a[2] }"
		" p && /fb=/ { split($1, a, \"=\"); if (c == \"crtc-0\" && a[2] != 0) f = a[2] }"
		" !p && n && /crtc=/ { split($1, a, \"=\"); o = o \" \" n \"=\" a[2]; n = \"\" }"
		" END { print \"crtc-0 fb\" (f != \"\" && f == fb0 ? \" as found\" : \" \" f) \";\" o }'"
		" fb0=${fb0:-0} /sys/kernel/debug/dri/0/state; }\n"
		"fb0=$(heads | sed 's/crtc-0 fb \\([0-9]*\\).*/\\1/'); say \"heads $(heads)\"\n"
		"echo on >/sys/class/drm/card0-Virtual-2/status\n"
		"printf '%s\\n' 'display: { device = \"/dev/dri/card0\"; output = \"Virtual-2\";'"
		" ' mode = \"640x480\"; };' >/tmp/v2.conf\n"
		"fbripple -v -c /tmp/v2.conf 2>>/tmp/fbr.log & pid=$!\n"
		"n=0; until heads | grep -q Virtual-2=crtc || [ $n -ge 100 ];"
		" do sleep 0.1; n=$((n+1)); done; say \"second head $(heads)\"\n"
		"kill $pid; wait $pid; say \"second head stopped $? $(heads)\"\n"
		"hear cmd; cat /tmp/fbr.log\n" };
	uint32_t red = RED, blue = BLUE;

	vm_case_start(s, &o);
	vm_case_expect(s, "fb0 virtio_gpudrmfb fb1 bochs-drmdrmfb", 30000);
	vm_case_expect(s, "started", 10000);
	usleep(3000000);	/* shown after a second of idle time */
	vm_case_wait_screen(s, 10000, check_middle, &red);
	/* killed: its guard writes the application's framebuffer, fb1, onto itself for the card's
	 * fbdev emulation to show it anew; fb0 is the other card's, and nobody writes it */
	killed_guard_writes_fb1(s, "alone", NULL, &red);
	/* on a VT of its own, the guard hands the application's VT back first */
	vm_case_expect(s, "shown on vt 2", 15000);
	vm_case_wait_screen(s, 10000, check_middle, &red);
	killed_guard_writes_fb1(s, "vt", "front 1", &red);
	/* shown on the first card (its application's frame is blue), a reload moves it to the
	 * second, the application's frame going with it: killed, the guard refreshes the card
	 * drawn on now, whose own frame, red, shows again */
	vm_case_expect(s, "reloaded: fbripple: reloaded /tmp/re.conf: changed display", 20000);
	vm_case_wait_screen(s, 10000, check_middle, &blue);
	killed_guard_writes_fb1(s, "reload", NULL, &red);
	/* stopped: the daemon puts the card back itself, and neither it nor the guard writes fb0 */
	vm_case_expect(s, "shown to stop", 15000);
	assert_int_equal(vm_send(&s->vm, "stop"), 0);
	vm_case_expect(s, "stop killed 0", 10000);
	vm_case_expect(s, "stop guard gone, fb0 writes 0, fb1 ", 10000);
	vm_case_wait_screen(s, 10000, check_middle, &red);
	/* always mode on the second card: the water, then killed, the card's own frame again */
	vm_case_expect(s, "always started", 10000);
	vm_case_wait_screen(s, 10000, check_middle_lit, NULL);
	assert_int_equal(vm_send(&s->vm, "kill"), 0);
	vm_case_expect(s, "always killed 137", 10000);
	vm_case_expect(s, "always guard gone, fb0 writes 0, fb1 ", 10000);
	vm_case_wait_screen(s, 10000, check_console, NULL);
	/* the first card's second head (Virtual-2, forced on): fbripple there takes the CRTC no
	 * output uses, and the first head keeps its own and the console's framebuffer on it */
	vm_case_expect(s, "heads crtc-0 fb as found; Virtual-1=crtc-0 Virtual-2=(null)", 10000);
	vm_case_expect(s, "second head crtc-0 fb as found; Virtual-1=crtc-0 Virtual-2=crtc-1", 20000);
	vm_case_expect(s, "second head stopped 0 crtc-0 fb as found; Virtual-1=crtc-0 "
		       "Virtual-2=(null)", 10000);
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect_exit(s, 0);
}

/* A user not in the group that owns the device: the error says whose it is and what the user
 * needs, for the card and for /dev/fb0 ("auto" passes over a card it cannot open). */
static void test_permission_denied_says_who(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .name = "permissions",
			     .script =
		"printf '%s\\n' 'root:x:0:0:root:/root:/bin/sh' 'kiosk:x:1000:1000::/tmp:/bin/sh'"
		" >/etc/passwd; printf '%s\\n' 'root:x:0:' 'video:x:44:' 'kiosk:x:1000:' >/etc/group\n"
		"chgrp 44 /dev/fb0 /dev/dri/card0; chmod 660 /dev/fb0 /dev/dri/card0\n"
		"echo 'display: { device = \"/dev/dri/card0\"; };' >/tmp/card.conf\n"
		"user() { su kiosk -c \"fbripple --list-devices -c $1\" 2>&1 | grep error; }\n"
		"say \"card $(user /tmp/card.conf)\"\n"
		"say \"auto $(user /dev/null)\"\n"
		"chmod 600 /dev/fb0; say \"owner $(user /dev/null)\"\n" };

	vm_case_start(s, &o);
	vm_case_expect(s, "card fbripple: error: /dev/dri/card0: Permission denied (owned by "
		       "root:video, mode 660: fbripple's user needs to be in group video)", 30000);
	vm_case_expect(s, "auto fbripple: error: /dev/fb0: Permission denied (owned by root:video, "
		       "mode 660: fbripple's user needs to be in group video)", 10000);
	vm_case_expect(s, "owner fbripple: error: /dev/fb0: Permission denied (owned by "
		       "root:video, mode 600: only root may open it)", 10000);
	vm_case_expect_exit(s, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_splash_32bpp_bochs, vm_case_teardown),
		cmocka_unit_test_teardown(test_splash_16bpp_vesa, vm_case_teardown),
		cmocka_unit_test_teardown(test_splash_24bpp_vesa, vm_case_teardown),
		cmocka_unit_test_teardown(test_drop_makes_rings, vm_case_teardown),
		cmocka_unit_test_teardown(test_rotate_90, vm_case_teardown),
		cmocka_unit_test_teardown(test_vt_switch_and_back, vm_case_teardown),
		cmocka_unit_test_teardown(test_console_back_after_sigterm, vm_case_teardown),
		cmocka_unit_test_teardown(test_stop_during_startup, vm_case_teardown),
		cmocka_unit_test_teardown(test_stop_while_away_keeps_the_other_vt, vm_case_teardown),
		cmocka_unit_test_teardown(test_console_back_after_sigsegv, vm_case_teardown),
		cmocka_unit_test_teardown(test_8bpp_refused_clearly, vm_case_teardown),
		cmocka_unit_test_teardown(test_list_devices_display, vm_case_teardown),
		cmocka_unit_test_teardown(test_panning_fbdev_across_a_vt_switch, vm_case_teardown),
		cmocka_unit_test_teardown(test_fbdev_mode_set_under_it, vm_case_teardown),
		cmocka_unit_test_teardown(test_fbdev_reload_keeps_the_mode, vm_case_teardown),
		cmocka_unit_test_teardown(test_no_vt_draws_anyway, vm_case_teardown),
		cmocka_unit_test_teardown(test_drm_bochs, vm_case_teardown),
		cmocka_unit_test_teardown(test_drm_virtio, vm_case_teardown),
		cmocka_unit_test_teardown(test_bochs_goes_away, vm_case_teardown),
		cmocka_unit_test_teardown(test_virtio_goes_away, vm_case_teardown),
		cmocka_unit_test_teardown(test_drm_fallbacks_say_which_card, vm_case_teardown),
		cmocka_unit_test_teardown(test_drm_auto_without_fbdev, vm_case_teardown),
		cmocka_unit_test_teardown(test_drm_screen_splash_of_its_card, vm_case_teardown),
		cmocka_unit_test_teardown(test_permission_denied_says_who, vm_case_teardown),
	};

	if (getenv("FBRIPPLE_TEST_FILTER"))
		cmocka_set_test_filter(getenv("FBRIPPLE_TEST_FILTER"));
	return cmocka_run_group_tests_name("vm display", tests, setup, teardown);
}
