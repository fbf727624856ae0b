/* walls.h - walls in the water from a picture: its dark pixels, scaled to the screen, in cells. */
#ifndef FBRIPPLE_WALLS_H
#define FBRIPPLE_WALLS_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "water.h"

/* A pixel is a wall when its luma (0.299 R + 0.587 G + 0.114 B) is below this: dark. */
#define WALLS_DARK 128

/* One byte a screen pixel, non-zero on a wall; all zero (no mask) for no walls. */
struct walls {
	int width, height;
	uint8_t *mask;
};

/*
 * The picture at path (PNG, JPEG or PPM) scaled to width x height like the splash (mode), its
 * transparent and uncovered parts water; "" is no walls. Touches nothing but w, so a worker
 * thread may run it. 0, or -errno with err saying "obstacles PATH: why" and w untouched.
 */
int walls_load(struct walls *w, const char *path, enum scale_mode mode, int width, int height,
	       char *err, size_t len);

/* Gives water the walls: a cell is a wall when the pixel at its centre is. No mask, or one
 * made for another screen size, takes the walls away. 0 or -ENOMEM. */
int walls_apply(const struct walls *w, struct water *water);

void walls_free(struct walls *w);

#endif
