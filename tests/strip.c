/* strip.c - README pictures: screenshots scaled down and set side by side, for readme-picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

enum { TILE_W = 640, TILE_H = 360 };

int main(int argc, char **argv)
{
	int n = argc - 2;
	struct image strip = { TILE_W * n, TILE_H, NULL };
	char err[256];

	if (n < 1) {
		fprintf(stderr, "usage: strip OUT.png IN.png...\n");
		return 2;
	}
	strip.pixels = calloc((size_t)strip.width * TILE_H, sizeof(uint32_t));
	if (!strip.pixels)
		return 1;
	for (int i = 0; i < n; i++) {
		struct image src, tile;

		if (image_load(&src, argv[i + 2], err, sizeof(err)) < 0 ||
		    image_scale(&tile, &src, TILE_W, TILE_H, SCALE_STRETCH, 0) < 0) {
			fprintf(stderr, "strip: %s: %s\n", argv[i + 2], err);
			return 1;
		}
		for (int y = 0; y < TILE_H; y++)
			memcpy(&strip.pixels[(size_t)y * strip.width + i * TILE_W],
			       &tile.pixels[(size_t)y * TILE_W], TILE_W * sizeof(uint32_t));
		image_free(&src);
		image_free(&tile);
	}
	if (image_write_png(&strip, argv[1]) < 0) {
		fprintf(stderr, "strip: cannot write %s\n", argv[1]);
		return 1;
	}
	image_free(&strip);
	return 0;
}
