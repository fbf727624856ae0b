/* fb.h - the framebuffer: a Linux fbdev device or a regular file used as one. */
#ifndef FBRIPPLE_FB_H
#define FBRIPPLE_FB_H

#include <linux/fb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "image/pixfmt.h"

enum fb_buffering {
	FB_BUFFER_AUTO,		/* two pages where panning works, else one */
	FB_BUFFER_ON,		/* the same, but a warning when it cannot */
	FB_BUFFER_OFF,
};

struct fb {
	int fd;
	int width, height;	/* visible pixels */
	size_t stride;		/* bytes from one row to the next (line_length) */
	struct pixfmt fmt;
	uint8_t *map;
	size_t map_len;
	uint8_t *pixels;	/* the top-left pixel of the virtual screen */
	uint8_t *page_pixels[2];	/* pixels + yoffset * stride of each page */
	int pages;		/* 1, or 2 when panning between two pages */
	int page;		/* the page drawn into next (the one not on screen) */
	bool can_vsync;		/* FBIO_WAITFORVSYNC works */
	bool mode_changed;	/* saved is to be put back on close */
	bool is_file;
	char id[17];		/* the driver's name, or "file" */
	char path[256];
	struct fb_var_screeninfo var, saved;
};

/*
 * 0 or -errno; on failure err says why (without the path) and nothing stays open. A depth below
 * 16 bpp or a palette mode is switched to 32, else 16 bpp; fb_close puts the old mode back.
 */
int fb_open(struct fb *fb, const char *path, char *err, size_t errlen);

/* A regular file as a raw framebuffer, created or resized to stride * height bytes. */
int fb_open_file(struct fb *fb, const char *path, int width, int height,
		 const struct pixfmt *fmt, size_t stride, char *err, size_t errlen);

/* "auto", "on", "off". 0 or -EINVAL. */
int fb_buffering_parse(const char *name, enum fb_buffering *mode);
const char *fb_buffering_name(enum fb_buffering mode);

/* Probes panning (and vsync) once and sets fb->pages; returns the number of pages. */
int fb_setup_pages(struct fb *fb, enum fb_buffering mode);

/* Where the next frame is drawn. */
static inline uint8_t *fb_draw_pixels(const struct fb *fb)
{
	return fb->page_pixels[fb->page];
}

/* Shows the page just drawn (waiting for vsync where it works) and moves to the other one. */
int fb_present(struct fb *fb);

/* Puts back the mode and panning found at open, unmaps and closes. */
void fb_close(struct fb *fb);

/* Pushes written pixels out (files; drivers with deferred I/O). 0 or -errno. */
int fb_flush(struct fb *fb);

/* Blanks or unblanks the display (FBIOBLANK). 0, or -errno when the driver refuses (vesafb:
 * -EINVAL) or for a file, where it does nothing and returns -ENOTTY. */
int fb_blank(struct fb *fb, bool blank);

/* Reads the page on screen back, for screenshots only: framebuffer memory is slow to read. */
int fb_read_image(const struct fb *fb, struct image *img);

#endif
