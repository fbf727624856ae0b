/* image_exif.h - a photo's EXIF orientation: how the camera was held, and so which way its
 * pixels are to be turned for the picture to stand upright. */
#ifndef FBRIPPLE_IMAGE_EXIF_H
#define FBRIPPLE_IMAGE_EXIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Of a JPEG's APP1 segment ("Exif\0\0" and a TIFF header), maybe cut short: its orientation
 * tag, 1 (as stored) to 8; 1 where there is none or it cannot be read. */
int exif_orientation(const uint8_t *app1, size_t len);

/* Whether the orientation swaps width and height (a quarter turn). */
bool exif_swaps(int orientation);

/* Where pixel x of stored row y of a w x h picture lands in the upright one: at start + x *
 * step, counted in pixels from its first. */
void exif_place_row(int orientation, long w, long h, long y, long *start, long *step);

#endif
