/* look.c - measures one touch's ring as a person would see it: reach and life, from pixels. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "image/image.h"
#include "look.h"
#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

#define VISIBLE 24		/* |dR| + |dG| + |dB| above this is visible */
#define LIVING 0.0002		/* this much of the screen visible: the ring lives */

static uint32_t pixel_at(const uint8_t *p, int bytes)
{
	return bytes == 2 ? *(const uint16_t *)p
	     : bytes == 4 ? *(const uint32_t *)p : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);
}

static int channel_diff(uint32_t a, uint32_t b)
{
	int d = 0;

	for (int s = 0; s < 24; s += 8)
		d += abs((int)(a >> s & 0xff) - (int)(b >> s & 0xff));
	return d;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct frame_stats {
	long visible, sampled;
	double p95;			/* of the visible pixels' distance, in pixels */
	double axis, diagonal;		/* the same within 5 degrees of the axes, the diagonals */
	double axis_glow, diagonal_glow;	/* the visible pixels' mean change there */
};

/* The 95th percentile of the n distances in d, sorted on the way. */
static double p95(double *d, long n)
{
	if (!n)
		return 0;
	qsort(d, (size_t)n, sizeof(*d), cmp_double);
	return d[(long)(0.95 * (double)(n - 1))];
}

/* Compares the frame with the calm one on a grid of every step-th pixel. */
static void frame_stats(const struct render *r, const uint8_t *frame, const uint8_t *calm,
			int step, double *dist, struct frame_stats *st)
{
	const struct pixfmt *fmt = &r->fmt;
	double cx = r->width / 2 + 0.5, cy = r->height / 2 + 0.5;
	long n = 0, na = 0, nd = 0, total = (long)(r->width / step + 1) * (r->height / step + 1);
	double *da = dist + total, *dd = da + total, glow_a = 0, glow_d = 0;

	memset(st, 0, sizeof(*st));
	for (int y = 0; y < r->height; y += step)
		for (int x = 0; x < r->width; x += step) {
			size_t at = ((size_t)y * r->width + x) * r->bytes;
			uint32_t a = pixfmt_unpack(fmt, pixel_at(frame + at, r->bytes));
			uint32_t b = pixfmt_unpack(fmt, pixel_at(calm + at, r->bytes));
			double dx = x + 0.5 - cx, dy = y + 0.5 - cy, d = hypot(dx, dy);
			double ang = fmod(atan2(fabs(dy), fabs(dx)) * 180 / M_PI, 90);

			int diff = channel_diff(a, b);

			st->sampled++;
			if (diff <= VISIBLE)
				continue;
			dist[n++] = d;
			if (ang < 5 || ang > 85) {
				da[na++] = d;
				glow_a += diff;
			} else if (fabs(ang - 45) < 5) {
				dd[nd++] = d;
				glow_d += diff;
			}
		}
	st->visible = n;
	st->p95 = p95(dist, n);
	st->axis = p95(da, na);
	st->diagonal = p95(dd, nd);
	st->axis_glow = na ? glow_a / (double)na : 0;
	st->diagonal_glow = nd ? glow_d / (double)nd : 0;
}

int look_defaults_with_engine(struct config *cfg, const char *engine)
{
	char path[] = "/tmp/fbripple-look-XXXXXX", text[128], err[256];
	int fd = mkstemp(path), n, ret;

	if (fd < 0)
		return -errno;
	n = snprintf(text, sizeof(text), "water: { engine = \"%s\"; };\n", engine);
	ret = write(fd, text, (size_t)n) == n ? 0 : -EIO;
	close(fd);
	if (ret == 0)
		ret = config_load(cfg, path, err, sizeof(err), NULL, NULL);
	unlink(path);
	return ret;
}

int look_measure(const struct config *cfg, int width, int height, const char *format,
		 int frame_step, double seconds, struct look *out)
{
	int cell = cfg->water.cell ? cfg->water.cell : water_cell_auto(width, height);
	int short_side = width < height ? width : height, step = 1 + short_side / 600;
	struct render_light light = { cfg->water.light, cfg->water.light_direction,
				      cfg->water.specular };
	struct pixfmt fmt;
	struct image splash;
	struct render r;
	struct water w;
	uint8_t *calm = NULL, *frame = NULL;
	double *dist = NULL;
	long due = 0, frames = lround(seconds * cfg->display.fps);
	size_t bytes;
	int ret;

	memset(out, 0, sizeof(*out));
	if (pixfmt_by_name(&fmt, format) < 0)
		return -EINVAL;
	ret = render_init(&r, width, height, 0, cell, &fmt);
	if (ret < 0)
		return ret;
	struct water_tuning tuning = config_water_tuning(cfg);

	ret = water_open(&w, config_water_engine(cfg), width, height, cell, &tuning);
	if (ret == 0)
		ret = image_builtin(&splash, width, height);
	if (ret < 0)
		goto out;
	render_set_splash(&r, &splash);
	image_free(&splash);
	render_set_light(&r, &light);
	w.shape = cfg->stone.shape;
	bytes = (size_t)width * height * fmt.bytes;
	calm = malloc(bytes);
	frame = malloc(bytes);
	dist = malloc(3 * sizeof(*dist) * (size_t)(width / step + 1) * (height / step + 1));
	if (!calm || !frame || !dist) {
		ret = -ENOMEM;
		goto out;
	}
	render_frame(&r, &w, calm, (size_t)width * fmt.bytes, 0, true);
	memcpy(frame, calm, bytes);
	water_drop(&w, width / 2, height / 2, cfg->stone.size, cfg->stone.weight);
	for (long f = 1; f <= frames && !water_calm(&w); f++) {
		struct frame_stats st;
		int steps = water_clock_steps(&due, 1, cfg->water.steps_per_second,
					      cfg->display.fps);

		for (int i = 0; i < steps; i++)
			water_step(&w);
		if (f % frame_step)
			continue;
		render_frame(&r, &w, frame, (size_t)width * fmt.bytes, 0, false);
		frame_stats(&r, frame, calm, step, dist, &st);
		if (st.visible < LIVING * (double)st.sampled)
			continue;
		out->life = (double)f / cfg->display.fps;
		if (st.p95 / short_side > out->reach)
			out->reach = st.p95 / short_side;
		if (f == cfg->display.fps) {
			out->ring_axis = st.axis / short_side;
			out->ring_diagonal = st.diagonal / short_side;
			out->glow_axis = st.axis_glow;
			out->glow_diagonal = st.diagonal_glow;
		}
	}
out:
	free(calm);
	free(frame);
	free(dist);
	water_free(&w);
	render_free(&r);
	return ret;
}
