/* water.h - the height field: the classic two-buffer ripple kernel, stones, trails, rain, calm. */
#ifndef FBRIPPLE_WATER_H
#define FBRIPPLE_WATER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A width x height field of int16 heights surrounded by a border of cells that stay 0, so the
 * waves reflect off the screen edges and every visible cell has four neighbours. Cell (x, y)
 * is cur[y * stride + x]; x and y may be -1 or width/height to reach the border.
 * live[y] says whether row y of cur may hold a non-zero cell (it never misses one).
 */
struct water {
	int width, height, stride;
	int damping_shift;
	int16_t *cur, *prev;
	uint8_t *live, *prev_live;	/* indexable from -1 to height */
	int live_rows;			/* rows set in live and prev_live together */
	int16_t *mem[2];
	uint8_t *live_mem[2];
};

struct water_rain {
	double rate;		/* drops per second */
	int size, weight;
	uint64_t rng;		/* xorshift state, never 0 */
	double due;		/* fractional drops carried to the next call */
};

int water_init(struct water *w, int width, int height, int damping_shift);
void water_free(struct water *w);
void water_clear(struct water *w);

/* One time step of next = ((l + r + u + d) >> 1) - prev; next -= next >> damping_shift. */
void water_step(struct water *w);

/* A stone: every cell within radius of (x, y) is set to -weight; cells off the field are clipped. */
void water_drop(struct water *w, int x, int y, int radius, int weight);

/* Stones along the line from (x0, y0), excluded, to (x1, y1), included, every spacing cells. */
void water_trail(struct water *w, int x0, int y0, int x1, int y1, int radius, int weight,
		 int spacing);

/* Drops the stones that rain->rate makes due in seconds; returns how many fell. */
int water_rain(struct water *w, struct water_rain *rain, double seconds);

/*
 * The water keeps its own time: steps_per_second spread over frames shown at fps. Returns how
 * many steps the frames that passed owe, carrying the remainder in *due (in 1/fps steps, so
 * nothing drifts); a late wake-up catches up at most two frames' worth and a step.
 */
int water_clock_steps(long *due, uint64_t frames, int steps_per_second, int fps);

/* True when every cell of both time steps is 0: stepping would change nothing. */
bool water_calm(const struct water *w);

static inline int16_t *water_row(const struct water *w, int y)
{
	return w->cur + y * w->stride;
}

#endif
