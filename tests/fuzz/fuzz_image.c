/* fuzz_image.c - libFuzzer target: any bytes as a splash picture (PNG, JPEG or PPM, told apart
 * by content), loaded with image_load and scaled as the screen would scale it. */
#include "fuzz.h"

#include "image/image.h"

/* The first bytes choose the screen, 1 to 64 pixels a side: smaller and larger than the
 * picture, a row or a column; the rest is the file. */
#define SCREEN_BYTES	2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image img, out;
	char path[64], err[256];
	int fd, width, height;

	if (size < SCREEN_BYTES)
		return 0;
	width = 1 + data[0] % 64;
	height = 1 + data[1] % 64;
	fd = fuzz_file(data + SCREEN_BYTES, size - SCREEN_BYTES, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (image_load(&img, path, err, sizeof(err)) == 0) {
		if (image_scale(&out, &img, width, height, (enum scale_mode)(size % 5),
				0x102030) == 0)
			image_free(&out);
		image_free(&img);
	}
	close(fd);
	return 0;
}
