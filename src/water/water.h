/* water.h - the height field any engine moves: stones, trails, rain, walls, live rows, calm.
 *
 * The water folder: the height field (water.c), one file per engine behind water_engine.h,
 * their list (water_engine.c), walls from an obstacle mask (walls.c), and in kernels/ the
 * engines' row steps per vector path. It includes image/ (the mask) and util/, nothing above. */
#ifndef FBRIPPLE_WATER_H
#define FBRIPPLE_WATER_H

#include <stdbool.h>
#include <stdint.h>

/* The profile a stone leaves: the seeds' flat disc of -weight, seed 003's crater (-weight in
 * the middle rising to +weight at the rim), or a smooth cosine dent that makes round rings. */
enum water_shape { WATER_DISC, WATER_CRATER, WATER_COSINE };

/* Heights at cells larger than 1 are kept this much finer than the seeds' integers, so that
 * the kernel's rounding neither shakes the picture nor stills the waves early. */
#define WATER_FINE 16

/* Heights per unit of the seeds' height for a cell size. */
static inline int water_scale(int cell)
{
	return cell > 1 ? WATER_FINE : 1;
}
_Static_assert(WATER_FINE == 16, "render.c's shade_shift divides by WATER_FINE as a shift");

/* A stone's radius in cells when its size is 0 ("auto"): a fingertip at kiosk scale. */
#define WATER_AUTO_STONE_CELLS 4
#define WATER_AUTO_RAIN_CELLS 2
#define WATER_AUTO_TRAIL_CELLS 2	/* between a trail's drops */

struct water_engine;

/* What the engines read at every step; a reload may change it between two steps. */
struct water_tuning {
	int damping_shift;		/* classic: next -= next >> damping_shift */
	double damping;			/* classic: the fraction kept per step instead; 0: unset */
	int velocity_shift;		/* hooke: v -= v >> velocity_shift */
	int height_shift;		/* hooke: h -= h >> height_shift */
	double stiffness, viscosity;	/* spring: a = -stiffness x - viscosity w */
	double spread;			/* spring: the share a pass moves to each neighbour */
	int passes;			/* spring: diffusion passes per step */
};

/* Columns lo <= x < hi of a row (or rows lo <= y < hi). */
struct water_span {
	int lo, hi;
};

/*
 * A width x height field of int16 heights surrounded by a border of cells that stay 0, so the
 * waves reflect off the screen edges and every visible cell has four neighbours. Cell (x, y)
 * is cur[y * stride + x]; x and y may be -1 or width/height to reach the border.
 * Whatever the engine, cur holds the heights now and prev those one step before (their
 * difference is the waves' speed); live[y] and prev_live[y] say whether row y of cur or prev
 * may hold a non-zero cell or engine state (they never miss one). Where live[y] is set, every
 * such cell of the row lies in columns span[y].lo <= x < span[y].hi (prev_span for prev): a
 * stone on a wide screen costs its own width, not the screen's. Spans mean nothing where the
 * flag is clear; engines that track no columns get whole rows (see water_swap).
 * One cell covers cell x cell screen pixels; stones, trails and rain are given in pixels.
 */
struct water {
	const struct water_engine *engine;
	void *state;			/* the engine's own fields beyond the heights */
	struct water_tuning tuning;
	int width, height, stride;	/* in cells */
	int cell;			/* screen pixels per cell, 1..16 */
	int scale;			/* heights per unit of the seeds' height: 1 at cell 1 */
	int screen_width, screen_height;
	enum water_shape shape;		/* of every stone, trail drop and raindrop */
	int16_t *cur, *prev;
	int16_t *walls;			/* per cell 0 on a wall, -1 on water; NULL: no walls */
	uint8_t *live, *prev_live;	/* indexable from -1 to height */
	struct water_span *span, *prev_span;	/* the same */
	struct water_span rows;		/* rows lo <= y < hi: every row set in live or prev_live */
	int live_rows;			/* rows set in live and prev_live together */
	long share_min;			/* water_step_pool: steps of fewer cells on one thread */
	int16_t *mem[3];
	uint8_t *live_mem[2];
	struct water_span *span_mem[2];
};

struct water_rain {
	double rate;		/* drops per second */
	int size, weight;	/* radius in pixels (0: auto) and depth */
	uint64_t rng;		/* xorshift state, never 0 */
	double due;		/* fractional drops carried to the next call */
};

/* The cell that gives a screen's short side the seeds' scale, about 270 cells (240 to 320). */
int water_cell_auto(int screen_width, int screen_height);

/* A field of cells covering screen_width x screen_height pixels moved by engine; 0 or -errno. */
int water_open(struct water *w, const struct water_engine *engine, int screen_width,
	       int screen_height, int cell, const struct water_tuning *tuning);
/* The same with the classic engine and only its damping_shift. */
int water_init(struct water *w, int screen_width, int screen_height, int cell,
	       int damping_shift);
void water_free(struct water *w);
/* Calm water: every height and every bit of the engine's state 0. */
void water_clear(struct water *w);

/* One time step of the engine. */
void water_step(struct water *w);
/* The same in row bands over pool's threads where the engine can (classic); the heights come
 * out the same for any thread count. pool may be NULL. */
struct pool;
void water_step_pool(struct water *w, struct pool *pool);
/*
 * A step over fewer cells than this (its live rows, whole) is not shared: waking a thread and
 * waiting for it cost more CPU than the half of a step it would take (1080p's default 480x270
 * cells step in about 30 us here; 4K's 960x540 at cell 4, just under it, in about 0.15 ms, a
 * fiftieth of its busiest frame). Tests share every step with 0.
 */
#define WATER_SHARE_MIN (512L * 1024)
void water_set_share_min(struct water *w, long cells);

/*
 * Walls where mask (width x height, one byte per cell, row after row) is non-zero: every
 * engine keeps their heights at 0, so waves reflect off them like off the screen's edges, and
 * stones fall on them in vain. NULL takes the walls away. 0 or -ENOMEM.
 */
int water_set_walls(struct water *w, const uint8_t *mask);

/*
 * A stone at screen pixel (x, y), radius in pixels (0: WATER_AUTO_STONE_CELLS), in the field's
 * shape; cells off the field are clipped. At cell 1 a disc is the seeds' own: every cell within
 * radius of (x, y) set to -weight. Returns its work, what the time it took grows with: the
 * cells it looked at, and one for the stone.
 */
long water_drop(struct water *w, int x, int y, int radius, int weight);

/* Stones along the line from (x0, y0), excluded, to (x1, y1), included, every spacing pixels
 * (0: WATER_AUTO_TRAIL_CELLS cells);
 * returns their work. Only the part of the line whose stones can reach the water is walked,
 * so a line from far off costs what its part on the screen does. Ends more than 2^28 pixels
 * away are brought in to that. */
long water_trail(struct water *w, int x0, int y0, int x1, int y1, int radius, int weight,
		 int spacing);

/* A trail dropped a part at a time, as water_trail drops it whole. */
struct water_trail {
	int x0, y0, x1, y1;
	int radius, weight, spacing;
	long step;		/* the steps of its line done: 0 at first */
	bool done;		/* every stone has fallen */
};

/* Drops t's next stones until their work reaches budget or the trail is done; returns it. */
long water_trail_part(struct water *w, struct water_trail *t, long budget);

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

/* "disc", "crater", "cosine"; 0 or -EINVAL. */
int water_shape_parse(const char *name, enum water_shape *shape);
const char *water_shape_name(enum water_shape shape);

static inline int16_t *water_row(const struct water *w, int y)
{
	return w->cur + y * w->stride;
}

/* For engines: row y of cur may be non-zero from now on, anywhere in it. */
void water_mark_live(struct water *w, int y);
/* Cells x0 <= x < x1 of cur's row y may be non-zero from now on: live[y], span[y] widened. */
void water_mark_cells(struct water *w, int y, int x0, int x1);
/* For engines: the step is written into prev; it becomes cur, cur becomes prev. The engine set
 * prev_live only: every live row of the new cur gets the whole row as its span. */
void water_swap(struct water *w);
/* The same for an engine that also set prev_span[y] wherever it set prev_live[y], and set
 * prev_live only in the rows from rows.lo - 1 to rows.hi (a stencil one row high). */
void water_swap_spans(struct water *w);

#endif
