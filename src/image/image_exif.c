/* image_exif.c - a photo's EXIF orientation, read from its TIFF header and first directory. */
#include "image_exif.h"

#include <string.h>

#define TAG_ORIENTATION 0x0112
#define TYPE_SHORT 3

static unsigned get16(const uint8_t *p, bool big)
{
	return big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

static unsigned long get32(const uint8_t *p, bool big)
{
	return big ? (unsigned long)get16(p, true) << 16 | get16(p + 2, true)
		   : (unsigned long)get16(p + 2, false) << 16 | get16(p, false);
}

int exif_orientation(const uint8_t *app1, size_t len)
{
	const uint8_t *t = app1 + 6;	/* the TIFF header, past "Exif\0\0" */
	size_t n = len - 6, ifd, count;
	bool big;

	if (len < 6 + 8 || memcmp(app1, "Exif\0\0", 6) != 0)
		return 1;
	if (memcmp(t, "II*\0", 4) != 0 && memcmp(t, "MM\0*", 4) != 0)
		return 1;
	big = t[0] == 'M';
	ifd = get32(t + 4, big);
	if (ifd > n - 2)
		return 1;
	count = get16(t + ifd, big);
	for (size_t i = 0; i < count && ifd + 2 + 12 * (i + 1) <= n; i++) {
		const uint8_t *e = t + ifd + 2 + 12 * i;
		unsigned v = get16(e + 8, big);

		if (get16(e, big) == TAG_ORIENTATION)
			return get16(e + 2, big) == TYPE_SHORT && v >= 1 && v <= 8 ? (int)v : 1;
	}
	return 1;
}

bool exif_swaps(int orientation)
{
	return orientation >= 5 && orientation <= 8;
}

/*
 * 1 as stored, 2 mirrored, 3 half a turn, 4 upside down mirrored, 5 mirrored across the
 * diagonal, 6 a quarter turn clockwise, 7 mirrored across the other diagonal, 8 a quarter turn
 * anticlockwise. Turned a quarter, the upright picture is h wide.
 */
void exif_place_row(int orientation, long w, long h, long y, long *start, long *step)
{
	switch (orientation) {
	case 2:
		*start = y * w + w - 1, *step = -1;
		break;
	case 3:
		*start = (h - 1 - y) * w + w - 1, *step = -1;
		break;
	case 4:
		*start = (h - 1 - y) * w, *step = 1;
		break;
	case 5:
		*start = y, *step = h;
		break;
	case 6:
		*start = h - 1 - y, *step = h;
		break;
	case 7:
		*start = (w - 1) * h + h - 1 - y, *step = -h;
		break;
	case 8:
		*start = (w - 1) * h + y, *step = -h;
		break;
	default:
		*start = y * w, *step = 1;
		break;
	}
}
