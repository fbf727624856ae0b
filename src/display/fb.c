/* fb.c - open and map a fbdev device, or a regular file standing in for one. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fb.h"

static void fb_reset(struct fb *fb)
{
	memset(fb, 0, sizeof(*fb));
	fb->fd = -1;
	fb->pages = 1;
}

static int fail(struct fb *fb, int ret, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(struct fb *fb, int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	fb_close(fb);
	return ret;
}

static int map(struct fb *fb, size_t offset, size_t len)
{
	fb->map_len = offset + len;
	fb->map = mmap(NULL, fb->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fb->fd, 0);
	if (fb->map == MAP_FAILED) {
		fb->map = NULL;
		return -errno;
	}
	fb->pixels = fb->map + offset;
	fb->page_pixels[0] = fb->page_pixels[1] = fb->pixels;
	return 0;
}

static int format_from_var(struct pixfmt *fmt, const struct fb_fix_screeninfo *fix,
			   const struct fb_var_screeninfo *var)
{
	struct pixfmt_field r = { var->red.offset, var->red.length };
	struct pixfmt_field g = { var->green.offset, var->green.length };
	struct pixfmt_field b = { var->blue.offset, var->blue.length };

	if (fix->type != FB_TYPE_PACKED_PIXELS ||
	    (fix->visual != FB_VISUAL_TRUECOLOR && fix->visual != FB_VISUAL_DIRECTCOLOR))
		return -ENOTSUP;
	return pixfmt_init(fmt, var->bits_per_pixel, r, g, b);
}

static int read_info(struct fb *fb, struct fb_fix_screeninfo *fix)
{
	if (ioctl(fb->fd, FBIOGET_FSCREENINFO, fix) < 0 ||
	    ioctl(fb->fd, FBIOGET_VSCREENINFO, &fb->var) < 0)
		return -errno;
	return 0;
}

/* Asks for a true-colour depth and reads back what the driver really did: some drivers
 * return 0 and change nothing. */
static int switch_depth(struct fb *fb, struct fb_fix_screeninfo *fix, int bpp)
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
	return format_from_var(&fb->fmt, fix, &fb->var);
}

static int choose_format(struct fb *fb, struct fb_fix_screeninfo *fix)
{
	if (format_from_var(&fb->fmt, fix, &fb->var) == 0)
		return 0;
	if (switch_depth(fb, fix, 32) == 0 || switch_depth(fb, fix, 16) == 0)
		return 0;
	return -ENOTSUP;
}

int fb_open(struct fb *fb, const char *path, char *err, size_t errlen)
{
	struct fb_fix_screeninfo fix;
	int ret;

	fb_reset(fb);
	snprintf(fb->path, sizeof(fb->path), "%s", path);
	fb->fd = open(path, O_RDWR | O_CLOEXEC);
	if (fb->fd < 0)
		return fail(fb, -errno, err, errlen, "%s", strerror(errno));
	ret = read_info(fb, &fix);
	if (ret < 0)
		return fail(fb, ret, err, errlen, "not a framebuffer: %s", strerror(-ret));
	fb->saved = fb->var;
	memcpy(fb->id, fix.id, sizeof(fix.id));
	fb->id[sizeof(fix.id)] = '\0';
	if (choose_format(fb, &fix) < 0)
		return fail(fb, -ENOTSUP, err, errlen,
			    "%u bpp (type %u, visual %u) and no 32 or 16 bpp true-colour mode "
			    "could be set", fb->saved.bits_per_pixel, fix.type, fix.visual);
	fb->width = fb->var.xres;
	fb->height = fb->var.yres;
	fb->stride = fix.line_length;
	/* a driver's numbers are trusted only as far as they fit together */
	if (fb->width < 1 || fb->height < 1 || fb->stride < (size_t)fb->width * fb->fmt.bytes ||
	    (fb->fmt.bytes != 3 && fb->stride % fb->fmt.bytes) ||
	    fix.smem_len < ((size_t)fb->var.yoffset + fb->height) * fb->stride)
		return fail(fb, -EINVAL, err, errlen,
			    "inconsistent geometry: %dx%d at y %u, line length %u, memory %u",
			    fb->width, fb->height, fb->var.yoffset, fix.line_length, fix.smem_len);

	size_t page_offset = fix.smem_start & (sysconf(_SC_PAGESIZE) - 1);
	ret = map(fb, page_offset, fix.smem_len);
	if (ret < 0)
		return fail(fb, ret, err, errlen, "mmap: %s", strerror(-ret));
	fb->pixels += (size_t)fb->var.xoffset * fb->fmt.bytes;
	fb->page_pixels[0] = fb->page_pixels[1] = fb->pixels + (size_t)fb->var.yoffset * fb->stride;
	return 0;
}

int fb_open_file(struct fb *fb, const char *path, int width, int height,
		 const struct pixfmt *fmt, size_t stride, char *err, size_t errlen)
{
	size_t len = stride * height;
	int ret;

	fb_reset(fb);
	snprintf(fb->path, sizeof(fb->path), "%s", path);
	snprintf(fb->id, sizeof(fb->id), "file");
	/* rows of 16- and 32-bit pixels are written a whole pixel at a time */
	if (width < 1 || height < 1 || stride < (size_t)width * fmt->bytes ||
	    (fmt->bytes != 3 && stride % fmt->bytes))
		return fail(fb, -EINVAL, err, errlen, "bad geometry %dx%d, stride %zu", width,
			    height, stride);
	fb->is_file = true;
	fb->fmt = *fmt;
	fb->width = width;
	fb->height = height;
	fb->stride = stride;
	fb->var.xres = fb->var.xres_virtual = width;
	fb->var.yres = fb->var.yres_virtual = height;
	fb->var.bits_per_pixel = fmt->bpp;
	fb->saved = fb->var;
	fb->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fb->fd < 0)
		return fail(fb, -errno, err, errlen, "%s", strerror(errno));
	if (ftruncate(fb->fd, len) < 0)
		return fail(fb, -errno, err, errlen, "resize: %s", strerror(errno));
	ret = map(fb, 0, len);
	if (ret < 0)
		return fail(fb, ret, err, errlen, "mmap: %s", strerror(-ret));
	return 0;
}

static const char *const buffering_names[] = { "auto", "on", "off" };

int fb_buffering_parse(const char *name, enum fb_buffering *mode)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, buffering_names[i])) {
			*mode = (enum fb_buffering)i;
			return 0;
		}
	return -EINVAL;
}

const char *fb_buffering_name(enum fb_buffering mode)
{
	return (unsigned)mode < 3 ? buffering_names[mode] : "?";
}

static int pan_to(struct fb *fb, unsigned int yoffset)
{
	struct fb_var_screeninfo var = fb->var;

	var.xoffset = fb->saved.xoffset;
	var.yoffset = yoffset;
	if (ioctl(fb->fd, FBIOPAN_DISPLAY, &var) < 0)
		return -errno;
	fb->var.yoffset = yoffset;
	return 0;
}

/* A second page needs room below the first, either already there or granted on request, and a
 * pan to it that the driver both accepts and reports back. */
static bool grow_virtual(struct fb *fb)
{
	struct fb_fix_screeninfo fix;
	struct fb_var_screeninfo before = fb->var, var = fb->var;
	size_t needed = (size_t)(fb->pixels - fb->map) + (size_t)2 * fb->var.yres * fb->stride;

	var.yres_virtual = 2 * var.yres;
	var.activate = FB_ACTIVATE_NOW;
	if (ioctl(fb->fd, FBIOPUT_VSCREENINFO, &var) < 0)
		return false;
	if (read_info(fb, &fix) == 0 && fb->var.yres_virtual >= 2 * fb->var.yres &&
	    fix.line_length == fb->stride && fb->map_len >= needed) {
		fb->mode_changed = true;
		return true;
	}
	ioctl(fb->fd, FBIOPUT_VSCREENINFO, &before);
	ioctl(fb->fd, FBIOGET_VSCREENINFO, &fb->var);
	return false;
}

/* The pages are at y 0 and y yres, whatever offset the console left: two pages that overlap
 * would show the one being drawn. */
static bool probe_pan(struct fb *fb)
{
	struct fb_var_screeninfo var;
	unsigned int second = fb->saved.yoffset == fb->var.yres ? 0 : fb->var.yres;
	size_t needed = (size_t)(fb->pixels - fb->map) + (size_t)2 * fb->var.yres * fb->stride;

	if (fb->var.yres_virtual < 2 * fb->var.yres && !grow_virtual(fb))
		return false;
	if (fb->map_len < needed)
		return false;
	if (pan_to(fb, second) < 0 || ioctl(fb->fd, FBIOGET_VSCREENINFO, &var) < 0 ||
	    var.yoffset != second) {
		pan_to(fb, fb->saved.yoffset);
		return false;
	}
	pan_to(fb, fb->saved.yoffset);
	return true;
}

int fb_setup_pages(struct fb *fb, enum fb_buffering mode)
{
	int zero = 0;

	fb->pages = 1;
	fb->page = 0;
	if (fb->is_file || mode == FB_BUFFER_OFF || !probe_pan(fb))
		return 1;
	fb->can_vsync = ioctl(fb->fd, FBIO_WAITFORVSYNC, &zero) == 0;
	fb->pages = 2;
	fb->page_pixels[0] = fb->pixels;
	fb->page_pixels[1] = fb->pixels + (size_t)fb->var.yres * fb->stride;
	/* the first frame goes into the page not on screen */
	fb->page = fb->saved.yoffset == fb->var.yres ? 0 : 1;
	return 2;
}

int fb_present(struct fb *fb)
{
	int zero = 0, ret;
	unsigned int yoffset;

	if (fb->pages < 2)
		return 0;
	yoffset = (unsigned int)((fb->page_pixels[fb->page] - fb->pixels) / fb->stride);
	fb->page ^= 1;
	ret = pan_to(fb, yoffset);
	/* the pan is latched at the next vblank: wait for it before drawing into the other page,
	 * which is on screen until then */
	if (fb->can_vsync)
		ioctl(fb->fd, FBIO_WAITFORVSYNC, &zero);
	return ret;
}

void fb_close(struct fb *fb)
{
	if (fb->fd >= 0 && !fb->is_file) {
		if (fb->mode_changed) {
			fb->saved.activate = FB_ACTIVATE_NOW;
			ioctl(fb->fd, FBIOPUT_VSCREENINFO, &fb->saved);
		} else if (fb->var.yoffset != fb->saved.yoffset) {
			pan_to(fb, fb->saved.yoffset);
		}
	}
	if (fb->map)
		munmap(fb->map, fb->map_len);
	if (fb->fd >= 0)
		close(fb->fd);
	fb->map = NULL;
	fb->fd = -1;
}

int fb_flush(struct fb *fb)
{
	return msync(fb->map, fb->map_len, MS_SYNC) < 0 ? -errno : 0;
}

int fb_blank(struct fb *fb, bool blank)
{
	if (fb->is_file)
		return -ENOTTY;
	return ioctl(fb->fd, FBIOBLANK, blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK) < 0 ? -errno
											     : 0;
}

int fb_read_image(const struct fb *fb, struct image *img)
{
	const uint8_t *shown = fb->page_pixels[fb->pages == 2 ? fb->page ^ 1 : 0];

	img->width = fb->width;
	img->height = fb->height;
	img->pixels = malloc((size_t)fb->width * fb->height * sizeof(uint32_t));
	if (!img->pixels)
		return -ENOMEM;
	pixfmt_unconvert(&fb->fmt, shown, fb->stride, img);
	return 0;
}
