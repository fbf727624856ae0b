/* water_engine.c - the engines water.engine may name: a new engine is one more line here. */
#include <string.h>

#include "water_engine.h"

static const struct water_engine *const engines[] = { &water_classic, &water_hooke,
							&water_spring };
_Static_assert(sizeof(engines) / sizeof(engines[0]) == WATER_ENGINES, "WATER_ENGINES is stale");

const struct water_engine *water_engine_at(int i)
{
	return i >= 0 && i < WATER_ENGINES ? engines[i] : NULL;
}

int water_engine_index(const char *name)
{
	for (int i = 0; i < WATER_ENGINES; i++)
		if (!strcmp(name, engines[i]->name))
			return i;
	return -1;
}
