/* render_calm.h - where the water is too calm to show: the blocks of a frame that are the
 * picture, so that a page that shows it already is left alone. */
#ifndef FBRIPPLE_RENDER_CALM_H
#define FBRIPPLE_RENDER_CALM_H

#include "render.h"

/* At most this many words of 64 blocks per row (the blocks widen on wider grids). */
#define RENDER_BLOCK_WORDS 8

/* The blocks of r's columns and the bitmaps over them; 0 or -ENOMEM (render_free frees). */
int render_calm_init(struct render *r);

/* The height differences across a cell, [-*lo, *hi], whose slopes move no pixel and shade
 * none for r's cell, light and refraction (both 0 at cell 1 without light: any difference
 * moves a pixel). */
void render_calm_window(const struct render *r, int *lo, int *hi);

/* cell_loud for cell rows [j0, j1): the blocks whose pixels mix a loud cell of the row. */
void render_calm_rows(struct render *r, const struct water *w, int j0, int j1);

#endif
