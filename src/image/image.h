/* image.h - pictures in memory: load PNG/JPEG/PPM, scale to a screen, the built-in splash, PNG out.
 *
 * The image folder: loading (image.c), scaling (image_scale.c), the built-in splash
 * (image_splash.c, its floor's rows in vectors in image_splash_lanes.h), pixel formats
 * (pixfmt.c) and screenshots (shot.c). It includes util/. */
#ifndef FBRIPPLE_IMAGE_H
#define FBRIPPLE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Pixels are 0xAARRGGBB, row-major, width pixels per row. */
struct image {
	int width, height;
	uint32_t *pixels;
};

static inline uint32_t image_argb(unsigned r, unsigned g, unsigned b, unsigned a)
{
	return (uint32_t)a << 24 | (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* A channel value computed in floats, rounded and clamped to 0..255. */
static inline unsigned image_channel(float v)
{
	return v <= 0.0f ? 0 : v >= 255.0f ? 255 : (unsigned)(v + 0.5f);
}

enum scale_mode {
	SCALE_FILL,	/* cover the screen, crop the overflow, keep the aspect */
	SCALE_FIT,	/* whole image visible, letterboxed on the background */
	SCALE_STRETCH,	/* exactly the screen size, aspect ignored */
	SCALE_CENTER,	/* no scaling, centred, cropped or bordered */
	SCALE_TILE,	/* no scaling, repeated from the top-left corner */
};

/* PNG, JPEG or binary PPM/PGM (P6/P5), told apart by content, as 8-bit ARGB. 0 or -errno
 * (-EINVAL for bad or oversized data); on failure err holds the reason (without the path)
 * and img is untouched. */
int image_load(struct image *img, const char *path, char *err, size_t errlen);

/* Scale src onto a new opaque width x height image; alpha is composited over
 * background (0xRRGGBB), which also fills uncovered areas. 0, -ENOMEM, or -EINVAL for an
 * empty size. */
int image_scale(struct image *dst, const struct image *src, int width, int height,
		enum scale_mode mode, uint32_t background);

/* What image_scale gives for img's own size, in place: alpha composited over background. */
void image_flatten(struct image *img, uint32_t background);

/* The built-in splash, generated at exactly width x height. 0, -ENOMEM or -EINVAL. */
int image_builtin(struct image *img, int width, int height);

/* 8-bit RGB, alpha dropped. 0 or -errno; a partly written regular file is removed. */
int image_write_png(const struct image *img, const char *path);

/* The same into an open file, left open; 0 or -errno. */
int image_write_png_file(const struct image *img, FILE *f);

void image_free(struct image *img);

/* 0 or -EINVAL for an unknown name. */
int scale_mode_parse(const char *name, enum scale_mode *mode);
const char *scale_mode_name(enum scale_mode mode);

#endif
