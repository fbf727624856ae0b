/* render_path.c - which row kernels this CPU can run, and which one runs: FBRIPPLE_SIMD. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "render.h"

static const char *const names[RENDER_PATHS] = { "scalar", "sse2", "avx2", "neon" };

const char *render_path_name(enum render_path path)
{
	return path < RENDER_PATHS ? names[path] : NULL;
}

bool render_path_available(enum render_path path)
{
	switch (path) {
	case RENDER_SCALAR:
		return true;
#if defined(__x86_64__)
	case RENDER_SSE2:
		return true;	/* every x86-64 has it */
	case RENDER_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
#endif
#if defined(__aarch64__)
	case RENDER_NEON:
		return true;	/* every arm64 has it */
#endif
	default:
		return false;
	}
}

/* The last path is the fastest. */
static enum render_path fastest(void)
{
	enum render_path best = RENDER_SCALAR;

	for (int p = 0; p < RENDER_PATHS; p++)
		if (render_path_available(p))
			best = p;
	return best;
}

enum render_path render_path_default(void)
{
	const char *want = getenv("FBRIPPLE_SIMD");
	enum render_path best = fastest();

	if (want && *want) {
		for (int p = 0; p < RENDER_PATHS; p++)
			if (strcmp(want, names[p]) == 0 && render_path_available(p)) {
				log_debug("render: %s kernels (FBRIPPLE_SIMD)", names[p]);
				return p;
			}
		log_warn("FBRIPPLE_SIMD=%s: not a path this CPU runs (scalar, sse2, avx2, neon); "
			 "using %s", want, names[best]);
		return best;
	}
	log_debug("render: %s kernels", names[best]);
	return best;
}
