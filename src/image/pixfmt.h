/* pixfmt.h - framebuffer pixel formats from fb bitfields; converting pictures to and from them. */
#ifndef FBRIPPLE_PIXFMT_H
#define FBRIPPLE_PIXFMT_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

struct pixfmt_field {
	uint8_t offset, length;
};

struct pixfmt {
	int bpp;	/* 16, 24 or 32 */
	int bytes;	/* bpp / 8 */
	struct pixfmt_field red, green, blue;
	uint32_t opaque;	/* the alpha field's bits, set in every pixel written; 0: none */
	char name[16];	/* "RGB565", "XRGB8888", ... or "R5G6B5@11,5,0" style when unnamed */
};

/* 0, or -EINVAL when the depth or layout is not a packed true-colour one we can draw. */
int pixfmt_init(struct pixfmt *fmt, int bpp, struct pixfmt_field red,
		struct pixfmt_field green, struct pixfmt_field blue);

/* An alpha field beside the colours (fbdev's transp): every pixel packed or converted is then
 * opaque, for drivers whose hardware blends by it (a pixel of alpha 0 shows nothing). An
 * XRGB-style name becomes ARGB. Length 0: none. 0, or -EINVAL (no change) where it leaves the
 * pixel or overlaps a colour. */
int pixfmt_set_alpha(struct pixfmt *fmt, struct pixfmt_field alpha);

/* Names: RGB565 BGR565 RGB888 BGR888 XRGB8888 XBGR8888 RGBX8888 BGRX8888. 0 or -EINVAL. */
int pixfmt_by_name(struct pixfmt *fmt, const char *name);

/* 0xRRGGBB -> pixel value (opaque), and back (low bits restored by replicating the high ones). */
uint32_t pixfmt_pack(const struct pixfmt *fmt, uint32_t rgb);
uint32_t pixfmt_unpack(const struct pixfmt *fmt, uint32_t pixel);

/* A whole picture into rows of the format at dst (stride bytes apart), and back. 16 and 32 bpp
 * pixels are native-endian uint16_t/uint32_t, 24 bpp are 3 bytes, lowest byte first; bytes past
 * width * bytes in each row are left alone. A colour field of fewer than 8 bits (RGB565) gets
 * an ordered dither by the pixel's place in the picture, of the part of each value between two
 * of the field's levels: a value pixfmt_unpack gives (black, white) stays exact. Fields of 8
 * bits convert as pixfmt_pack. pixfmt_unconvert fills dst, whose width, height and
 * pixels the caller has already set up; the unpacked pixels are opaque. pixfmt_convert may
 * write over src->pixels itself with a stride of at most width * 4: each pixel is read before
 * its bytes, or a later pixel's, are written. */
void pixfmt_convert(const struct pixfmt *fmt, const struct image *src, void *dst, size_t stride);
void pixfmt_unconvert(const struct pixfmt *fmt, const void *src, size_t stride, struct image *dst);

/* A width x height picture of fmt into a new image (image_free frees it). 0 or -ENOMEM. */
int pixfmt_read_image(const struct pixfmt *fmt, const void *src, size_t stride, int width,
		      int height, struct image *img);

#endif
