/* render_path.h - the kernels a renderer may run: the scalar reference, or vectors the CPU
 * offers. */
#ifndef FBRIPPLE_RENDER_PATH_H
#define FBRIPPLE_RENDER_PATH_H

#include <stdbool.h>

enum render_path {
	RENDER_SCALAR, RENDER_SSE2, RENDER_SSE41, RENDER_AVX2, RENDER_NEON, RENDER_PATHS
};

/* "scalar", "sse2", "sse41", "avx2", "neon"; NULL past the end. */
const char *render_path_name(enum render_path path);
/* Whether this CPU (and this build) can run path. */
bool render_path_available(enum render_path path);
/* The path to run: FBRIPPLE_SIMD if it names one this CPU has, else the fastest it has. */
enum render_path render_path_default(void);

#endif
