/* render_row_sse41.c - render_row_sse2.c's kernels again, built for SSE4.1: its native 32-bit
 * min, max and low multiply replace SSE2's emulations, the kernels' bodies stay one source. */
#define RENDER_ROW_SSE41
#include "render_row_sse2.c"
