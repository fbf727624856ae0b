/* render_path.c - which row kernels this CPU can run, and which one runs: cpu.c decides. */
#include <stddef.h>

#include "render_path.h"
#include "util/cpu.h"
#include "util/log.h"

_Static_assert((int)RENDER_SCALAR == (int)CPU_SCALAR && (int)RENDER_SSE2 == (int)CPU_SSE2 &&
	       (int)RENDER_SSE41 == (int)CPU_SSE41 && (int)RENDER_AVX2 == (int)CPU_AVX2 &&
	       (int)RENDER_NEON == (int)CPU_NEON && (int)RENDER_PATHS == (int)CPU_SIMD_COUNT,
	       "a render path is a cpu path");

const char *render_path_name(enum render_path path)
{
	return path < RENDER_PATHS ? cpu_simd_name((enum cpu_simd)path) : NULL;
}

bool render_path_available(enum render_path path)
{
	return path < RENDER_PATHS && cpu_simd_supported((enum cpu_simd)path);
}

/* The path FBRIPPLE_SIMD names, or the fastest (main.c says once when the name is no good). */
enum render_path render_path_default(void)
{
	enum cpu_simd simd;

	cpu_simd_choose(&simd);
	log_debug("render: %s kernels", cpu_simd_name(simd));
	return (enum render_path)simd;
}
