/* fbdev.c - the display on a Linux framebuffer device: its mode, two pages where it pans. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "display.h"
#include "image/pixfmt.h"
#include "vt_guard.h"

/* Pans refused in a row before fbripple gives up flipping and draws on the page on screen: a
 * driver busy for a frame or two is waited out, one that keeps refusing is not. */
#define FBDEV_PAN_TRIES 3

struct fbdev {
	int fd;
	uint8_t *map;
	size_t map_len;
	uint8_t *pixels;	/* the top-left pixel of the virtual screen */
	uint8_t *page_pixels[2];	/* pixels + yoffset * stride of each page */
	int page;		/* the page drawn into next (the one not on screen) */
	int pans_refused;	/* in a row, the page drawn kept off screen each time */
	bool can_vsync;		/* FBIO_WAITFORVSYNC works */
	bool pan_tried;		/* for a second page, and vsync */
	bool hidden;		/* opened hidden: the picture on screen another program's */
	bool shared;		/* taken on the application's own VT: drawn where it pans,
				 * in no other mode (acquire) */
	bool mode_changed;	/* saved is to be put back on close */
	bool handed_over;	/* a reload's display took the device: close leaves it as is */
	bool mode_lost;		/* another program's mode could not be undone: not tried again
				 * each frame, only at our VT's next return */
	char id[17];		/* the driver's name */
	struct fb_var_screeninfo var, saved;	/* the mode as set; as found, for close */
	unsigned long smem_start;	/* the memory mapped: found at open, or after a mode set
					 * that moved it */
	__u32 smem_len;
};

static struct fbdev *fbdev_of(const struct display *d)
{
	return d->state;
}

static int fbdev_flush(struct display *d);

static int format_from_var(struct pixfmt *fmt, const struct fb_fix_screeninfo *fix,
			   const struct fb_var_screeninfo *var)
{
	struct pixfmt_field r = { var->red.offset, var->red.length };
	struct pixfmt_field g = { var->green.offset, var->green.length };
	struct pixfmt_field b = { var->blue.offset, var->blue.length };
	struct pixfmt_field a = { var->transp.offset, var->transp.length };
	int ret;

	if (fix->type != FB_TYPE_PACKED_PIXELS ||
	    (fix->visual != FB_VISUAL_TRUECOLOR && fix->visual != FB_VISUAL_DIRECTCOLOR))
		return -ENOTSUP;
	ret = pixfmt_init(fmt, var->bits_per_pixel, r, g, b);
	if (ret == 0)
		pixfmt_set_alpha(fmt, a);	/* a bogus one is left out: the colours still draw */
	return ret;
}

static int read_info(struct fbdev *fb, struct fb_fix_screeninfo *fix)
{
	if (ioctl(fb->fd, FBIOGET_FSCREENINFO, fix) < 0 ||
	    ioctl(fb->fd, FBIOGET_VSCREENINFO, &fb->var) < 0)
		return -errno;
	return 0;
}

/* Asks for a true-colour depth and reads back what the driver really did: some drivers
 * return 0 and change nothing. */
static int switch_depth(struct fbdev *fb, struct fb_fix_screeninfo *fix, struct pixfmt *fmt,
			int bpp)
{
	struct fb_var_screeninfo want = fb->saved;

	want.bits_per_pixel = bpp;
	want.red = want.green = want.blue = want.transp = (struct fb_bitfield){ 0 };
	want.activate = FB_ACTIVATE_NOW;
	if (ioctl(fb->fd, FBIOPUT_VSCREENINFO, &want) < 0)
		return -errno;
	fb->mode_changed = true;
	if (read_info(fb, fix) < 0)
		return -errno;
	return format_from_var(fmt, fix, &fb->var);
}

/* A depth below 16 bpp or a palette mode is switched to 32, else 16 bpp, where it may be:
 * -EPERM where it may not, -ENOTSUP where the driver refuses both. */
static int choose_format(struct fbdev *fb, struct fb_fix_screeninfo *fix, struct pixfmt *fmt,
			 bool may_switch)
{
	if (format_from_var(fmt, fix, &fb->var) == 0)
		return 0;
	if (!may_switch)
		return -EPERM;
	if (switch_depth(fb, fix, fmt, 32) == 0 || switch_depth(fb, fix, fmt, 16) == 0)
		return 0;
	return -ENOTSUP;
}

/* Whether the mapping holds lines rows from the top of the virtual screen. */
static bool covers(const struct display *d, size_t lines)
{
	const struct fbdev *fb = fbdev_of(d);

	return (size_t)(fb->pixels - fb->map) + lines * d->mode.stride <= fb->map_len;
}

static void crash_follow_map(const uint8_t *old, uint8_t *map, size_t len);

/* After a mode set: a driver may have moved or resized its memory (smem_start, smem_len), which
 * the old mapping then no longer shows, or overruns. Mapped anew then, the pages where they
 * were in it; 0, or -errno with the old mapping kept. */
static int follow_memory(struct display *d, const struct fb_fix_screeninfo *fix)
{
	struct fbdev *fb = fbdev_of(d);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t offset = fix->smem_start & (page - 1), len = offset + fix->smem_len;
	size_t pixels = (size_t)(fb->pixels - fb->map) - (fb->smem_start & (page - 1));
	ptrdiff_t at[2] = { fb->page_pixels[0] - fb->pixels, fb->page_pixels[1] - fb->pixels };
	uint8_t *map;

	if (fix->smem_start == fb->smem_start && fix->smem_len == fb->smem_len)
		return 0;
	map = display_map(fb->fd, len, 0);
	if (map == MAP_FAILED)
		return -errno;
	crash_follow_map(fb->map, map, len);
	munmap(fb->map, fb->map_len);
	fb->map = map;
	fb->map_len = len;
	fb->pixels = map + offset + pixels;
	fb->page_pixels[0] = fb->pixels + at[0];
	fb->page_pixels[1] = fb->pixels + at[1];
	fb->smem_start = fix->smem_start;
	fb->smem_len = fix->smem_len;
	return 0;
}

/* A mode set read back, and the memory followed where the driver moved it. */
static int read_back(struct display *d, struct fb_fix_screeninfo *fix)
{
	int ret = read_info(fbdev_of(d), fix);

	return ret < 0 ? ret : follow_memory(d, fix);
}

static int pan_to(struct fbdev *fb, unsigned int yoffset)
{
	struct fb_var_screeninfo var = fb->var;

	var.xoffset = fb->saved.xoffset;
	var.yoffset = yoffset;
	if (ioctl(fb->fd, FBIOPAN_DISPLAY, &var) < 0)
		return -errno;
	fb->var.yoffset = yoffset;
	return 0;
}

/* Bytes from the start of the mapping to the end of the second page. */
static size_t two_pages(const struct display *d)
{
	const struct fbdev *fb = fbdev_of(d);

	return (size_t)(fb->pixels - fb->map) + (size_t)2 * fb->var.yres * d->mode.stride;
}

/* A second page needs room below the first, either already there or granted on request, and a
 * pan to it that the driver both accepts and reports back. */
static bool grow_virtual(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	struct fb_fix_screeninfo fix;
	struct fb_var_screeninfo before = fb->var, var = fb->var;

	var.yres_virtual = 2 * var.yres;
	var.activate = FB_ACTIVATE_NOW;
	if (ioctl(fb->fd, FBIOPUT_VSCREENINFO, &var) < 0)
		return false;
	if (read_back(d, &fix) == 0 && fb->var.yres_virtual >= 2 * fb->var.yres &&
	    fix.line_length == d->mode.stride && fb->map_len >= two_pages(d)) {
		fb->mode_changed = true;
		return true;
	}
	ioctl(fb->fd, FBIOPUT_VSCREENINFO, &before);
	read_back(d, &fix);
	return false;
}

/* The pages are at y 0 and y yres, whatever offset the console left: two pages that overlap
 * would show the one being drawn. */
static bool probe_pan(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	struct fb_var_screeninfo var;
	unsigned int second = fb->saved.yoffset == fb->var.yres ? 0 : fb->var.yres;

	if (fb->var.yres_virtual < 2 * fb->var.yres && !grow_virtual(d))
		return false;
	if (fb->map_len < two_pages(d))
		return false;
	if (pan_to(fb, second) < 0 || ioctl(fb->fd, FBIOGET_VSCREENINFO, &var) < 0 ||
	    var.yoffset != second) {
		pan_to(fb, fb->saved.yoffset);
		return false;
	}
	pan_to(fb, fb->saved.yoffset);
	return true;
}

/* Probes panning (and vsync) once and sets the pages. -ENOSPC where the mode sets on the way
 * left the driver's memory too small for even the page on screen. */
static int setup_pages(struct display *d, enum display_buffering mode)
{
	struct fbdev *fb = fbdev_of(d);
	int zero = 0;

	fb->pan_tried = mode != DISPLAY_BUFFER_OFF;
	if (mode == DISPLAY_BUFFER_OFF || !probe_pan(d))
		return covers(d, (size_t)fb->var.yoffset + fb->var.yres) ? 0 : -ENOSPC;
	fb->can_vsync = ioctl(fb->fd, FBIO_WAITFORVSYNC, &zero) == 0;
	d->mode.pages = 2;
	fb->page_pixels[0] = fb->pixels;
	fb->page_pixels[1] = fb->pixels + (size_t)fb->var.yres * d->mode.stride;
	/* the first frame goes into the page not on screen */
	fb->page = fb->saved.yoffset == fb->var.yres ? 0 : 1;
	return 0;
}

static int map_device(struct display *d, const struct fb_fix_screeninfo *fix)
{
	struct fbdev *fb = fbdev_of(d);
	size_t offset = fix->smem_start & (sysconf(_SC_PAGESIZE) - 1);

	fb->map_len = offset + fix->smem_len;
	fb->map = display_map(fb->fd, fb->map_len, 0);
	if (fb->map == MAP_FAILED) {
		fb->map = NULL;
		return -errno;
	}
	fb->pixels = fb->map + offset + (size_t)fb->var.xoffset * d->mode.fmt.bytes;
	fb->page_pixels[0] = fb->page_pixels[1] =
		fb->pixels + (size_t)fb->var.yoffset * d->mode.stride;
	return 0;
}

static int fbdev_open(struct display *d, const struct display_request *req, char *err,
		      size_t errlen)
{
	struct display_mode *m = &d->mode;
	struct fb_fix_screeninfo fix;
	struct fbdev *fb = calloc(1, sizeof(*fb));
	int ret;

	if (!fb)
		return display_errorf(-ENOMEM, err, errlen, "%s", strerror(ENOMEM));
	d->state = fb;
	fb->fd = open(req->device, O_RDWR | O_CLOEXEC);
	if (fb->fd < 0)
		return display_open_error(req->device, -errno, err, errlen);
	ret = read_info(fb, &fix);
	if (ret < 0)
		return display_errorf(ret, err, errlen, "not a framebuffer: %s", strerror(-ret));
	fb->saved = fb->var;
	memcpy(fb->id, fix.id, sizeof(fix.id));
	fb->id[sizeof(fix.id)] = '\0';
	ret = choose_format(fb, &fix, &m->fmt, !req->keep_depth);
	if (ret == -EPERM)
		return display_errorf(-ENOTSUP, err, errlen,
			    "%u bpp (type %u, visual %u), which fbripple draws only after switching "
			    "to 32 or 16 bpp, and not while another program's picture is on it",
			    fb->saved.bits_per_pixel, fix.type, fix.visual);
	if (ret < 0)
		return display_errorf(-ENOTSUP, err, errlen,
			    "%u bpp (type %u, visual %u) and no 32 or 16 bpp true-colour mode "
			    "could be set", fb->saved.bits_per_pixel, fix.type, fix.visual);
	m->width = fb->var.xres;
	m->height = fb->var.yres;
	m->stride = fix.line_length;
	/* a driver's numbers are trusted only as far as they fit together */
	if (m->width < 1 || m->height < 1 || m->stride < (size_t)m->width * m->fmt.bytes ||
	    (m->fmt.bytes != 3 && m->stride % m->fmt.bytes) ||
	    fix.smem_len < ((size_t)fb->var.yoffset + m->height) * m->stride)
		return display_errorf(-EINVAL, err, errlen,
			    "inconsistent geometry: %dx%d at y %u, line length %u, memory %u",
			    m->width, m->height, fb->var.yoffset, fix.line_length, fix.smem_len);
	ret = map_device(d, &fix);
	if (ret < 0)
		return display_errorf(ret, err, errlen, "mmap: %s", strerror(-ret));
	fb->hidden = fb->shared = req->hidden;
	fb->smem_start = fix.smem_start;
	fb->smem_len = fix.smem_len;
	/* hidden, a depth switched only to learn its layout goes back at once: the screen is
	 * another program's until fbripple shows on a VT of its own (acquire sets it again) */
	if (req->hidden && fb->mode_changed) {
		struct fb_var_screeninfo found = fb->saved;

		found.activate = FB_ACTIVATE_NOW;
		if (ioctl(fb->fd, FBIOPUT_VSCREENINFO, &found) < 0)
			return display_errorf(-errno, err, errlen, "cannot put %u bpp back: %s",
				    fb->saved.bits_per_pixel, strerror(errno));
		fb->mode_changed = false;	/* nothing left to put back */
		ret = ioctl(fb->fd, FBIOGET_FSCREENINFO, &fix) < 0 ? -errno : follow_memory(d, &fix);
		if (ret < 0)
			return display_errorf(ret, err, errlen, "mmap after putting %u bpp back: %s",
				    fb->saved.bits_per_pixel, strerror(-ret));
	}
	/* probing for a second page pans the screen: not while an application shows its own */
	ret = setup_pages(d, req->hidden ? DISPLAY_BUFFER_OFF : req->buffering);
	if (ret < 0)
		return display_errorf(ret, err, errlen, "after a mode set the driver's memory "
			    "(%u bytes) no longer holds a %dx%d page of %zu-byte lines",
			    fb->smem_len, m->width, m->height, m->stride);
	return 0;
}

/* Clears the screen so the console redraws on a clean one, puts back the mode and panning
 * found (saved), unmaps and closes. Opened hidden, the panning is the application's. */
static void fbdev_close(struct display *d, bool clear)
{
	struct fbdev *fb = fbdev_of(d);

	if (!fb)
		return;
	if (clear && fb->map) {
		memset(fb->map, 0, fb->map_len);
		fbdev_flush(d);
	}
	if (fb->handed_over) {
		/* the mode and the pan are the reload's display's */
	} else if (fb->fd >= 0 && fb->mode_changed) {
		fb->saved.activate = FB_ACTIVATE_NOW;
		ioctl(fb->fd, FBIOPUT_VSCREENINFO, &fb->saved);
	} else if (fb->fd >= 0 && !fb->hidden && fb->var.yoffset != fb->saved.yoffset) {
		pan_to(fb, fb->saved.yoffset);
	}
	if (fb->map)
		munmap(fb->map, fb->map_len);
	if (fb->fd >= 0)
		close(fb->fd);
	free(fb);
	d->state = NULL;
}

static struct display_buffer fbdev_buffer(const struct display *d)
{
	const struct fbdev *fb = fbdev_of(d);

	return (struct display_buffer){ fb->page_pixels[fb->page], fb->page };
}

/* The same picture on screen: size, depth and colours, whatever the virtual size. */
static bool same_picture(const struct fb_var_screeninfo *a, const struct fb_var_screeninfo *b)
{
	return a->xres == b->xres && a->yres == b->yres && a->bits_per_pixel == b->bits_per_pixel &&
	       !memcmp(&a->red, &b->red, sizeof(a->red)) &&
	       !memcmp(&a->green, &b->green, sizeof(a->green)) &&
	       !memcmp(&a->blue, &b->blue, sizeof(a->blue));
}

static bool same_mode(const struct fb_var_screeninfo *a, const struct fb_var_screeninfo *b)
{
	return same_picture(a, b) && a->xres_virtual == b->xres_virtual &&
	       a->yres_virtual == b->yres_virtual;
}

static int fbdev_acquire(struct display *d);

/* One page from now on, at the line the screen is panned to: frames are drawn where they show,
 * and may tear. */
static void one_page(struct display *d, unsigned int on_screen)
{
	struct fbdev *fb = fbdev_of(d);

	fb->var.yoffset = on_screen;
	fb->page_pixels[0] = fb->page_pixels[1] = fb->pixels + (size_t)on_screen * d->mode.stride;
	fb->page = 0;
	d->mode.pages = 1;
}

/* A mode not put back whole, its memory mapped anew and maybe smaller: the pages kept inside
 * the mapping, where frames still go. Where they no longer fit, one page, where the screen is
 * panned if it fits there, else at the top. */
static void fit_pages(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	size_t page = (size_t)d->mode.height * d->mode.stride;

	if ((size_t)(fb->page_pixels[0] - fb->map) + page <= fb->map_len &&
	    (size_t)(fb->page_pixels[1] - fb->map) + page <= fb->map_len)
		return;
	one_page(d, covers(d, (size_t)fb->var.yoffset + d->mode.height) ? fb->var.yoffset : 0);
}

/* After a mode set, or another program's pan, the screen panned back to our line from
 * on_screen. Where the driver refuses, one page at on_screen: with two pages the driver's
 * error (mode.pages then says so), with one 0. -ENOSPC where on_screen is past the mapping. */
static int pan_back(struct display *d, unsigned int line, unsigned int on_screen)
{
	struct fbdev *fb = fbdev_of(d);
	int pages = d->mode.pages, ret;

	if (line == on_screen)
		return 0;
	ret = pan_to(fb, line);
	if (ret == 0)
		return 0;
	if (!covers(d, (size_t)on_screen + fb->var.yres))
		return -ENOSPC;
	one_page(d, on_screen);
	return pages == 2 ? ret : 0;
}

/* Another program set a mode while our VT is in front (fbset in a boot script): ours back, as
 * on our VT's return. -ESTALE when it was put back (the frame goes out whole again), -EIO
 * (once) when it could not be (maybe one page left, in memory that moved), else 0; put back but
 * the pan to our page refused, one page on screen and the driver's error (as fbdev_present).
 * Beside an application, on its VT, the mode is the application's. */
static int keep_mode(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	struct fb_var_screeninfo now;
	int pages = d->mode.pages, ret;

	if (fb->shared || fb->mode_lost || ioctl(fb->fd, FBIOGET_VSCREENINFO, &now) < 0)
		return 0;
	/* two pages: the pan is ours to change */
	if (same_mode(&now, &fb->var) && now.xoffset == fb->saved.xoffset &&
	    (d->mode.pages == 2 || now.yoffset == fb->var.yoffset))
		return 0;
	ret = fbdev_acquire(d);
	if (ret < 0 && ret != -EIO && d->mode.pages < pages)
		return ret;
	fb->mode_lost = ret < 0;	/* no mode set a frame */
	return ret < 0 ? -EIO : -ESTALE;
}

/* The driver refused to pan to the page just drawn: it stays off screen and is handed out
 * again (-EAGAIN). Refused FBDEV_PAN_TRIES times in a row, one page, the one on screen, and the
 * driver's error. */
static int pan_refused(struct display *d, int err)
{
	struct fbdev *fb = fbdev_of(d);

	if (++fb->pans_refused < FBDEV_PAN_TRIES)
		return -EAGAIN;
	one_page(d, fb->var.yoffset);
	return err;
}

static int fbdev_present(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	int zero = 0, ret = keep_mode(d);
	unsigned int yoffset;

	if (ret < 0 || d->mode.pages < 2)
		return ret;
	yoffset = (unsigned int)((fb->page_pixels[fb->page] - fb->pixels) / d->mode.stride);
	ret = pan_to(fb, yoffset);
	if (ret < 0)
		return pan_refused(d, ret);
	fb->pans_refused = 0;
	fb->page ^= 1;
	/* the pan is latched at the next vblank: wait for it before drawing into the other page,
	 * which is on screen until then */
	if (fb->can_vsync)
		ioctl(fb->fd, FBIO_WAITFORVSYNC, &zero);
	return 0;
}

/* Drivers with deferred I/O (DRM's fbdev emulation) show writes only once flushed. */
static int fbdev_flush(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);

	return msync(fb->map, fb->map_len, MS_SYNC) < 0 ? -errno : 0;
}

/* vesafb refuses with -EINVAL. */
static int fbdev_blank(struct display *d, bool blank)
{
	int arg = blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK;

	return ioctl(fbdev_of(d)->fd, FBIOBLANK, arg) < 0 ? -errno : 0;
}

static void fbdev_share(struct display *d, bool shared)
{
	fbdev_of(d)->shared = fbdev_of(d)->hidden && shared;
}

/* The line the screen is panned to now, in *line. -EMEDIUMTYPE where it shows the depth found
 * at open, which fbripple cannot draw; -ESTALE where it shows another picture than the one
 * opened (another mode, line length or memory); -ERANGE where it is panned where one page
 * cannot be drawn (sideways, wrapped or off the mapping). */
static int panned_line(const struct display *d, unsigned int *line)
{
	const struct fbdev *fb = fbdev_of(d);
	struct fb_var_screeninfo now;
	struct fb_fix_screeninfo fix;

	if (ioctl(fb->fd, FBIOGET_VSCREENINFO, &now) < 0 ||
	    ioctl(fb->fd, FBIOGET_FSCREENINFO, &fix) < 0)
		return -errno;
	if (!same_picture(&now, &fb->var) && same_picture(&now, &fb->saved) &&
	    fb->saved.bits_per_pixel != fb->var.bits_per_pixel)
		return -EMEDIUMTYPE;	/* still the depth found, which fbripple switched from */
	if (!same_picture(&now, &fb->var) || fix.line_length != d->mode.stride ||
	    fix.smem_start != fb->smem_start || fix.smem_len != fb->smem_len)
		return -ESTALE;
	if (now.xoffset != fb->var.xoffset || (uint64_t)now.yoffset + now.yres > now.yres_virtual ||
	    (size_t)(fb->pixels - fb->map) + ((size_t)now.yoffset + now.yres) * d->mode.stride >
		    fb->map_len)
		return -ERANGE;
	*line = now.yoffset;
	return 0;
}

static int fbdev_read(const struct display *d, struct image *img)
{
	const struct fbdev *fb = fbdev_of(d);
	const uint8_t *shown = fb->page_pixels[d->mode.pages == 2 ? fb->page ^ 1 : 0];
	unsigned int line;

	/* hidden, or one page of a mode found as it is: where it is panned now, an
	 * application's page; none in another mode, and hidden none where the pan cannot be
	 * read (shown on its own screen, fbripple's page is, for a screenshot) */
	if (fb->hidden || (d->mode.pages < 2 && !fb->mode_changed)) {
		int ret = panned_line(d, &line);

		if (ret == 0)
			shown = fb->pixels + (size_t)line * d->mode.stride;
		else if (ret != -ERANGE || fb->hidden)
			return ret;
	}
	return pixfmt_read_image(&d->mode.fmt, shown, d->mode.stride, d->mode.width,
				 d->mode.height, img);
}

static void fbdev_describe(const struct display *d, FILE *out)
{
	const struct fbdev *fb = fbdev_of(d);
	const struct display_mode *m = &d->mode;

	fprintf(out, "display %s: fbdev %s\n", d->path, fb->id);
	fprintf(out, "  resolution %dx%d, virtual %ux%u, %d bpp %s, stride %zu bytes\n", m->width,
		m->height, fb->var.xres_virtual, fb->var.yres_virtual, m->fmt.bpp, m->fmt.name,
		m->stride);
	if (fb->mode_changed && fb->saved.bits_per_pixel != fb->var.bits_per_pixel)
		fprintf(out, "  switched from %u bpp, which fbripple cannot draw\n",
			fb->saved.bits_per_pixel);
	if (!fb->pan_tried)
		fprintf(out, "  pan and vsync: not tried (that would move the picture on screen)\n");
	else
		fprintf(out, "  pan: %s; vsync: %s; drawing: %s\n", m->pages == 2 ? "yes" : "no",
			fb->can_vsync ? "yes" : "no",
			m->pages == 2 ? "double buffered" : "single buffer");
}

/* The mode found when fbripple first opened the device, not the one the reload found (the
 * old display's), is the one to put back at the end. */
static void fbdev_hand_over(struct display *from, struct display *to)
{
	struct fbdev *a = fbdev_of(from), *b = fbdev_of(to);

	b->saved = a->saved;
	b->mode_changed |= a->mode_changed;
	a->handed_over = true;
}

/* What a fatal signal handler puts back: read only there, written only by fbdev_crash_guard. */
static struct {
	int fd;
	bool restore_var;
	struct fb_var_screeninfo var;
	uint8_t *map;
	size_t map_len;
} crash = { .fd = -1 };

/* The guarded mapping moved (follow_memory): the handler clears the new one, never an old
 * one unmapped. */
static void crash_follow_map(const uint8_t *old, uint8_t *map, size_t len)
{
	if (crash.map != old)
		return;
	crash.map_len = 0;	/* a signal between these stores clears nothing */
	atomic_signal_fence(memory_order_seq_cst);
	crash.map = map;
	atomic_signal_fence(memory_order_seq_cst);
	crash.map_len = len;
}

static void fbdev_crash_guard(const struct display *d)
{
	const struct fbdev *fb = fbdev_of(d);

	crash.fd = fb->fd;
	crash.var = fb->saved;
	crash.var.activate = FB_ACTIVATE_NOW;
	crash.restore_var = fb->mode_changed || d->mode.pages > 1;
	crash.map = fb->map;
	crash.map_len = fb->map_len;
}

/* Only plain stores and ioctl. */
static void fbdev_crash_restore(bool clear)
{
	for (volatile uint8_t *p = clear ? crash.map : NULL; p && p < crash.map + crash.map_len; p++)
		*p = 0;
	if (crash.fd >= 0 && crash.restore_var)
		ioctl(crash.fd, FBIOPUT_VSCREENINFO, &crash.var);
}

/* display_frame_file: img as the screen shows it now, rows of its own width. */
static int fbdev_frame_file(const struct display *d, const struct image *img)
{
	const struct fbdev *fb = fbdev_of(d);
	const uint8_t *shown = fb->page_pixels[d->mode.pages == 2 ? fb->page ^ 1 : 0];
	struct vt_guard_frame head = {
		.offset = (uint64_t)(shown - fb->pixels) + (uint64_t)fb->var.xoffset * d->mode.fmt.bytes,
		.stride = d->mode.stride,
		.row_bytes = (uint64_t)d->mode.width * d->mode.fmt.bytes,
		.rows = (uint64_t)d->mode.height,
	};
	size_t bytes = sizeof(head) + head.row_bytes * head.rows;
	uint8_t *map;
	int fd, ret = 0;

	if (img->width != d->mode.width || img->height != d->mode.height)
		return -EINVAL;
	snprintf(head.path, sizeof(head.path), "%s", d->path);
	fd = memfd_create("fbripple-app-frame", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = ftruncate(fd, (off_t)bytes) == 0
		      ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (map == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	memcpy(map, &head, sizeof(head));
	pixfmt_convert(&d->mode.fmt, img, map + sizeof(head), head.row_bytes);
	munmap(map, bytes);
	return fd;
}

/*
 * Our VT back in front. On the way the console set the mode it keeps for the VT
 * (fbcon_switch), which it never updates while the VT is in graphics mode: a second page
 * grown, a depth switched, a mode set by a program in graphics mode and the page on screen
 * are undone. Ours again, where the driver keeps it as it was (else -EIO: the water would
 * land off screen or in the wrong format). Found on legacy drivers that pan (a DRM card's
 * fbdev emulation cannot change its mode). Beside an application, what is in front is the
 * truth: its panning is followed instead (panned_line's errors where it cannot be).
 */
static int fbdev_acquire(struct display *d)
{
	struct fbdev *fb = fbdev_of(d);
	struct fb_var_screeninfo now, want = fb->var;
	struct fb_fix_screeninfo fix;
	int ret;

	fb->mode_lost = false;
	/* the application pans (between pages of its own), not fbripple; a hidden display
	 * leaves its panning on close */
	if (fb->shared) {
		unsigned int line;
		int ret = panned_line(d, &line);

		if (ret < 0)
			return ret;
		fb->var.yoffset = line;
		fb->page_pixels[0] = fb->page_pixels[1] = fb->pixels + (size_t)line * d->mode.stride;
		return 0;
	}
	if (ioctl(fb->fd, FBIOGET_VSCREENINFO, &now) < 0)
		return -errno;
	if (same_mode(&now, &want) && now.xoffset == fb->saved.xoffset)
		return pan_back(d, want.yoffset, now.yoffset);
	want.activate = FB_ACTIVATE_NOW;
	if (ioctl(fb->fd, FBIOPUT_VSCREENINFO, &want) < 0)
		return -errno;
	ret = read_info(fb, &fix);
	if (ret < 0)
		return ret;
	/* memory that cannot hold even one page is not followed: the frames go on into the old
	 * mapping, unseen, rather than past the end of the new one */
	if (fix.smem_len < (size_t)(fb->pixels - fb->map) -
				   (fb->smem_start & ((size_t)sysconf(_SC_PAGESIZE) - 1)) +
				   (size_t)d->mode.height * d->mode.stride)
		return -EIO;
	ret = follow_memory(d, &fix);
	if (ret < 0)
		return ret;
	if (!same_mode(&fb->var, &want) || fix.line_length != d->mode.stride ||
	    !covers(d, fb->var.yres_virtual)) {
		fit_pages(d);
		return -EIO;
	}
	return pan_back(d, want.yoffset, fb->var.yoffset);
}

const struct display_ops display_fbdev = {
	.name = "fbdev",
	.open = fbdev_open,
	.close = fbdev_close,
	.buffer = fbdev_buffer,
	.present = fbdev_present,
	.flush = fbdev_flush,
	.blank = fbdev_blank,
	.acquire = fbdev_acquire,
	.share = fbdev_share,
	.read = fbdev_read,
	.describe = fbdev_describe,
	.hand_over = fbdev_hand_over,
	.crash_guard = fbdev_crash_guard,
	.crash_restore = fbdev_crash_restore,
	.frame_file = fbdev_frame_file,
};
