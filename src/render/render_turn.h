/* render_turn.h - rotated frames: logical rows drawn into a band, turned onto physical columns
 * (90 and 270) or mirrored (180). */
#ifndef FBRIPPLE_RENDER_TURN_H
#define FBRIPPLE_RENDER_TURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render_path.h"

/* How many logical rows of bytes per pixel a band holds before it is turned. */
int render_turn_rows(int bytes);

/* Bytes from one band row of width pixels to the next: an odd number of cache lines, so that
 * the rows of a band spread over every set of the caches (rows a multiple of 4 KiB apart, on
 * screens 1024 or 2048 high, would share a few). */
size_t render_turn_pitch(int width, int bytes);

/*
 * Turns n logical rows (band, width pixels each, pitch bytes apart, [x0, x1) of them drawn) onto
 * physical columns of dst: logical pixel x of band row k goes to physical row x (cw, rotate 90)
 * or width - 1 - x (270), column first + n - 1 - k (90) or first + k (270). path: the kernels
 * to turn with.
 */
void render_turn(enum render_path path, uint8_t *dst, size_t dst_stride, const uint8_t *band,
		 size_t pitch, int width, int n, int first, bool cw, int x0, int x1, int bytes);

/* The n pixels of src reversed into dst, the last first (rotate 180). */
void render_mirror(uint8_t *restrict dst, const uint8_t *restrict src, int n, int bytes);

#endif
