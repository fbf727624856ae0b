/* test_fbdev.c - the fbdev backend against a driver faked in this process: pans it refuses,
 * memory it moves on a mode set. Which page is on screen is the fake's to say. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "config/config.h"
#include "daemon/app.h"
#include "display/display.h"
#include "testutil.h"

enum { W = 64, H = 48 };

/*
 * The driver: ioctl() on the device's descriptor is answered here (fbdev.c, linked into this
 * program, calls this definition); every other descriptor goes to the kernel. The device is a
 * regular file at first; a driver that moves its memory on a mode set (realloc) puts a memfd
 * of the new size under the same descriptor, as a driver's mmap then maps the new memory while
 * an old mapping keeps the old, which nobody shows.
 */
static struct {
	ino_t ino;		/* the file opened as the device */
	int fd;			/* its descriptor in fbdev.c, the last seen; -1 */
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	bool realloc;		/* each mode set gets memory of its own size, elsewhere */
	bool reset_pan;		/* each mode set shows line 0 */
	size_t cap;		/* realloc: at most this much memory (0: no limit) */
	bool fit_virtual;	/* a mode wanting more than cap gets the virtual height cap holds */
	int pans;		/* pans asked for */
	int refuse_from, refuse_to;	/* pans numbered [from, to) refused with refuse_errno */
	int refuse_gap;			/* but of those every refuse_gap-th taken (0: none) */
	int refuse_errno;
	bool keep;		/* every mode set but one of kept's size and depth refused */
	struct fb_var_screeninfo kept;
} fake;

static void fake_layout(struct fb_var_screeninfo *v)
{
	static const struct fb_bitfield none = { 0, 0, 0 };

	v->transp = none;
	if (v->bits_per_pixel == 8) {	/* a palette: no true colour fbripple draws */
		v->red = v->green = v->blue = (struct fb_bitfield){ 0, 8, 0 };
	} else if (v->bits_per_pixel == 32) {
		v->red = (struct fb_bitfield){ 16, 8, 0 };
		v->green = (struct fb_bitfield){ 8, 8, 0 };
		v->blue = (struct fb_bitfield){ 0, 8, 0 };
	} else {
		v->bits_per_pixel = 16;
		v->red = (struct fb_bitfield){ 11, 5, 0 };
		v->green = (struct fb_bitfield){ 5, 6, 0 };
		v->blue = (struct fb_bitfield){ 0, 5, 0 };
	}
}

/* FBIOPUT_VSCREENINFO, the driver's way: 0 or -errno. */
static int fake_set(const struct fb_var_screeninfo *want)
{
	struct fb_var_screeninfo v = *want;
	size_t need;

	if (fake.keep && (v.xres != fake.kept.xres || v.yres != fake.kept.yres ||
			  v.bits_per_pixel != fake.kept.bits_per_pixel))
		return -EINVAL;

	if (v.xres_virtual < v.xres)
		v.xres_virtual = v.xres;
	if (v.yres_virtual < v.yres)
		v.yres_virtual = v.yres;
	fake_layout(&v);
	need = (size_t)v.xres_virtual * v.bits_per_pixel / 8 * v.yres_virtual;
	if (fake.reset_pan || v.yoffset + v.yres > v.yres_virtual)
		v.yoffset = 0;
	if (fake.realloc) {
		int mem = memfd_create("fake-fb", MFD_CLOEXEC);

		if (fake.cap && need > fake.cap && fake.fit_virtual) {
			v.yres_virtual = (__u32)(fake.cap / (v.xres_virtual * v.bits_per_pixel / 8));
			if (v.yres_virtual < v.yres)
				return -EINVAL;
			if (v.yoffset + v.yres > v.yres_virtual)
				v.yoffset = 0;
			need = (size_t)v.xres_virtual * v.bits_per_pixel / 8 * v.yres_virtual;
		}
		if (fake.cap && need > fake.cap)
			need = fake.cap;
		if (mem < 0 || ftruncate(mem, (off_t)need) < 0 || dup2(mem, fake.fd) < 0)
			return -ENOMEM;
		close(mem);
		fake.fix.smem_start += 0x1000000;
		fake.fix.smem_len = (__u32)need;
	} else if (need > fake.fix.smem_len) {
		return -ENOMEM;
	}
	fake.var = v;
	fake.fix.line_length = v.xres_virtual * v.bits_per_pixel / 8;
	fake.fix.visual = v.bits_per_pixel == 8 ? FB_VISUAL_PSEUDOCOLOR : FB_VISUAL_TRUECOLOR;
	return 0;
}

static int fake_pan(const struct fb_var_screeninfo *v)
{
	int n = fake.pans++;

	if (n >= fake.refuse_from && n < fake.refuse_to &&
	    !(fake.refuse_gap && (n - fake.refuse_from) % fake.refuse_gap == fake.refuse_gap - 1))
		return -fake.refuse_errno;
	if (v->xoffset || v->yoffset + fake.var.yres > fake.var.yres_virtual)
		return -EINVAL;
	fake.var.yoffset = v->yoffset;
	return 0;
}

static bool is_device(int fd)
{
	struct stat st;

	if (fd == fake.fd)
		return true;
	/* opened anew (a display reopened): the newest descriptor is the one mapped from now */
	if (fstat(fd, &st) < 0 || st.st_ino != fake.ino)
		return false;
	fake.fd = fd;
	return true;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret = -ENOTTY;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_device(fd))
		return (int)syscall(SYS_ioctl, fd, req, arg);
	if (req == FBIOGET_VSCREENINFO) {
		memcpy(arg, &fake.var, sizeof(fake.var));
		ret = 0;
	} else if (req == FBIOGET_FSCREENINFO) {
		memcpy(arg, &fake.fix, sizeof(fake.fix));
		ret = 0;
	} else if (req == FBIOPUT_VSCREENINFO) {
		ret = fake_set(arg);
	} else if (req == FBIOPAN_DISPLAY) {
		ret = fake_pan(arg);
	} else if (req == FBIOBLANK) {
		ret = 0;
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* The device found at 32 bpp, W x H with a virtual height of shown pages, memory for pages of
 * them; path is its file. */
static char *fake_device(int pages, int shown, bool realloc)
{
	size_t len = (size_t)W * 4 * H * pages;
	struct stat st;
	char *path = tu_device_file("fb", len, &st);

	memset(&fake, 0, sizeof(fake));
	fake.ino = st.st_ino;
	fake.fd = -1;
	fake.realloc = realloc;
	fake.refuse_from = fake.refuse_to = -1;
	fake.var = (struct fb_var_screeninfo){ .xres = W, .yres = H, .xres_virtual = W,
					       .yres_virtual = H * shown, .bits_per_pixel = 32 };
	fake_layout(&fake.var);
	fake.fix = (struct fb_fix_screeninfo){ .smem_start = 0x10000000, .smem_len = (__u32)len,
					       .type = FB_TYPE_PACKED_PIXELS,
					       .visual = FB_VISUAL_TRUECOLOR, .ypanstep = 1,
					       .line_length = W * 4 };
	return path;
}

static void open_device(struct display *d, const char *path)
{
	struct display_request req = { .device = path, .buffering = DISPLAY_BUFFER_AUTO };
	char err[256] = "";
	int ret = display_open(d, &req, err, sizeof(err));

	if (ret < 0)
		fail_msg("open %s: %s", path, err);
	assert_string_equal(d->ops->name, "fbdev");
}

/* What the screen shows, as the driver scans it out: the frame number every pixel of the
 * page it is panned to holds, or -1 when they differ (a frame torn or half drawn). */
static long shown_frame(void)
{
	size_t stride = fake.fix.line_length;
	uint32_t row[W], first;

	assert_int_equal(fake.var.bits_per_pixel, 32);
	assert_true(pread(fake.fd, &first, 4, (off_t)(fake.var.yoffset * stride)) == 4);
	for (unsigned int y = 0; y < fake.var.yres; y++) {
		assert_true(pread(fake.fd, row, sizeof(row),
				  (off_t)((fake.var.yoffset + y) * stride)) == sizeof(row));
		for (int x = 0; x < W; x++)
			if (row[x] != first)
				return -1;
	}
	return first;
}

/* Whether the buffer handed out next is the page on screen, two pages being y 0 and y yres. */
static bool drawing_on_screen(const struct display *d)
{
	struct display_buffer buf = display_buffer(d);

	return d->mode.pages == 2 && (unsigned int)buf.page * fake.var.yres == fake.var.yoffset;
}

/* Frames 1 .. frames drawn and presented: each either shown whole or refused, the screen then
 * still showing the last one shown whole; never one drawn on the page on screen while two
 * pages are flipped. How many presents fell back to one page, in *fallbacks. */
static long run_frames(struct display *d, uint32_t first, uint32_t last, long shown,
		       int refused_errno, int *fallbacks)
{
	for (uint32_t n = first; n <= last; n++) {
		int pages = d->mode.pages, ret;

		if (drawing_on_screen(d))
			fail_msg("frame %u handed the page on screen (line %u) to draw into", n,
				 fake.var.yoffset);
		tu_draw_frame(d, n);
		ret = display_present(d);
		if (ret == 0) {
			shown = n;
		} else if (d->mode.pages < pages) {
			/* given up flipping: the driver's own error, said once by the caller */
			assert_int_equal(ret, -refused_errno);
			++*fallbacks;
		} else {
			assert_int_equal(ret, -EAGAIN);	/* not shown: the same page again */
		}
		if (shown_frame() != shown)
			fail_msg("after frame %u the screen shows %ld, not frame %ld", n,
				 shown_frame(), shown);
	}
	return shown;
}

/* The device of fake_device(pages, shown, realloc) opened in d with two pages, and frames
 * 1 .. frames shown on them as run_frames says; its path. */
static char *open_and_show(struct display *d, int pages, int shown, bool realloc,
			   uint32_t frames, int *fallbacks)
{
	char *path = fake_device(pages, shown, realloc);

	open_device(d, path);
	assert_int_equal(d->mode.pages, 2);
	assert_int_equal(run_frames(d, 1, frames, 0, 0, fallbacks), frames);
	return path;
}

/* On a device of two pages, pans refused with errno_ from the fourth on (refused of them, or
 * every one from there: -1; but every gap-th taken, 0: none): frames 1 .. frames each shown
 * whole or refused as run_frames says, then fallbacks falls back to one page counted and pages
 * pages left. */
static void refused_pans(int refused, int gap, int errno_, uint32_t frames, int fallbacks,
			 int pages)
{
	struct display d;
	int fell_back = 0;
	char *path = open_and_show(&d, 2, 1, false, 0, &fell_back);

	fake.refuse_gap = gap;
	fake.refuse_from = fake.pans + 3;
	fake.refuse_to = refused < 0 ? 1 << 30 : fake.refuse_from + refused;
	fake.refuse_errno = errno_;
	assert_int_equal(run_frames(&d, 1, frames, 0, errno_, &fell_back), frames);
	assert_int_equal(fell_back, fallbacks);
	assert_int_equal(d.mode.pages, pages);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* A driver that pans at first and then refuses every pan (-EBUSY): after a few tries one
 * page, the one on screen, and every frame from then on shown whole there. */
static void test_refused_pans_fall_back_to_the_page_on_screen(void **state)
{
	(void)state;
	refused_pans(-1, 0, EBUSY, 12, 1, 1);
}

/* One pan refused (-EINVAL, as a driver says when busy elsewhere): the frame is not shown,
 * its page stays off screen and is drawn again, and the next pan flips as before. */
static void test_one_refused_pan_keeps_the_page(void **state)
{
	(void)state;
	refused_pans(1, 0, EINVAL, 8, 0, 2);
}

/* Another program sets xres x yres at bpp, one page at line 0, on the driver (which takes it). */
static void other_program_sets(unsigned int xres, unsigned int yres, unsigned int bpp)
{
	struct fb_var_screeninfo other = fake.var;

	other.xres = other.xres_virtual = xres;
	other.yres = other.yres_virtual = yres;
	other.bits_per_pixel = bpp;
	other.yoffset = 0;
	assert_int_equal(fake_set(&other), 0);
}

/* Pans refused two at a time, each two followed by one the driver takes: refused never
 * FBDEV_PAN_TRIES times in a row, so the two pages stay (a pan taken starts the count anew). */
static void test_refusals_apart_keep_two_pages(void **state)
{
	(void)state;
	refused_pans(-1, 3, EBUSY, 12, 0, 2);
}

/* A driver whose memory is sized to each mode and moves when it changes: the second page
 * fbripple grows is in memory mapped anew, and the frames drawn there show. */
static void test_second_page_in_moved_memory(void **state)
{
	struct display d;
	int fallbacks = 0;
	char *path = open_and_show(&d, 1, 1, true, 4, &fallbacks);

	(void)state;
	assert_int_equal(fake.var.yres_virtual, 2 * H);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* Another program sets its mode (16 bpp, one page) on such a driver while fbripple draws:
 * fbripple's own goes back at the next frame, in memory that moved twice, and the frames after
 * show there. */
static void test_mode_put_back_in_moved_memory(void **state)
{
	struct display d;
	int fallbacks = 0;
	char *path = open_and_show(&d, 2, 2, true, 3, &fallbacks);

	(void)state;
	other_program_sets(W, H, 16);
	tu_draw_frame(&d, 4);
	assert_int_equal(display_present(&d), -ESTALE);	/* put back; drawn whole again */
	assert_int_equal(fake.var.bits_per_pixel, 32);
	assert_int_equal(fake.var.yres_virtual, 2 * H);
	assert_int_equal(run_frames(&d, 5, 8, 3, 0, &fallbacks), 8);
	assert_int_equal(d.mode.pages, 2);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* A driver that moves its memory on a mode set and then has less of it than a page (half): the
 * open fails and says why, rather than drawing past the driver's memory or into memory it no
 * longer shows. */
static void test_memory_short_after_a_mode_set_fails_the_open(void **state)
{
	char *path = fake_device(1, 1, true);
	struct display_request req = { .device = path, .buffering = DISPLAY_BUFFER_AUTO };
	struct display d;
	char err[256] = "";

	(void)state;
	fake.cap = (size_t)W * 4 * H / 2;
	assert_int_equal(display_open(&d, &req, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "after a mode set the driver's memory (6144 bytes) no longer "
				 "holds a 64x48 page of 256-byte lines");
	assert_false(display_is_open(&d));
	tu_device_file_remove(path);
}

/* Another program's mode set on a driver that then shows line 0 and refuses every pan: the
 * next frame puts fbripple's mode back, cannot pan back to the page it showed, and draws on
 * the page on screen from then on (the driver's error once), never on a page not shown. */
static void test_mode_put_back_where_pans_are_refused(void **state)
{
	struct display d;
	int fallbacks = 0;
	char *path = open_and_show(&d, 2, 2, false, 3, &fallbacks);

	(void)state;
	assert_int_equal(fake.var.yoffset, H);
	fake.reset_pan = true;
	other_program_sets(W, H, 16);
	fake.refuse_from = fake.pans;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = EINVAL;
	tu_draw_frame(&d, 4);
	assert_int_equal(display_present(&d), -EINVAL);
	assert_int_equal(d.mode.pages, 1);
	assert_int_equal(fake.var.bits_per_pixel, 32);
	assert_int_equal(fake.var.yoffset, 0);
	assert_int_equal(run_frames(&d, 5, 8, 0, 0, &fallbacks), 8);
	assert_int_equal(fallbacks, 0);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* Frames first .. last drawn and presented, whatever present says: each page handed out ends
 * inside the memory mapped (its last byte is mapped). */
static void frames_inside_the_mapping(struct display *d, uint32_t first, uint32_t last)
{
	for (uint32_t n = first; n <= last; n++) {
		struct display_buffer buf = display_buffer(d);
		unsigned char vec;

		if (mincore((void *)((uintptr_t)(buf.pixels + (size_t)H * d->mode.stride - 1) &
				     ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)), 1, &vec) < 0)
			fail_msg("frame %u: the page handed out ends past the mapping", n);
		tu_draw_frame(d, n);
		display_present(d);
	}
}

/* Another program's mode on a driver that sizes its memory to each mode, after which it has
 * memory for one page of fbripple's only: fbripple's mode cannot be put back whole (-EIO), and
 * the memory mapped anew holds one page. The frames drawn after it stay inside that memory,
 * on the page on screen, never on a second page past its end. */
static void test_mode_back_in_memory_for_one_page(void **state)
{
	struct display d;
	int fallbacks = 0;
	char *path = open_and_show(&d, 2, 2, true, 2, &fallbacks);

	(void)state;
	other_program_sets(W, H, 16);
	fake.cap = (size_t)W * 4 * H;
	fake.fit_virtual = true;
	tu_draw_frame(&d, 3);
	assert_int_equal(display_present(&d), -EIO);
	assert_int_equal(fake.var.yres_virtual, H);
	assert_int_equal(fake.fix.smem_len, W * 4 * H);
	frames_inside_the_mapping(&d, 4, 7);
	assert_int_equal(shown_frame(), 7);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* The same with memory for half a page: not mapped at all (it would end inside the page), and
 * the frames after go on into the memory mapped before, unseen, never past a mapping's end. */
static void test_mode_back_in_memory_for_half_a_page(void **state)
{
	struct display d;
	int fallbacks = 0;
	char *path = open_and_show(&d, 2, 2, true, 2, &fallbacks);

	(void)state;
	other_program_sets(W, H, 16);
	fake.cap = (size_t)W * 4 * H / 2;
	tu_draw_frame(&d, 3);
	assert_int_equal(display_present(&d), -EIO);
	frames_inside_the_mapping(&d, 4, 7);
	display_close(&d, false);
	tu_device_file_remove(path);
}

/* The frame number screen_draw's test stripes put in rows y0 .. y0 + 7 of the page on
 * screen (bit i the 8x8 square at x = 8i, white for 1), the driver's mode being of bpp 32 or 16. */
static uint32_t shown_stripe_at(int y0, unsigned int bpp)
{
	size_t stride = fake.fix.line_length, size = bpp / 8;
	uint32_t white = bpp == 32 ? 0xffffff : 0xffff, n = 0;

	assert_int_equal(fake.var.bits_per_pixel, bpp);
	for (int i = 0; i < (int)fake.var.xres / 8; i++) {
		off_t at = (off_t)((fake.var.yoffset + y0 + 4) * stride + (size_t)(8 * i + 4) * size);
		uint32_t px = 0;

		assert_true(pread(fake.fd, &px, size, at) == (ssize_t)size);
		n |= (uint32_t)((px & white) == white) << i;
	}
	return n;
}

static uint32_t shown_stripe(int y0)
{
	return shown_stripe_at(y0, 32);
}

static uint32_t shown_stripe16(int y0)
{
	return shown_stripe_at(y0, 16);
}

/* The daemon's screen on the fake device, set up as at start with one thread, cfg its
 * configuration (the defaults); drawing the test stripes. */
static void open_screen(struct screen *s, struct config *cfg, const char *path)
{
	struct display_request req = { .device = path, .buffering = DISPLAY_BUFFER_AUTO };

	config_defaults(cfg);
	cfg->display.threads = 1;
	screen_init(s);
	s->stripes = true;
	assert_int_equal(screen_open(s, &req), 0);
	assert_int_equal(screen_setup(s, cfg), 0);
}

/* The daemon's screen over a driver that stops panning: one warning that says so and why,
 * and from then on every frame shown whole (its number at the top and at the bottom). */
static void test_screen_says_once_it_draws_on_one_page(void **state)
{
	char *path = fake_device(2, 1, false);
	struct config cfg;
	struct screen s;
	struct tu_log log;
	char text[4096] = "";

	(void)state;
	tu_log_open(&log);
	open_screen(&s, &cfg, path);
	assert_int_equal(s.display.mode.pages, 2);
	fake.refuse_from = fake.pans + 2;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = EBUSY;
	tu_log_start(&log);
	for (int i = 0; i < 10; i++)
		screen_draw(&s, false);
	tu_log_stop(&log);
	assert_int_equal(s.display.mode.pages, 1);
	/* 2 flipped, 3 refused, 5 on the page on screen */
	assert_int_equal(s.frames, 7);
	assert_int_equal(shown_stripe(0), 6);
	assert_int_equal(shown_stripe(H - 8), 6);
	tu_log_text(&log, text, sizeof(text));
	assert_non_null(strstr(text, ": the driver refused to pan to the page drawn (Device or "
				     "resource busy); drawing on the page on screen from now on, "
				     "single buffered: frames may tear\n"));
	assert_null(strstr(strstr(text, "refused to pan") + 1, "refused to pan"));	/* once */
	screen_release(&s);
	tu_log_close(&log);
	tu_device_file_remove(path);
}

/* A pan refused once at the last frame the water owes (calm, nothing else pending): that frame
 * is still owed, so that the frame timer draws it again rather than stopping with the frame
 * before it on screen. */
static void test_screen_owes_a_refused_frame(void **state)
{
	char *path = fake_device(2, 1, false);
	struct config cfg;
	struct screen s;

	(void)state;
	open_screen(&s, &cfg, path);
	assert_int_equal(s.display.mode.pages, 2);
	screen_draw(&s, true);	/* both pages whole: nothing owed */
	screen_draw(&s, false);
	assert_true(screen_calm(&s));
	assert_false(screen_wants_frame(&s));
	fake.refuse_from = fake.pans;
	fake.refuse_to = fake.pans + 1;
	fake.refuse_errno = EBUSY;
	screen_draw(&s, false);
	assert_int_equal(fake.pans, fake.refuse_to);	/* asked, and refused */
	assert_int_equal(shown_stripe(0), s.frames - 1);	/* the frame before it */
	assert_true(screen_wants_frame(&s));
	screen_draw(&s, false);
	assert_int_equal(shown_stripe(0), s.frames - 1);
	assert_false(screen_wants_frame(&s));
	screen_release(&s);
	tu_device_file_remove(path);
}

/* The daemon's app over the fake device: its screen set up as at start; its workers closed,
 * so that an adoption's pictures are made at once (adopt_mode, as the daemon's frame calls). */
static struct app *fake_app(const char *path)
{
	struct app *app = calloc(1, sizeof(*app));

	assert_non_null(app);
	app->loop.epfd = -1;
	open_screen(&app->screen, &app->cfg, path);
	return app;
}

/* Frames as the daemon draws them: each followed by an adoption where it found the mode lost. */
static void app_frames(struct app *app, int n)
{
	for (int i = 0; i < n; i++) {
		screen_draw(&app->screen, false);
		if (app->screen.mode_lost)
			adopt_mode(app);
	}
}

/* Another program sets a mode of its own (32x24 at 16 bpp) while fbripple draws, and the
 * driver keeps it, refusing fbripple's back: fbripple adopts it, says so once, and every frame
 * from then on is drawn whole in the new geometry (its number at its top and bottom). */
static void adopts_a_mode(bool worker)
{
	char *path = fake_device(2, 1, false);
	struct app *app = fake_app(path);
	struct screen *s = &app->screen;
	struct loop loop = { .epfd = -1 };
	struct tu_log log;
	char text[4096] = "";
	unsigned long frames;

	tu_log_open(&log);
	if (worker) {
		assert_int_equal(loop_init(&loop), 0);
		assert_int_equal(worker_open(&app->adopts, &loop), 0);
	}
	app_frames(app, 3);
	other_program_sets(32, 24, 16);
	fake.kept = fake.var;
	fake.keep = true;
	tu_log_start(&log);
	app_frames(app, 3);
	/* on a worker, the pictures are made while the loop runs on: nothing drawn meanwhile,
	 * in either mode, until the loop hears that they are done */
	frames = s->frames;
	for (int i = 0; worker && i < 3; i++)
		app_frames(app, 1);
	assert_int_equal(s->frames, frames);
	for (int i = 0; worker && s->mode_lost && i < 100; i++)
		assert_true(loop_dispatch(&loop, 1000) >= 0);
	app_frames(app, 3);
	tu_log_stop(&log);
	assert_false(s->mode_lost);
	assert_int_equal(s->display.mode.width, 32);
	assert_int_equal(s->display.mode.height, 24);
	assert_int_equal(s->display.mode.fmt.bpp, 16);
	assert_int_equal(s->render.width, 32);
	assert_int_equal(fake.var.xres, 32);
	assert_int_equal(fake.var.bits_per_pixel, 16);
	assert_int_equal(shown_stripe16(0), s->frames - 1);
	assert_int_equal(shown_stripe16(24 - 8), s->frames - 1);
	tu_log_text(&log, text, sizeof(text));
	assert_non_null(strstr(text, ": another program set 32x24 RGB565, and the driver does not "
				     "take fbripple's mode back; drawing in it from now on\n"));
	assert_null(strstr(strstr(text, "another program") + 1, "another program"));	/* once */
	worker_close(&app->adopts);
	if (worker)
		loop_free(&loop);
	screen_release(s);
	free(app);
	tu_log_close(&log);
	tu_device_file_remove(path);
}

static void test_screen_adopts_a_mode_it_cannot_put_back(void **state)
{
	(void)state;
	adopts_a_mode(false);
}

/* The same with the daemon's worker: the new mode's pictures made off the loop. */
static void test_screen_adopts_a_mode_with_pictures_made_off_the_loop(void **state)
{
	(void)state;
	adopts_a_mode(true);
}

/* The STATUS= line `systemctl status` would show for app now, into line. */
static void status_said(struct app *app, char *line, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/fbripple-test-notify-XXXXXX", got[1024];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ssize_t n;
	char *at;

	assert_non_null(mkdtemp(dir));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/notify", dir);
	assert_true(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	setenv("NOTIFY_SOCKET", addr.sun_path, 1);
	app->status = (struct status){ .timer.fd = -1, .wanted = true };
	status_tell(app, NULL);
	unsetenv("NOTIFY_SOCKET");
	n = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	got[n] = '\0';
	at = strstr(got, "STATUS=");
	assert_non_null(at);
	snprintf(line, len, "%s", at + strlen("STATUS="));
	close(fd);
	unlink(addr.sun_path);
	rmdir(dir);
}

/* Another program sets 8 bpp, a palette mode, and the driver keeps it: fbripple says once that
 * it cannot draw there, and writes nothing into the other program's picture, until its VT is
 * back in front and the driver takes its mode again. */
static void test_screen_draws_nothing_in_a_mode_it_cannot_draw(void **state)
{
	char *path = fake_device(2, 1, false);
	size_t bytes = (size_t)W * H;
	struct app *app = fake_app(path);
	struct screen *s = &app->screen;
	char text[4096] = "", *picture = malloc(bytes), *now = malloc(bytes);
	int mem = open(path, O_RDWR | O_CLOEXEC);
	struct tu_log log;

	(void)state;
	tu_log_open(&log);
	assert_true(mem >= 0 && picture && now);
	app_frames(app, 3);
	other_program_sets(W, H, 8);
	fake.kept = fake.var;
	fake.keep = true;
	tu_log_start(&log);
	/* the frame that finds the mode changed was drawn before: the other program draws its
	 * picture after it, and from then on nothing is written over it */
	screen_draw(s, false);
	assert_true(s->mode_lost);
	memset(picture, 0x5a, bytes);
	assert_true(pwrite(mem, picture, bytes, 0) == (ssize_t)bytes);
	app_frames(app, 6);
	tu_log_stop(&log);
	assert_true(s->mode_lost);
	/* a frame owed (woken from blank) is not one the timer runs for: none can be drawn */
	screen_blank(s, false);
	assert_false(screen_wants_frame(s));
	/* read where the failed open's descriptor, closed, cannot stand in for the device */
	assert_true(pread(mem, now, bytes, 0) == (ssize_t)bytes);
	assert_memory_equal(now, picture, bytes);
	assert_int_equal(fake.var.bits_per_pixel, 8);
	tu_log_text(&log, text, sizeof(text));
	assert_non_null(strstr(text, ": another program set a mode the driver keeps, and fbripple "
				     "cannot draw in it ("));
	assert_non_null(strstr(text, "); drawing nothing until fbripple's VT is in front again\n"));
	assert_null(strstr(strstr(text, "cannot draw in it") + 1, "cannot draw in it"));
	status_said(app, text, sizeof(text));
	assert_int_equal(strncmp(text, "drawing nothing until its VT is in front again: another "
				       "program's mode on ", 74), 0);
	assert_string_equal(text + 74, path);
	/* our VT back, and the driver takes fbripple's mode again: drawn whole in it */
	fake.keep = false;
	assert_int_equal(screen_retake(s), 0);
	assert_false(s->mode_lost);
	assert_int_equal(fake.var.bits_per_pixel, 32);
	assert_int_equal(shown_stripe(0), s->frames - 1);
	assert_int_equal(shown_stripe(H - 8), s->frames - 1);
	screen_release(s);
	free(app);
	free(picture);
	free(now);
	close(mem);
	tu_log_close(&log);
	tu_device_file_remove(path);
}


/* The application's picture on its page page (at line page * H): every pixel its own, and
 * each page its own. */
static uint32_t app_pixel(int page, int x, int y)
{
	return (uint32_t)(page + 1) << 20 | (uint32_t)y << 8 | (uint32_t)x;
}

/* The application draws its picture on page page of the device file mem. */
static void app_draws_page(int mem, int page)
{
	uint32_t row[W];

	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++)
			row[x] = app_pixel(page, x, y);
		assert_true(pwrite(mem, row, sizeof(row), (off_t)((page * H + y) * W * 4)) ==
			    sizeof(row));
	}
}

/* Whether page page of the device file mem holds the application's picture, every pixel. */
static bool page_holds_app(int mem, int page)
{
	uint32_t row[W];

	for (int y = 0; y < H; y++) {
		assert_true(pread(mem, row, sizeof(row), (off_t)((page * H + y) * W * 4)) ==
			    sizeof(row));
		for (int x = 0; x < W; x++)
			if (row[x] != app_pixel(page, x, y))
				return false;
	}
	return true;
}

/* Idle mode beside an application that pans between two pages of its own and shows its
 * second, fbripple shown on the application's VT (display.vt 0) with double_buffer "on", over
 * a driver that refuses every pan: the hide puts the application's frame back on the page the
 * driver scans out, and its other page is left as it was. fbdev beside an application draws on
 * the one page on screen (opened hidden, it never flips), so no pan is asked, and none refused
 * can keep the frame put back off screen. The water is drawn over the built-in splash, not
 * "@screen": only the frame put back shows the application's picture. */
static void test_hide_puts_the_app_frame_on_the_page_scanned_out(void **state)
{
	char *path = fake_device(2, 2, false);
	struct display_request req = { .device = path, .buffering = DISPLAY_BUFFER_ON,
				       .hidden = true, .await_master = true };
	int mem = open(path, O_RDWR | O_CLOEXEC);
	struct config cfg;
	struct screen s;

	(void)state;
	assert_true(mem >= 0);
	fake.var.yoffset = H;
	app_draws_page(mem, 0);
	app_draws_page(mem, 1);
	config_defaults(&cfg);
	cfg.display.threads = 1;
	cfg.display.vt = 0;
	screen_init(&s);
	assert_int_equal(screen_open(&s, &req), 0);
	assert_int_equal(screen_setup(&s, &cfg), 0);
	screen_stand_by(&s);
	assert_int_equal(screen_show(&s, &cfg), 0);
	assert_int_equal(s.display.mode.pages, 1);
	screen_drop(&s, W / 2, H / 2, 10, 500);
	for (int i = 0; i < 4; i++) {
		screen_step(&s, 1, 1.0 / 60);
		screen_draw(&s, false);
	}
	assert_false(page_holds_app(mem, 1));	/* the water on screen */
	fake.refuse_from = fake.pans;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = EBUSY;
	screen_hide(&s, &cfg);
	assert_int_equal(fake.var.yoffset, H);
	assert_true(page_holds_app(mem, 1));
	assert_true(page_holds_app(mem, 0));
	assert_int_equal(fake.pans, 0);
	screen_release(&s);
	close(mem);
	tu_device_file_remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_pans_fall_back_to_the_page_on_screen),
		cmocka_unit_test(test_one_refused_pan_keeps_the_page),
		cmocka_unit_test(test_refusals_apart_keep_two_pages),
		cmocka_unit_test(test_second_page_in_moved_memory),
		cmocka_unit_test(test_mode_put_back_in_moved_memory),
		cmocka_unit_test(test_memory_short_after_a_mode_set_fails_the_open),
		cmocka_unit_test(test_mode_put_back_where_pans_are_refused),
		cmocka_unit_test(test_mode_back_in_memory_for_one_page),
		cmocka_unit_test(test_mode_back_in_memory_for_half_a_page),
		cmocka_unit_test(test_screen_says_once_it_draws_on_one_page),
		cmocka_unit_test(test_screen_owes_a_refused_frame),
		cmocka_unit_test(test_screen_adopts_a_mode_it_cannot_put_back),
		cmocka_unit_test(test_screen_adopts_a_mode_with_pictures_made_off_the_loop),
		cmocka_unit_test(test_screen_draws_nothing_in_a_mode_it_cannot_draw),
		cmocka_unit_test(test_hide_puts_the_app_frame_on_the_page_scanned_out),
	};

	if (getenv("FBRIPPLE_TEST_FILTER"))
		cmocka_set_test_filter(getenv("FBRIPPLE_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
