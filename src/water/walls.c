/* walls.c - walls in the water from a picture: its dark pixels, scaled to the screen, in cells. */
#include "walls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int walls_fail(char *err, size_t len, const char *path, const char *why, int ret)
{
	snprintf(err, len, "obstacles %.200s: %.200s", path, why);
	return ret;
}

/* Pixels darker than WALLS_DARK, from a picture already at the screen's size. */
static void mask_dark(uint8_t *mask, const struct image *img)
{
	size_t n = (size_t)img->width * img->height;

	for (size_t i = 0; i < n; i++) {
		uint32_t p = img->pixels[i];
		unsigned luma = 299 * (p >> 16 & 0xff) + 587 * (p >> 8 & 0xff) + 114 * (p & 0xff);

		mask[i] = luma < WALLS_DARK * 1000;
	}
}

int walls_load(struct walls *w, const char *path, enum scale_mode mode, int width, int height,
	       char *err, size_t len)
{
	struct image src, scaled;
	char why[256];
	uint8_t *mask;
	int ret;

	if (!path[0]) {
		walls_free(w);
		return 0;
	}
	ret = image_load(&src, path, why, sizeof(why));
	if (ret < 0)
		return walls_fail(err, len, path, why, ret);
	/* over white: what the picture leaves uncovered or transparent is water */
	ret = image_scale(&scaled, &src, width, height, mode, 0xffffff);
	image_free(&src);
	if (ret < 0)
		return walls_fail(err, len, path, strerror(-ret), ret);
	mask = malloc((size_t)width * height);
	if (mask)
		mask_dark(mask, &scaled);
	image_free(&scaled);
	if (!mask)
		return walls_fail(err, len, path, strerror(ENOMEM), -ENOMEM);
	walls_free(w);
	*w = (struct walls){ width, height, mask };
	return 0;
}

int walls_apply(const struct walls *w, struct water *water)
{
	int cell = water->cell, ret;
	uint8_t *cells;

	if (!w->mask || w->width != water->screen_width || w->height != water->screen_height)
		return water_set_walls(water, NULL);
	cells = malloc((size_t)water->width * water->height);
	if (!cells)
		return -ENOMEM;
	for (int cy = 0; cy < water->height; cy++) {
		int py = cy * cell + cell / 2;

		py = py < w->height ? py : w->height - 1;
		for (int cx = 0; cx < water->width; cx++) {
			int px = cx * cell + cell / 2;

			px = px < w->width ? px : w->width - 1;
			cells[(size_t)cy * water->width + cx] = w->mask[(size_t)py * w->width + px];
		}
	}
	ret = water_set_walls(water, cells);
	free(cells);
	return ret;
}

void walls_free(struct walls *w)
{
	free(w->mask);
	*w = (struct walls){ 0 };
}
