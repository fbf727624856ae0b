/* seed_hooke.c - seed 002 ported as written, to measure and check against; not in fbripple. */
#include <stdlib.h>

#include "seed_hooke.h"

int seed_hooke_init(struct seed_hooke *s, int width, int height)
{
	s->width = width;
	s->height = height;
	s->velocity_shift = 6;
	s->height_shift = 8;
	s->calm = 0;
	s->front = calloc((size_t)width * height, sizeof(int));
	s->back = calloc((size_t)width * height, sizeof(int));
	s->v = calloc((size_t)width * height, sizeof(int));
	return s->front && s->back && s->v ? 0 : -1;
}

void seed_hooke_free(struct seed_hooke *s)
{
	free(s->front);
	free(s->back);
	free(s->v);
}

/* The seed's pBack[y][x] with W = s->width. */
#define AT(p, y, x) (p)[(y) * W + (x)]

/* RippleSpread as written; the two shifts are the seed's constants made settable, and the
 * two "fix" lines are water_hooke.c's one change, taken only when s->calm is set. */
void seed_hooke_spread(struct seed_hooke *s)
{
	int W = s->width, H = s->height;
	int *pBack = s->back, *pFront = s->front, *pV = s->v;
	int fix;

	for (int y = 1; y < H - 1; y++)
		for (int x = 1; x < W - 1; x++) {
			int a = (16 * AT(pBack, y, x) -
				 (3 * AT(pBack, y - 1, x) +
				  3 * AT(pBack, y + 1, x) +
				  3 * AT(pBack, y, x - 1) +
				  3 * AT(pBack, y, x + 1) +
				  1 * AT(pBack, y - 1, x - 1) +
				  1 * AT(pBack, y - 1, x + 1) +
				  1 * AT(pBack, y + 1, x + 1) +
				  1 * AT(pBack, y + 1, x - 1))) / 16;
			AT(pV, y, x) -= a;
			fix = s->calm && AT(pV, y, x) > 0 && AT(pV, y, x) >> s->velocity_shift == 0;
			AT(pV, y, x) -= AT(pV, y, x) >> s->velocity_shift;
			AT(pV, y, x) -= fix;
			AT(pFront, y, x) = AT(pBack, y, x) + AT(pV, y, x);
			fix = s->calm && AT(pFront, y, x) > 0 && AT(pFront, y, x) >> s->height_shift == 0;
			AT(pFront, y, x) -= AT(pFront, y, x) >> s->height_shift;
			AT(pFront, y, x) -= fix;
		}
	s->front = pBack;
	s->back = pFront;
}

void seed_hooke_drop(struct seed_hooke *s, int x, int y, int stonesize, int stoneweight)
{
	if (x + stonesize > s->width || y + stonesize > s->height || x - stonesize < 0 ||
	    y - stonesize < 0)
		return;
	for (int posx = x - stonesize; posx < x + stonesize; posx++)
		for (int posy = y - stonesize; posy < y + stonesize; posy++)
			if ((posx - x) * (posx - x) + (posy - y) * (posy - y) < stonesize * stonesize)
				s->back[s->width * posy + posx] = -stoneweight;
}

/* RenderRipple as written: each pixel copies the texture's pixel a tenth of the slope away
 * (GetColor/SetColor become a copy of depth bytes). Like the seed it draws pFront, which after
 * RippleSpread's swap holds the heights one step old. */
void seed_hooke_render(const struct seed_hooke *s, const uint8_t *texture, int pitch1,
		       uint8_t *back, int pitch2, int depth)
{
	int W = s->width, H = s->height;
	const int *pFront = s->front;

	for (int y = 1; y < H - 1; y++)
		for (int x = 1; x < W - 1; x++) {
			int xoff = AT(pFront, y, x + 1) - AT(pFront, y, x - 1);
			int yoff = AT(pFront, y - 1, x) - AT(pFront, y + 1, x);
			int nx = x + xoff / 10, ny = y + yoff / 10;

			if (nx >= W || nx < 0 || ny >= H || ny < 0)
				continue;
			const uint8_t *from = texture + (size_t)pitch1 * ny + (size_t)depth * nx;
			uint8_t *to = back + (size_t)pitch2 * y + (size_t)depth * x;

			for (int d = 0; d < depth; d++)
				to[d] = from[d];
		}
}
