/* fuzz_image.c - libFuzzer target: any bytes as a splash picture (PNG, JPEG or PPM, told apart
 * by content), loaded with image_load and scaled as the screen would scale it. */
#include "fuzz.h"

#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image img, out;
	char path[64], err[256];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (image_load(&img, path, err, sizeof(err)) == 0) {
		if (image_scale(&out, &img, 24, 16, (enum scale_mode)(size % 5), 0x102030) == 0)
			image_free(&out);
		image_free(&img);
	}
	close(fd);
	return 0;
}
