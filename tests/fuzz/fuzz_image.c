/* fuzz_image.c - libFuzzer target: any bytes as a splash picture (PNG, JPEG or PPM, told apart
 * by content), made into the screen's splash as the daemon makes it (loaded, scaled or
 * flattened, converted to the display's pixel format), or into its walls. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "image/pixfmt.h"

/* The first bytes choose the screen, 1 to 64 pixels a side: smaller and larger than the
 * picture, a row or a column; then the scale mode, the display's pixel format and whether the
 * picture is the walls' instead; the rest is the file. */
#define HEADER_BYTES	3

static const char *const formats[] = { "RGB565", "BGR565", "RGB888", "BGR888", "XRGB8888",
				       "XBGR8888", "RGBX8888", "BGRX8888" };

static void splash(struct config *cfg, int width, int height, unsigned fmt_index)
{
	struct image out;
	struct pixfmt fmt;
	char err[512];

	if (screen_load_splash(cfg, width, height, &out, err, sizeof(err)) < 0)
		return;
	if (out.width != width || out.height != height)
		__builtin_trap();	/* a splash not the screen's size */
	if (pixfmt_by_name(&fmt, formats[fmt_index % 8]) == 0) {
		size_t stride = (size_t)width * fmt.bytes;
		uint8_t *dst = malloc(stride * (size_t)height);

		if (dst)
			pixfmt_convert(&fmt, &out, dst, stride);
		free(dst);
	}
	image_free(&out);
}

static void walls(const struct config *cfg, int width, int height)
{
	struct walls w = { 0 };
	char err[512];

	if (walls_load(&w, cfg->water.obstacles, cfg->splash.scale, width, height, err,
		       sizeof(err)) == 0)
		walls_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config cfg;
	char path[64];
	int fd, width, height;

	if (size < HEADER_BYTES)
		return 0;
	width = 1 + data[0] % 64;
	height = 1 + data[1] % 64;
	fd = fuzz_file(data + HEADER_BYTES, size - HEADER_BYTES, path, sizeof(path));
	if (fd < 0)
		return 0;
	config_defaults(&cfg);
	cfg.splash.scale = (enum scale_mode)(data[2] % 5);
	cfg.splash.background = 0x102030;
	if (data[2] & 0x80) {
		snprintf(cfg.water.obstacles, sizeof(cfg.water.obstacles), "%s", path);
		walls(&cfg, width, height);
	} else {
		snprintf(cfg.splash.image, sizeof(cfg.splash.image), "%s", path);
		splash(&cfg, width, height, data[2] / 5);
	}
	close(fd);
	return 0;
}
