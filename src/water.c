/* water.c - the classic integer ripple kernel over a zero-bordered height field. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "water.h"

int water_init(struct water *w, int width, int height, int damping_shift)
{
	size_t cells = (size_t)(width + 2) * (height + 2);

	memset(w, 0, sizeof(*w));
	if (width < 1 || height < 1)
		return -EINVAL;
	w->width = width;
	w->height = height;
	w->stride = width + 2;
	w->damping_shift = damping_shift;
	for (int i = 0; i < 2; i++) {
		w->mem[i] = calloc(cells, sizeof(int16_t));
		w->live_mem[i] = calloc(height + 2, 1);
		if (!w->mem[i] || !w->live_mem[i]) {
			water_free(w);
			return -ENOMEM;
		}
	}
	w->cur = w->mem[0] + w->stride + 1;
	w->prev = w->mem[1] + w->stride + 1;
	w->live = w->live_mem[0] + 1;
	w->prev_live = w->live_mem[1] + 1;
	return 0;
}

void water_free(struct water *w)
{
	for (int i = 0; i < 2; i++) {
		free(w->mem[i]);
		free(w->live_mem[i]);
	}
	memset(w, 0, sizeof(*w));
}

void water_clear(struct water *w)
{
	size_t cells = (size_t)w->stride * (w->height + 2);

	for (int i = 0; i < 2; i++) {
		memset(w->mem[i], 0, cells * sizeof(int16_t));
		memset(w->live_mem[i], 0, w->height + 2);
	}
	w->live_rows = 0;
}

static void count_live(struct water *w)
{
	int n = 0;

	for (int y = 0; y < w->height; y++)
		n += w->live[y] | w->prev_live[y];
	w->live_rows = n;
}

/* Writes row y of the next step over prev; returns whether the row came out non-zero. */
static uint8_t step_row(const int16_t *restrict up, const int16_t *restrict mid,
			const int16_t *restrict down, int16_t *restrict out, int width, int shift)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int w = ((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x];
		int16_t v;

		/* heavy stones with little damping can outgrow int16: saturate, never wrap into
		 * noise that would never calm (below that, exactly the seeds' arithmetic) */
		v = (int16_t)(w > INT16_MAX ? INT16_MAX : w < -INT16_MAX ? -INT16_MAX : w);
		v = (int16_t)(v - (v >> shift));
		out[x] = v;
		any |= v;
	}
	return any != 0;
}

void water_step(struct water *w)
{
	int stride = w->stride;

	for (int y = 0; y < w->height; y++) {
		int16_t *next = w->prev + y * stride;
		const int16_t *mid = w->cur + y * stride;

		if (!(w->live[y - 1] | w->live[y] | w->live[y + 1] | w->prev_live[y]))
			continue;
		w->prev_live[y] = step_row(mid - stride, mid, mid + stride, next, w->width,
					   w->damping_shift);
	}

	int16_t *t = w->cur;
	w->cur = w->prev;
	w->prev = t;

	uint8_t *l = w->live;
	w->live = w->prev_live;
	w->prev_live = l;
	count_live(w);
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void water_drop(struct water *w, int x, int y, int radius, int weight)
{
	int r2 = radius * radius;
	int y0 = clamp(y - radius + 1, 0, w->height), y1 = clamp(y + radius, 0, w->height);
	int x0 = clamp(x - radius + 1, 0, w->width), x1 = clamp(x + radius, 0, w->width);

	for (int cy = y0; cy < y1; cy++) {
		int16_t *row = water_row(w, cy);
		int dy2 = (cy - y) * (cy - y);
		int hit = 0;

		for (int cx = x0; cx < x1; cx++) {
			if ((cx - x) * (cx - x) + dy2 < r2) {
				row[cx] = (int16_t)-weight;
				hit = 1;
			}
		}
		if (hit && !w->live[cy]) {
			w->live[cy] = 1;
			w->live_rows += !w->prev_live[cy];
		}
	}
}

void water_trail(struct water *w, int x0, int y0, int x1, int y1, int radius, int weight,
		 int spacing)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0);
	int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;
	int n = 0;

	if (spacing < 1)
		spacing = 1;
	while (x0 != x1 || y0 != y1) {
		int e2 = 2 * err;

		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
		if (++n % spacing == 0 || (x0 == x1 && y0 == y1))
			water_drop(w, x0, y0, radius, weight);
	}
}

/* xorshift64*: plenty for placing raindrops, and reproducible from a seed in tests. */
static uint32_t rain_random(struct water_rain *rain)
{
	rain->rng ^= rain->rng >> 12;
	rain->rng ^= rain->rng << 25;
	rain->rng ^= rain->rng >> 27;
	return (uint32_t)((rain->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

int water_rain(struct water *w, struct water_rain *rain, double seconds)
{
	int n = 0;

	rain->due += rain->rate * seconds;
	for (; rain->due >= 1.0; rain->due -= 1.0, n++) {
		int x = (int)((uint64_t)rain_random(rain) * w->width >> 32);
		int y = (int)((uint64_t)rain_random(rain) * w->height >> 32);

		water_drop(w, x, y, rain->size, rain->weight);
	}
	return n;
}

int water_clock_steps(long *due, uint64_t frames, int steps_per_second, int fps)
{
	long limit = 2L * steps_per_second + fps;
	int steps;

	if (frames > 3)
		frames = 3;
	*due += (long)frames * steps_per_second;
	if (*due > limit)
		*due = limit;
	steps = (int)(*due / fps);
	*due %= fps;
	return steps;
}

bool water_calm(const struct water *w)
{
	return w->live_rows == 0;
}
