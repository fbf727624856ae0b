/* cpu.c - the vector instructions this CPU has, and the FBRIPPLE_SIMD override. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

static const char *const simd_names[CPU_SIMD_COUNT] = {
	"scalar", "sse2", "sse41", "avx2", "neon",
};

bool cpu_simd_supported(enum cpu_simd simd)
{
	switch (simd) {
	case CPU_SCALAR:
		return true;
#if defined(__x86_64__)
	case CPU_SSE2:
		return true;
	case CPU_SSE41:
		__builtin_cpu_init();
		return __builtin_cpu_supports("sse4.1");
	case CPU_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
#elif defined(__aarch64__)
	case CPU_NEON:
		return true;
#endif
	default:
		return false;
	}
}

int cpu_simd_parse(const char *name, enum cpu_simd *simd)
{
	for (int i = 0; i < CPU_SIMD_COUNT; i++)
		if (!strcmp(name, simd_names[i])) {
			*simd = (enum cpu_simd)i;
			return 0;
		}
	return -EINVAL;
}

const char *cpu_simd_name(enum cpu_simd simd)
{
	return (unsigned)simd < CPU_SIMD_COUNT ? simd_names[simd] : "?";
}

int cpu_simd_choose(enum cpu_simd *simd)
{
	const char *forced = getenv("FBRIPPLE_SIMD");
	enum cpu_simd want;

	*simd = CPU_SCALAR;
	for (int i = CPU_SIMD_COUNT - 1; i > CPU_SCALAR; i--)
		if (cpu_simd_supported((enum cpu_simd)i)) {
			*simd = (enum cpu_simd)i;
			break;
		}
	if (!forced || !*forced)
		return 0;
	if (cpu_simd_parse(forced, &want) < 0)
		return -EINVAL;
	if (!cpu_simd_supported(want))
		return -ENOTSUP;
	*simd = want;
	return 0;
}
