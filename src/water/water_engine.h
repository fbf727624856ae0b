/* water_engine.h - what moves the water: one small interface, one file per engine. */
#ifndef FBRIPPLE_WATER_ENGINE_H
#define FBRIPPLE_WATER_ENGINE_H

#include <stdint.h>

struct pool;
struct water;

/*
 * An engine owns the way heights evolve; struct water owns the heights the renderer reads,
 * the live rows, the walls and everything that drops stones. After step, cur and prev are the
 * last two time steps and the live flags cover every non-zero cell of them and of the
 * engine's state; on a wall cur stays 0.
 */
struct water_engine {
	const char *name;
	int (*init)(struct water *w);		/* the engine's state, all 0; 0 or -errno */
	void (*free)(struct water *w);
	void (*clear)(struct water *w);		/* state back to 0 (heights are done already) */
	void (*step)(struct water *w);
	/* The same step in row bands over pool's threads, with the same result. NULL: step. */
	void (*step_pool)(struct water *w, struct pool *pool);
	/* A stone sets cell (x, y) of cur to h: the engine's state follows. NULL: nothing to do. */
	void (*set)(struct water *w, int x, int y, int16_t h);
};

extern const struct water_engine water_classic;
extern const struct water_engine water_hooke;
extern const struct water_engine water_spring;

/* The engines water.engine may name, numbered from 0 (water_engine.c lists them). */
#define WATER_ENGINES 3
const struct water_engine *water_engine_at(int i);	/* NULL past the last */
int water_engine_index(const char *name);		/* -1: no such engine */

/* Its viscosity must exceed its stiffness by this, or the lake's mean level swings ever wider
 * (the seed's explicit step multiplies that mode by sqrt(1 - viscosity + stiffness)). */
#define WATER_SPRING_MARGIN 0.0005

#endif
