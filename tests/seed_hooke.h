/* seed_hooke.h - a plain port of seed 002 (RippleSpread, RenderRipple): the hooke reference. */
#ifndef FBRIPPLE_SEED_HOOKE_H
#define FBRIPPLE_SEED_HOOKE_H

#include <stdint.h>

/* W x H int arrays as in the seed: its outermost ring of cells never changes. */
struct seed_hooke {
	int width, height;
	int velocity_shift, height_shift;	/* the seed's 6 and 8 */
	int calm;		/* 0: the seed as written; 1: with water_hooke.c's calming decay */
	int *front, *back, *v;
};

int seed_hooke_init(struct seed_hooke *s, int width, int height);
void seed_hooke_free(struct seed_hooke *s);
void seed_hooke_spread(struct seed_hooke *s);
/* Seed 000's stone (002 shows none): back within stonesize of (x, y) set to -stoneweight. */
void seed_hooke_drop(struct seed_hooke *s, int x, int y, int stonesize, int stoneweight);

/* depth bytes per pixel; both pictures width x height with the given pitches. */
void seed_hooke_render(const struct seed_hooke *s, const uint8_t *texture, int pitch1,
		       uint8_t *back, int pitch2, int depth);

#endif
