/* seed_port.c - seed 000 ported as written, to measure and check against; not used by fbripple. */
#include <stdlib.h>

#include "seed_port.h"

int seed_init(struct seed *s, int width, int height, int damping_shift)
{
	s->width = width;
	s->height = height;
	s->damping_shift = damping_shift;
	s->buf1 = calloc((size_t)width * height, sizeof(short));
	s->buf2 = calloc((size_t)width * height, sizeof(short));
	return s->buf1 && s->buf2 ? 0 : -1;
}

void seed_free(struct seed *s)
{
	free(s->buf1);
	free(s->buf2);
}

void seed_ripplespread(struct seed *s)
{
	int backwidth = s->width, backheight = s->height;
	short *buf1 = s->buf1, *buf2 = s->buf2;

	for (int i = backwidth; i < backwidth * backheight - backwidth; i++) {
		buf2[i] = ((buf1[i - 1] + buf1[i + 1] + buf1[i - backwidth] + buf1[i + backwidth]) >> 1)
			- buf2[i];
		buf2[i] -= buf2[i] >> s->damping_shift;
	}
	s->buf1 = buf2;
	s->buf2 = buf1;
}

void seed_dropstone(struct seed *s, int x, int y, int stonesize, int stoneweight)
{
	if (x + stonesize > s->width || y + stonesize > s->height || x - stonesize < 0 ||
	    y - stonesize < 0)
		return;
	for (int posx = x - stonesize; posx < x + stonesize; posx++)
		for (int posy = y - stonesize; posy < y + stonesize; posy++)
			if ((posx - x) * (posx - x) + (posy - y) * (posy - y) < stonesize * stonesize)
				s->buf1[s->width * posy + posx] = (short)-stoneweight;
}

/* The seed's bounds test reads one row and column past the picture (> instead of >=); that is
 * the one change made here, so the port stays inside its buffers. */
void seed_renderripple(const struct seed *s, const uint8_t *bitmap1, int pitch1,
		       uint8_t *bitmap2, int pitch2, int depth)
{
	int backwidth = s->width, backheight = s->height;
	const short *buf1 = s->buf1;
	int k = backwidth;

	for (int i = 1; i < backheight - 1; i++) {
		for (int j = 0; j < backwidth; j++) {
			int xoff = buf1[k - 1] - buf1[k + 1];
			int yoff = buf1[k - backwidth] - buf1[k + backwidth];

			if (i + yoff < 0 || i + yoff >= backheight || j + xoff < 0 ||
			    j + xoff >= backwidth) {
				k++;
				continue;
			}
			int pos1 = pitch1 * (i + yoff) + depth * (j + xoff);
			int pos2 = pitch2 * i + depth * j;

			for (int d = 0; d < depth; d++)
				bitmap2[pos2++] = bitmap1[pos1++];
			k++;
		}
	}
}
