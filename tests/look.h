/* look.h - what a person sees of one touch: how far its ring reaches and how long it lives. */
#ifndef FBRIPPLE_LOOK_H
#define FBRIPPLE_LOOK_H

#include "config/config.h"

/*
 * One stone dropped in the centre of a width x height screen in the given pixel format, with
 * cfg's water, stone and light over the built-in splash, rendered every frame_step frames
 * for up to seconds. A pixel is visible when its |dR| + |dG| + |dB| against the calm splash
 * is more than 24. reach: the largest 95th percentile of the visible pixels' distance from the
 * drop, over the short side; life: the last time at which at least 0.02% of the screen is
 * visible. At 1 s the ring's roundness: the same 95th percentile within 5 degrees of the
 * axes and of the diagonals, and the visible pixels' mean change there (a sparkle shows as a
 * brighter diagonal). frame_step must divide display.fps. 0 or -errno.
 */
struct look {
	double reach, life;
	double ring_axis, ring_diagonal;	/* over the short side */
	double glow_axis, glow_diagonal;	/* |dR| + |dG| + |dB| */
};

/* cfg = the defaults with water.engine = engine, read from a file as the daemon would; 0 or
 * -errno. */
int look_defaults_with_engine(struct config *cfg, const char *engine);

int look_measure(const struct config *cfg, int width, int height, const char *format,
		 int frame_step, double seconds, struct look *out);

#endif
