/* render.h - refraction of the splash through the height field into framebuffer rows. */
#ifndef FBRIPPLE_RENDER_H
#define FBRIPPLE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "pixfmt.h"
#include "water.h"

#define RENDER_PAGES 2

/* A stretch of physical pixels drawn from logical cells, one step apart. */
struct render_span {
	const int16_t *h;	/* height cell under the first pixel */
	int hstep;		/* cells from one pixel to the next: 1, -1 or +-stride */
	int x, y;		/* logical position of the first pixel */
	int dx, dy;		/* and its step */
	int n;
};

struct render;
typedef void render_span_fn(uint8_t *restrict dst, const struct render *r,
			    const struct render_span *s, int stride);

struct render_run {
	int lo, hi;		/* logical rows [lo, hi) that are all wet or all to restore */
	bool wet;
};

/*
 * Water and splash live in logical coordinates: the screen as the viewer sees it after
 * display.rotate. Only the writing of pixels knows the physical layout.
 */
struct render {
	int width, height;		/* logical */
	int fb_width, fb_height;	/* physical */
	int rotate;			/* 0, 90, 180, 270 clockwise */
	int bytes;
	struct pixfmt fmt;
	uint8_t *splash;		/* logical layout, in fmt, width * bytes per row */
	uint8_t *plain;			/* physical layout: the calm screen, fb_width * bytes per row */
	uint8_t *shown[RENDER_PAGES];	/* per page: logical rows showing more than the plain splash */
	struct render_run *runs;
	render_span_fn *span;
};

/* fb_width x fb_height is the framebuffer; rotate is 0, 90, 180 or 270. 0 or -errno. */
int render_init(struct render *r, int fb_width, int fb_height, int rotate,
		const struct pixfmt *fmt);
void render_free(struct render *r);

/* Converts img (exactly the logical width x height) to the framebuffer's format and layout,
 * once; 0 or -EINVAL. */
int render_set_splash(struct render *r, const struct image *img);

/*
 * Writes the frame for w into dst (physical rows dst_stride bytes apart), in row order, never
 * reading dst. Rows of page that are calm and already show the plain splash are skipped unless
 * full is set. Returns how many logical rows were written.
 */
int render_frame(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		 int page, bool full);

#endif
