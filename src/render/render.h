/* render.h - refraction of the splash through the height field into framebuffer rows.
 *
 * The render folder: slopes, refraction, light and tint (render.c, render_tint.c), rotation
 * (render_turn.c), the choice of vector path (render_path.c), and in kernels/ the row kernels
 * per path. It reads the water (water/), the picture (image/) and util/; it knows no display. */
#ifndef FBRIPPLE_RENDER_H
#define FBRIPPLE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "image/pixfmt.h"
#include "render_path.h"
#include "water/water.h"

#define RENDER_PAGES 2
#define RENDER_SHADES 255	/* light adds or takes up to this much of a channel (0..255) */

/*
 * Where a logical pixel sits between the cells of one axis: cells c and c + 1, the second
 * weighing w / RENDER_WEIGHT. Pixel centres fall at (p + 0.5) / cell - 0.5 in cells.
 */
#define RENDER_WEIGHT_BITS 6
#define RENDER_WEIGHT (1 << RENDER_WEIGHT_BITS)
struct render_axis {
	int32_t *c;
	uint8_t *w;
};

struct render;

/*
 * Writes logical row y, pixels [x0, x1), to dst (the row's first pixel) in the renderer's
 * format. h: the heights of cell row y (cell 1 without light reads them; the others read the
 * slopes prepared in slope_x and slope_y), stride: the water's.
 */
typedef void render_row_fn(uint8_t *restrict dst, const struct render *r, int y,
			   const int16_t *h, int stride, int x0, int x1);

/*
 * The slopes along a logical row of cells [lo, hi) into gx and gy (1/RENDER_WEIGHT height
 * units, clamped to SLOPE_MAX): cell row p weighing wa, the next one q weighing wb (q = p and
 * wb = 0 on a cell row), each cell's left less right and up less down. The same integers on
 * every path.
 */
typedef void render_slopes_fn(int32_t *restrict gx, int32_t *restrict gy, const int16_t *p,
			      const int16_t *q, int stride, int wa, int wb, int lo, int hi);

/*
 * The loud cells among n (at most 64) of a cell row p, as bits: those whose left less right
 * or up less down neighbour (stride apart) lies outside [-lo, hi], or, with f >= 0, whose
 * height differs from q's (the same cells a step before) by more than f; lo and hi at most
 * 32766, f at most 65535. The same bits on every path.
 */
typedef uint64_t render_loud_fn(const int16_t *p, const int16_t *q, ptrdiff_t stride, int n,
				int lo, int hi, int f);

/* Logical rows [lo, hi), each with something to draw (its render_cols). */
struct render_run {
	int lo, hi;
};

/* What a logical row draws in a frame: pixels [x0, x1), of which [wet0, wet1) may show the
 * water (refracted, tinted) and the rest is the plain splash put back. */
struct render_cols {
	int x0, x1, wet0, wet1;
};

/* What drawing writes besides the frame: one set per band drawn at once. */
struct render_scratch {
	int32_t *slope_x, *slope_y;
	uint8_t *band, *aside;		/* rotated rows; a row to tint (tinted only) */
	struct render_run *runs;	/* the band's share of the frame's runs */
};

/* The look: water.light, water.light_direction, water.specular. */
struct render_light {
	double strength;	/* 0: off; 1: seed 003's (xoffset - yoffset) / 2 at 45 degrees */
	int direction;		/* degrees clockwise from the top that the light comes from */
	double specular;	/* 0 (off) to 4: extra white on the slopes that face the light most */
};

/*
 * Water and splash live in logical coordinates: the screen as the viewer sees it after
 * display.rotate. Only the writing of pixels knows the physical layout. The water is a grid of
 * cells `cell` pixels wide; each pixel interpolates the slopes of the cells around it.
 */
struct render {
	int width, height;		/* logical */
	int fb_width, fb_height;	/* physical */
	int rotate;			/* 0, 90, 180, 270 clockwise */
	int bytes;
	struct pixfmt fmt;
	int cell, grid_width, grid_height;
	int scale;			/* the water's heights per seed height (water.h) */
	int shift_mul;			/* pixels a slope moves the picture, in 1/256 */
	int shift_max;			/* and at most this many (cell 1: no limit but the edge) */
	bool direct;			/* cell 1 without light: the seeds' offsets, no slopes */
	struct render_axis ax, ay;	/* per logical column, per logical row */
	int32_t *slope_x, *slope_y;	/* one line's slopes per cell, in 1/RENDER_WEIGHT */
	int light_x, light_y;		/* the light's direction and strength, fixed point */
	int shade_shift;		/* their fraction bits and the water's finer heights */
	uint32_t *shade;		/* [RENDER_SHADES + s]: what shade s adds (s > 0) or takes */
	int glint_k;			/* the glints' rise, render_grey's k */
	uint32_t field[3];		/* the channel masks the shades saturate in */
	uint8_t *splash;		/* logical layout, in fmt, width * bytes per row */
	/* per page and logical row: the pixels that may show more than the plain splash */
	struct water_span *shown[RENDER_PAGES];
	struct water_span shown_rows[RENDER_PAGES];	/* and the rows that have any */
	int32_t *from_cell, *from_mix;	/* the first logical column at or past cell k, alone or
					 * mixed with the next one: [grid_width + 1] */
	struct render_cols *cols;	/* per logical row: this frame's */
	struct render_run *runs;
	struct render_tint *tint;	/* water.tint, or NULL */
	enum render_path path;
	render_row_fn *row;		/* the path's kernel for the format and the look */
	render_slopes_fn *slopes;	/* and its slopes */
	render_loud_fn *loud_cells;	/* and its calm detection */
	uint8_t *band;			/* rotated: logical rows drawn before they are turned */
	uint8_t *aside;			/* a row to tint in; NULL: the tint's own */
	struct render_scratch *scratch;	/* [bands]: frames drawn in bands (render_set_bands) */
	int bands;
	/*
	 * Only what changes is drawn (render_calm.c): the logical columns in blocks of
	 * block_cells cells, a bit per block in block_words words per row. A block of a row is
	 * loud where a slope of the cells its pixels mix moves a pixel, shades one or tints one;
	 * elsewhere its pixels are the picture's. draw_live (FBRIPPLE_DRAW=live): every live
	 * pixel is drawn instead, as the water's spans say.
	 */
	bool draw_live;
	long share_min;			/* frames drawing fewer pixels: the caller's thread alone */
	int calm_lo, calm_hi;		/* cells whose differences lie in [-calm_lo, calm_hi] are
					 * calm (render_calm_window) */
	int block_cells, blocks, block_words;
	int32_t *block_x;		/* [blocks + 1]: the first logical column of each block */
	uint16_t *cell_block;		/* [grid_width]: the block of each cell */
	uint64_t *cell_loud;		/* per cell row: the blocks a loud cell of it reaches */
	uint64_t *loud[RENDER_PAGES];	/* per page and logical row: the blocks drawn loud there
					 * last, all it may show besides the picture */
	struct water_span loud_rows[RENDER_PAGES];	/* the rows that have any */
	uint64_t *draws;		/* per logical row: this frame's blocks to draw */
	const uint64_t *louds;		/* this frame's loud blocks: loud[page] */
};

/* fb_width x fb_height is the framebuffer; rotate is 0, 90, 180 or 270; the water's cells are
 * cell pixels wide, its heights as water_init makes them for that cell. 0 or -errno. */
int render_init(struct render *r, int fb_width, int fb_height, int rotate, int cell,
		const struct pixfmt *fmt);
void render_free(struct render *r);

/* Runs path from now on; 0, or -ENOTSUP where this CPU cannot. */
int render_set_path(struct render *r, enum render_path path);

/* The light for the next frames; strength 0 turns it off. */
void render_set_light(struct render *r, const struct render_light *light);

/* water.tint: 0xRRGGBB blended over the picture by the waves' speed; any larger value (the
 * config's "off") draws without. 0 or -ENOMEM (then no tint). */
int render_set_tint(struct render *r, uint32_t rgb);
/* A row of the screen's width to draw a tinted row into (framebuffer memory is never read),
 * and the tint blended over pixels [x0, x1) of logical row y drawn there. */
uint8_t *render_tint_row(const struct render *r);
void render_tint(uint8_t *row, const struct render *r, const struct water *w, int y, int x0,
		 int x1);

/* The picture of src, a renderer of the same framebuffer and rotation (another cell size). */
void render_copy_picture(struct render *dst, const struct render *src);

/* Converts img (exactly the logical width x height) to the framebuffer's format and layout,
 * once; 0 or -EINVAL. */
int render_set_splash(struct render *r, const struct image *img);

/* The same, converting img's pixels in place and keeping them: the picture is never in memory
 * twice. img is left empty (for image_free). */
int render_take_splash(struct render *r, struct image *img);

/*
 * Writes the frame for w into dst (physical rows dst_stride bytes apart), never reading dst:
 * in row order, or rotated 90 and 270 in bands of columns that stay in cache. Unless full is
 * set, only what changes is written: the blocks of each logical row whose water moves, shades
 * or tints a pixel, and those that page showed so last time, now calm, get the picture back
 * (rotated 90 and 270: their union over each band of rows). The page holds exactly the frame
 * drawn everywhere. With render_draw_live: the columns where the water may be wet (its live
 * spans) or that page showed wet last time. Returns how many logical rows were written.
 */
int render_frame(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		 int page, bool full);

/* Draws every live pixel (true: the water's spans, as FBRIPPLE_DRAW=live does) or only the
 * blocks that change (false, the default); the next frame must be drawn full. */
void render_draw_live(struct render *r, bool live);

/*
 * Frames that draw fewer pixels than this are not shared: waking a thread and waiting for it
 * cost more CPU than the half of a small frame it would draw. A screensaver's rain draws a
 * tenth of a 1080p screen (about 0.3 ms of one core here); a quarter of it, the default,
 * takes a Raspberry Pi 4's core a few ms, well inside a frame at 60 fps. Tests share every
 * frame with 0.
 */
#define RENDER_SHARE_MIN (512L * 1024)
void render_set_share_min(struct render *r, long pixels);

/* Scratch for drawing frames in up to bands (1..POOL_MAX) bands at once, made once here and
 * not per frame; 0 or -ENOMEM (then one band). */
int render_set_bands(struct render *r, int bands);

/* render_frame shared among pool's threads (as many as render_set_bands made room for): its
 * rows at cell 1, strips of its columns above; each byte written by one thread, the same
 * bytes for any thread count. A frame that draws fewer than render_set_share_min's pixels is
 * drawn on the caller's thread alone. */
struct pool;
int render_frame_pool(struct render *r, const struct water *w, uint8_t *dst,
		      size_t dst_stride, int page, bool full, struct pool *pool);

#endif
