/* cpu.h - which vector instructions the kernels may use: detected once, forced by FBRIPPLE_SIMD. */
#ifndef FBRIPPLE_CPU_H
#define FBRIPPLE_CPU_H

#include <stdbool.h>

/* The kernels' paths; scalar is the reference every other path must equal exactly. */
/* Ordered by speed: cpu_simd_choose takes the last one this CPU supports. */
enum cpu_simd { CPU_SCALAR, CPU_SSE2, CPU_SSE41, CPU_AVX2, CPU_NEON, CPU_SIMD_COUNT };

/* Whether this build and this CPU can run the path (SSE2 on any x86-64, NEON on any arm64). */
bool cpu_simd_supported(enum cpu_simd simd);

/* "scalar", "sse2", "sse41", "avx2", "neon"; 0 or -EINVAL. */
int cpu_simd_parse(const char *name, enum cpu_simd *simd);
const char *cpu_simd_name(enum cpu_simd simd);

/*
 * The path to run: the one the environment variable FBRIPPLE_SIMD names, else the best this
 * CPU supports. 0, or -EINVAL when the variable names no path and -ENOTSUP when it names one
 * this CPU lacks; *simd is then the best supported path, so the caller may warn and go on.
 */
int cpu_simd_choose(enum cpu_simd *simd);

#endif
