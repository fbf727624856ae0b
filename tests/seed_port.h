/* seed_port.h - a plain port of seed 000 (ripplespread, renderripple, dropstone): the reference. */
#ifndef FBRIPPLE_SEED_PORT_H
#define FBRIPPLE_SEED_PORT_H

#include <stdint.h>

struct seed {
	int width, height;	/* the whole buffer: its first and last rows never change */
	int damping_shift;
	short *buf1, *buf2;
};

int seed_init(struct seed *s, int width, int height, int damping_shift);
void seed_free(struct seed *s);
void seed_ripplespread(struct seed *s);
void seed_dropstone(struct seed *s, int x, int y, int stonesize, int stoneweight);

/* depth bytes per pixel; both pictures width x height with the given pitches. */
void seed_renderripple(const struct seed *s, const uint8_t *bitmap1, int pitch1,
		       uint8_t *bitmap2, int pitch2, int depth);

#endif
