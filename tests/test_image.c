/* test_image.c - loading PNG/JPEG/PPM, every scale mode, the built-in splash and PNG output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "image/image.h"
#include "testutil.h"

struct fixture {
	char dir[64];
	char path[128];
	char err[256];
};

static int group_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/fbripple-test-image-XXXXXX");
	if (!mkdtemp(fx->dir)) {
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int group_teardown(void **state)
{
	struct fixture *fx = *state;
	struct dirent *de;
	char p[512];
	DIR *d = opendir(fx->dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, de->d_name);
		if (unlink(p) < 0)
			rmdir(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static const char *tmp(void **state, const char *name)
{
	struct fixture *fx = *state;

	snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->dir, name);
	return fx->path;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Raw PNG rows in whatever format the colour type and depth say. */
struct png_spec {
	int w, h, type, depth, interlace;
	const uint8_t *data;		/* rows packed back to back */
	const png_color *palette;
	int npalette;
	const uint8_t *trns;
	int ntrns;
	const png_color_16 *trns_color;
};

static void write_png(const char *path, const struct png_spec *s)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	FILE *f = fopen(path, "wb");
	size_t rowbytes;
	int y, pass, passes;

	assert_non_null(f);
	assert_non_null(info);
	assert_int_equal(setjmp(png_jmpbuf(png)), 0);
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)s->w, (png_uint_32)s->h, s->depth, s->type,
		     s->interlace, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	if (s->palette)
		png_set_PLTE(png, info, s->palette, s->npalette);
	if (s->trns || s->trns_color)
		png_set_tRNS(png, info, s->trns, s->ntrns, s->trns_color);
	png_write_info(png, info);
	passes = png_set_interlace_handling(png);
	rowbytes = png_get_rowbytes(png, info);
	for (pass = 0; pass < passes; pass++)
		for (y = 0; y < s->h; y++)
			png_write_row(png, s->data + (size_t)y * rowbytes);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	fclose(f);
}

static void write_jpeg(const char *path, int w, int h, int comps, J_COLOR_SPACE cs,
		       const uint8_t *px, int quality, int adobe)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	FILE *f = fopen(path, "wb");
	int y;

	assert_non_null(f);
	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_stdio_dest(&c, f);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = comps;
	c.in_color_space = cs;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	if (!adobe)
		c.write_Adobe_marker = FALSE;
	jpeg_start_compress(&c, TRUE);
	for (y = 0; y < h; y++) {
		JSAMPROW row = (JSAMPROW)(px + (size_t)y * w * comps);

		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	fclose(f);
}

static int load(void **state, const char *path, struct image *img)
{
	struct fixture *fx = *state;

	memset(fx->err, 0, sizeof(fx->err));
	return image_load(img, path, fx->err, sizeof(fx->err));
}

static const char *err(void **state)
{
	return ((struct fixture *)*state)->err;
}

static int ch(uint32_t p, int shift)
{
	return (int)((p >> shift) & 0xff);
}

static void assert_near(uint32_t got, uint32_t want, int tol)
{
	if (abs(ch(got, 16) - ch(want, 16)) > tol || abs(ch(got, 8) - ch(want, 8)) > tol ||
	    abs(ch(got, 0) - ch(want, 0)) > tol || abs(ch(got, 24) - ch(want, 24)) > tol)
		fail_msg("pixel %08x, want %08x +- %d", got, want, tol);
}

static struct image make(int w, int h, const uint32_t *px)
{
	struct image img = { w, h, malloc((size_t)w * h * sizeof(uint32_t)) };

	assert_non_null(img.pixels);
	memcpy(img.pixels, px, (size_t)w * h * sizeof(uint32_t));
	return img;
}

/* ---- PNG ---- */

static void test_png_rgba(void **state)
{
	static const uint8_t rows[] = {
		255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0,
		1, 2, 3, 4, 250, 251, 252, 253, 255, 255, 255, 255,
	};
	struct png_spec s = { 3, 2, PNG_COLOR_TYPE_RGBA, 8, PNG_INTERLACE_NONE, rows,
			      NULL, 0, NULL, 0, NULL };
	static const uint32_t want[] = { 0xffff0000, 0x8000ff00, 0x000000ff,
					 0x04010203, 0xfdfafbfc, 0xffffffff };
	struct image img;
	const char *p = tmp(state, "rgba.png");

	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 3);
	assert_int_equal(img.height, 2);
	assert_memory_equal(img.pixels, want, sizeof(want));
	image_free(&img);
	assert_null(img.pixels);
}

static void test_png_grey(void **state)
{
	static const uint8_t grey[] = { 0, 128, 255, 7 };
	static const uint8_t grey_alpha[] = { 10, 255, 200, 0 };
	static const uint8_t grey1[] = { 0xa0 };	/* 1-bit: 1 0 1 0 */
	struct png_spec s = { 2, 2, PNG_COLOR_TYPE_GRAY, 8, PNG_INTERLACE_NONE, grey,
			      NULL, 0, NULL, 0, NULL };
	struct image img;
	const char *p = tmp(state, "grey.png");

	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xff000000);
	assert_int_equal(img.pixels[1], 0xff808080);
	assert_int_equal(img.pixels[2], 0xffffffff);
	assert_int_equal(img.pixels[3], 0xff070707);
	image_free(&img);

	s = (struct png_spec){ 2, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8, PNG_INTERLACE_NONE, grey_alpha,
			       NULL, 0, NULL, 0, NULL };
	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xff0a0a0a);
	assert_int_equal(img.pixels[1], 0x00c8c8c8);
	image_free(&img);

	s = (struct png_spec){ 4, 1, PNG_COLOR_TYPE_GRAY, 1, PNG_INTERLACE_NONE, grey1,
			       NULL, 0, NULL, 0, NULL };
	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 4);
	assert_int_equal(img.pixels[0], 0xffffffff);
	assert_int_equal(img.pixels[1], 0xff000000);
	assert_int_equal(img.pixels[2], 0xffffffff);
	assert_int_equal(img.pixels[3], 0xff000000);
	image_free(&img);
}

static void test_png_palette_trns(void **state)
{
	static const png_color pal[] = { { 255, 0, 0 }, { 0, 0, 255 }, { 10, 20, 30 } };
	static const uint8_t trns[] = { 255, 64 };
	static const uint8_t idx4[] = { 0x01, 0x20 };	/* 4-bit indices 0 1 2 0 */
	struct png_spec s = { 4, 1, PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, idx4,
			      pal, 3, trns, 2, NULL };
	struct image img;
	const char *p = tmp(state, "pal.png");

	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xffff0000);
	assert_int_equal(img.pixels[1], 0x400000ff);
	assert_int_equal(img.pixels[2], 0xff0a141e);	/* past the tRNS entries: opaque */
	assert_int_equal(img.pixels[3], 0xffff0000);
	image_free(&img);
}

static void test_png_rgb_colour_key(void **state)
{
	static const uint8_t rgb[] = { 1, 2, 3, 4, 5, 6 };
	png_color_16 key = { 0, 4, 5, 6, 0 };
	struct png_spec s = { 2, 1, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_NONE, rgb,
			      NULL, 0, NULL, 0, &key };
	struct image img;
	const char *p = tmp(state, "key.png");

	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xff010203);
	assert_int_equal(img.pixels[1] >> 24, 0);
	image_free(&img);
}

static void test_png_16bit(void **state)
{
	/* 16-bit samples, big-endian as PNG stores them */
	static const uint8_t rgba16[] = { 0xff, 0xff, 0x00, 0x00, 0x80, 0x80, 0xff, 0xff,
					  0x01, 0x01, 0xfe, 0xfe, 0x12, 0x34, 0x80, 0x00 };
	static const uint8_t grey16[] = { 0xff, 0xff, 0x00, 0x00, 0x40, 0x40 };
	struct png_spec s = { 2, 1, PNG_COLOR_TYPE_RGBA, 16, PNG_INTERLACE_NONE, rgba16,
			      NULL, 0, NULL, 0, NULL };
	struct image img;
	const char *p = tmp(state, "16.png");

	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xffff0080);
	assert_near(img.pixels[1], 0x8001fe12, 1);
	image_free(&img);

	s = (struct png_spec){ 3, 1, PNG_COLOR_TYPE_GRAY, 16, PNG_INTERLACE_NONE, grey16,
			       NULL, 0, NULL, 0, NULL };
	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xffffffff);
	assert_int_equal(img.pixels[1], 0xff000000);
	assert_int_equal(img.pixels[2], 0xff404040);
	image_free(&img);
}

static void test_png_interlaced(void **state)
{
	uint8_t rgb[9 * 9 * 3];
	struct png_spec s = { 9, 9, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7, rgb,
			      NULL, 0, NULL, 0, NULL };
	struct image img;
	const char *p = tmp(state, "adam7.png");
	int i;

	for (i = 0; i < 9 * 9 * 3; i++)
		rgb[i] = (uint8_t)(i * 7);
	write_png(p, &s);
	assert_int_equal(load(state, p, &img), 0);
	for (i = 0; i < 81; i++)
		assert_int_equal(img.pixels[i], 0xff000000u | (uint32_t)rgb[3 * i] << 16 |
							(uint32_t)rgb[3 * i + 1] << 8 | rgb[3 * i + 2]);
	image_free(&img);
}

static void test_png_broken(void **state)
{
	uint8_t rgb[32 * 32 * 3];
	struct png_spec s = { 32, 32, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_NONE, rgb,
			      NULL, 0, NULL, 0, NULL };
	struct image img = { 7, 7, NULL };
	const char *p = tmp(state, "cut.png");
	size_t len, i;
	uint8_t *data;

	for (i = 0; i < sizeof(rgb); i++)
		rgb[i] = (uint8_t)(i * 2654435761u >> 24);
	write_png(p, &s);
	data = read_file(p, &len);
	write_file(p, data, len / 2);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated PNG data");
	assert_int_equal(img.width, 7);		/* untouched */
	assert_null(img.pixels);

	/* a signature and then nonsense */
	memset(data + 8, 0x5a, 40);
	write_file(p, data, 48);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_true(strlen(err(state)) > 0);
	free(data);
}

static void test_png_too_large(void **state)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	const char *p = tmp(state, "huge.png");
	FILE *f = fopen(p, "wb");
	struct image img = { 0, 0, NULL };

	/* Only the header: a loader that allocated first would fail differently or run out. */
	assert_non_null(f);
	assert_int_equal(setjmp(png_jmpbuf(png)), 0);
	png_init_io(png, f);
	png_set_IHDR(png, info, 40000, 40000, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	png_destroy_write_struct(&png, &info);
	fclose(f);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "image too large (40000x40000; at most 16384 pixels a side "
				       "and 16 megapixels)");
	assert_null(img.pixels);
}

/* ---- JPEG ---- */

static void test_jpeg_flat(void **state)
{
	uint8_t px[16 * 16 * 3], grey[8 * 8];
	struct image img;
	const char *p = tmp(state, "flat.jpg");
	int i;

	for (i = 0; i < 16 * 16; i++) {
		px[3 * i] = 200;
		px[3 * i + 1] = 100;
		px[3 * i + 2] = 50;
	}
	write_jpeg(p, 16, 16, 3, JCS_RGB, px, 100, 1);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 16);
	assert_int_equal(img.height, 16);
	for (i = 0; i < 16 * 16; i++)
		assert_near(img.pixels[i], 0xffc86432, 3);
	image_free(&img);

	memset(grey, 77, sizeof(grey));
	write_jpeg(p, 8, 8, 1, JCS_GRAYSCALE, grey, 100, 1);
	assert_int_equal(load(state, p, &img), 0);
	for (i = 0; i < 8 * 8; i++)
		assert_near(img.pixels[i], 0xff4d4d4d, 2);
	image_free(&img);
}

/* An EXIF segment saying orientation o, big or little endian, after a tag before it. */
static size_t exif_segment(uint8_t *b, int o, bool big)
{
	static const uint8_t mm[] = { 'M', 'M', 0, '*', 0, 0, 0, 8, 0, 2,
				      0x01, 0x0f, 0, 2, 0, 0, 0, 4, 'a', 'b', 'c', 0,
				      0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ii[] = { 'I', 'I', '*', 0, 8, 0, 0, 0, 2, 0,
				      0x0f, 0x01, 2, 0, 4, 0, 0, 0, 'a', 'b', 'c', 0,
				      0x12, 0x01, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	memcpy(b, "Exif\0\0", 6);
	memcpy(b + 6, big ? mm : ii, sizeof(mm));
	b[6 + 30 + big] = (uint8_t)o;
	return 6 + sizeof(mm);
}

/* A 48x32 JPEG of six 16-pixel blocks, A B C over D E F, its APP1 segments as given. */
static void write_blocks_jpeg(const char *path, const uint8_t *const *app1, const size_t *len,
			      int n)
{
	static const uint8_t colour[6][3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 },
					      { 255, 255, 0 }, { 255, 0, 255 }, { 0, 255, 255 } };
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	uint8_t row[48 * 3];
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_stdio_dest(&c, f);
	c.image_width = 48;
	c.image_height = 32;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 95, TRUE);
	jpeg_start_compress(&c, TRUE);
	for (int i = 0; i < n; i++)
		jpeg_write_marker(&c, JPEG_APP0 + 1, app1[i], (unsigned)len[i]);
	for (int y = 0; y < 32; y++) {
		JSAMPROW r = row;

		for (int x = 0; x < 48; x++)
			memcpy(row + 3 * x, colour[y / 16 * 3 + x / 16], 3);
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	fclose(f);
}

/* A photo taken with the camera turned stands upright, as photo viewers show it: by its EXIF
 * orientation, each block where that orientation puts it (the corners, as read off the EXIF
 * specification's table, not worked out as the loader does), little and big endian, after an
 * XMP segment and before a second EXIF one that does not count. */
static void test_jpeg_exif_orientation(void **state)
{
	enum { A = 0xffff0000, C = 0xff0000ff, D = 0xffffff00, F = 0xff00ffff };
	/* top left, top right, bottom left, bottom right */
	static const uint32_t corners[9][4] = {
		{ 0 }, { A, C, D, F }, { C, A, F, D }, { F, D, C, A }, { D, F, A, C },
		{ A, D, C, F }, { D, A, F, C }, { F, C, D, A }, { C, F, A, D },
	};
	static const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>";
	uint8_t exif[64], other[64];
	const char *p = tmp(state, "turned.jpg");
	struct image img;

	exif_segment(other, 3, true);
	for (int o = 1; o <= 8; o++) {
		for (int big = 0; big < 2; big++) {
			const uint8_t *seg[3] = { (const uint8_t *)xmp, exif, other };
			size_t len[3] = { sizeof(xmp), exif_segment(exif, o, big), 0 };
			int w, h;

			len[2] = len[1];
			write_blocks_jpeg(p, seg, len, 3);
			assert_int_equal(load(state, p, &img), 0);
			w = o >= 5 ? 32 : 48;
			h = o >= 5 ? 48 : 32;
			assert_int_equal(img.width, w);
			assert_int_equal(img.height, h);
			assert_near(img.pixels[8 * w + 8], corners[o][0], 24);
			assert_near(img.pixels[8 * w + w - 9], corners[o][1], 24);
			assert_near(img.pixels[(h - 9) * w + 8], corners[o][2], 24);
			assert_near(img.pixels[(h - 9) * w + w - 9], corners[o][3], 24);
			image_free(&img);
		}
	}
	/* a segment cut short in its directory, or an orientation out of range: as stored */
	{
		const uint8_t *seg[1] = { exif };
		size_t len[1] = { exif_segment(exif, 6, false) - 14 };

		write_blocks_jpeg(p, seg, len, 1);
		assert_int_equal(load(state, p, &img), 0);
		assert_int_equal(img.width, 48);
		image_free(&img);
		len[0] = exif_segment(exif, 9, true);
		write_blocks_jpeg(p, seg, len, 1);
		assert_int_equal(load(state, p, &img), 0);
		assert_int_equal(img.width, 48);
		assert_near(img.pixels[8 * 48 + 8], A, 24);
		image_free(&img);
	}
}

static void test_jpeg_cmyk(void **state)
{
	uint8_t cmyk[8 * 8 * 4];
	struct image img;
	const char *p = tmp(state, "cmyk.jpg");
	int i;

	/* libjpeg writes an Adobe marker; Adobe CMYK is stored inverted (255 = no ink). */
	for (i = 0; i < 8 * 8; i++) {
		cmyk[4 * i] = 255;
		cmyk[4 * i + 1] = 0;
		cmyk[4 * i + 2] = 0;
		cmyk[4 * i + 3] = 255;
	}
	write_jpeg(p, 8, 8, 4, JCS_CMYK, cmyk, 100, 1);
	assert_int_equal(load(state, p, &img), 0);
	for (i = 0; i < 8 * 8; i++)
		assert_near(img.pixels[i], 0xffff0000, 3);
	image_free(&img);

	/* Without the Adobe marker the samples are plain ink amounts: magenta + yellow = red. */
	for (i = 0; i < 8 * 8; i++) {
		cmyk[4 * i] = 0;
		cmyk[4 * i + 1] = 255;
		cmyk[4 * i + 2] = 255;
		cmyk[4 * i + 3] = 0;
	}
	write_jpeg(p, 8, 8, 4, JCS_CMYK, cmyk, 100, 0);
	assert_int_equal(load(state, p, &img), 0);
	for (i = 0; i < 8 * 8; i++)
		assert_near(img.pixels[i], 0xffff0000, 3);
	image_free(&img);
}

static void test_jpeg_broken(void **state)
{
	uint8_t px[64 * 64 * 3];
	struct image img = { 0, 0, NULL };
	const char *p = tmp(state, "cut.jpg");
	size_t len, i;
	uint8_t *data;

	for (i = 0; i < sizeof(px); i++)
		px[i] = (uint8_t)(i * 2654435761u >> 24);
	write_jpeg(p, 64, 64, 3, JCS_RGB, px, 90, 1);
	data = read_file(p, &len);
	write_file(p, data, len / 2);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated JPEG data");
	assert_null(img.pixels);

	/* the SOI marker and then nonsense */
	memset(data + 3, 0x33, 60);
	write_file(p, data, 63);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_true(strlen(err(state)) > 0);
	assert_null(img.pixels);
	free(data);
}

/* ---- PPM ---- */

static void test_ppm(void **state)
{
	static const char p8[] = "P6\n# a comment\n2 1\n255\n\x01\x02\x03\xfa\xfb\xfc";
	static const char p16[] = "P6 #c1\n2#c2\n1\n# c3\n65535\n"
				  "\xff\xff\x00\x00\x80\x80" "\x12\x34\x00\xff\xfe\xff";
	static const char p15[] = "P6\n1 1 15\n\x0f\x07\x00";
	static const char p5[] = "P5\n3 1\n255\n\x00\x80\xff";
	struct image img;
	const char *p = tmp(state, "a.ppm");

	write_file(p, p8, sizeof(p8) - 1);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 2);
	assert_int_equal(img.height, 1);
	assert_int_equal(img.pixels[0], 0xff010203);
	assert_int_equal(img.pixels[1], 0xfffafbfc);
	image_free(&img);

	write_file(p, p16, sizeof(p16) - 1);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 2);
	assert_int_equal(img.pixels[0], 0xffff0080);
	assert_int_equal(img.pixels[1], 0xff1201fe);
	image_free(&img);

	write_file(p, p15, sizeof(p15) - 1);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xffff7700);
	image_free(&img);

	write_file(p, p5, sizeof(p5) - 1);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xff000000);
	assert_int_equal(img.pixels[1], 0xff808080);
	assert_int_equal(img.pixels[2], 0xffffffff);
	image_free(&img);
}

static void test_ppm_broken(void **state)
{
	static const char cut[] = "P6\n4 4\n255\n\x01\x02\x03\x04";
	static const char cut_header[] = "P6\n4 4\n";
	static const char bad[] = "P6\n4 x4\n255\n";
	static const char maxval[] = "P6\n1 1\n70000\n\x01\x02\x03";
	static const char huge[] = "P6\n40000 40000\n255\n";
	static const char zero[] = "P6\n0 4\n255\n";
	static const char ascii[] = "P3\n1 1\n255\n1 2 3\n";
	struct image img = { 0, 0, NULL };
	const char *p = tmp(state, "bad.ppm");

	write_file(p, cut, sizeof(cut) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated PPM data");
	write_file(p, cut_header, sizeof(cut_header) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated PPM header");
	write_file(p, bad, sizeof(bad) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "bad PPM header");
	write_file(p, maxval, sizeof(maxval) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "bad PPM maxval");
	write_file(p, huge, sizeof(huge) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "image too large (40000x40000; at most 16384 pixels a side "
				       "and 16 megapixels)");
	write_file(p, zero, sizeof(zero) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_true(strlen(err(state)) > 0);
	write_file(p, ascii, sizeof(ascii) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_non_null(strstr(err(state), "P6"));
	assert_null(img.pixels);
}

/* A 1x1 PPM whose header was 127 MiB of spaces, or one comment as long, took 1.5 s of CPU (a
 * getc each, locked with other threads about): a header is read to 4 KiB at most. */
static void test_ppm_long_header(void **state)
{
	const char *p = tmp(state, "long.ppm");
	struct image img = { 0, 0, NULL };
	char *text = malloc(8192 + 32);
	int n;

	assert_non_null(text);
	for (int comment = 0; comment < 2; comment++) {
		n = sprintf(text, "P6\n%s", comment ? "#" : "");
		memset(text + n, ' ', 8192);
		n += 8192;
		n += sprintf(text + n, "\n1 1\n255\n\x01\x02\x03");
		write_file(p, text, (size_t)n);
		assert_int_equal(load(state, p, &img), -EINVAL);
		assert_string_equal(err(state), "PPM header too long (at most 4 KiB)");
		assert_null(img.pixels);
	}
	/* a long comment that fits is still read */
	n = sprintf(text, "P6\n#");
	memset(text + n, ' ', 4000);
	n += 4000;
	n += sprintf(text + n, "\n1 1\n255\n\x01\x02\x03");
	write_file(p, text, (size_t)n);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.pixels[0], 0xff010203);
	image_free(&img);
	free(text);
}

/* ---- bounded work ---- */

/* A progressive JPEG of w x h noise, in memory, with the given scan script (NULL: libjpeg's). */
static unsigned char *progressive_jpeg(int w, int h, const jpeg_scan_info *scans, int nscans,
				       unsigned long *len)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	unsigned char *out = NULL;
	uint8_t *row = malloc((size_t)w * 3);
	unsigned seed = 1;

	assert_non_null(row);
	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &out, len);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_simple_progression(&c);
	if (scans) {
		c.scan_info = scans;
		c.num_scans = nscans;
	}
	jpeg_start_compress(&c, TRUE);
	for (int y = 0; y < h; y++) {
		JSAMPROW r = row;

		for (int i = 0; i < w * 3; i++) {
			seed = seed * 1103515245u + 12345u;
			row[i] = (uint8_t)(i + y + (seed >> 16 & 63));
		}
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	free(row);
	return out;
}

/* Where the last scan (its SOS marker and entropy-coded data) starts and ends. */
static void last_scan(const unsigned char *d, size_t len, size_t *start, size_t *end)
{
	size_t i = 2;

	*start = *end = 0;
	while (i + 4 <= len && d[i] == 0xff && d[i + 1] != 0xd9) {
		size_t seg = 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
		bool sos = d[i + 1] == 0xda;
		size_t at = i;

		i += seg;
		/* the data runs to the next marker that is neither stuffing (FF00) nor a restart */
		while (sos && i + 1 < len && !(d[i] == 0xff && d[i + 1] != 0 &&
					      (d[i + 1] < 0xd0 || d[i + 1] > 0xd7)))
			i++;
		if (sos) {
			*start = at;
			*end = i;
		}
	}
	assert_true(*end > *start);
}

/* The attack from issue 12: the last scan of a small progressive JPEG, sent 1000 times, made the
 * decoder run 1000 passes (13-18 s and 397 MB for a 230 KB file of the largest size). */
static void test_jpeg_repeated_scan(void **state)
{
	unsigned long len;
	unsigned char *jpg = progressive_jpeg(64, 64, NULL, 0, &len);
	size_t start, end, scan, n = 0;
	unsigned char *evil;
	struct image img = { 0, 0, NULL };
	const char *p = tmp(state, "repeated.jpg");

	last_scan(jpg, len, &start, &end);
	scan = end - start;
	evil = malloc(len + 1000 * scan);
	assert_non_null(evil);
	memcpy(evil, jpg, end);
	n = end;
	for (int i = 0; i < 1000; i++, n += scan)
		memcpy(evil + n, jpg + start, scan);
	memcpy(evil + n, jpg + end, len - end);
	n += len - end;

	write_file(p, jpg, len);
	assert_int_equal(load(state, p, &img), 0);
	image_free(&img);
	write_file(p, evil, n);
	assert_int_equal(load(state, p, &img), -EINVAL);
	if (!strstr(err(state), "progression"))
		fail_msg("refused for another reason: %s", err(state));
	assert_null(img.pixels);
	free(evil);
	free(jpg);
}

/* A progression that is valid but long: one scan per AC coefficient and component. */
static int many_scans(jpeg_scan_info *s, int bands)
{
	int n = 0;

	s[n++] = (jpeg_scan_info){ 3, { 0, 1, 2 }, 0, 0, 0, 0 };
	for (int c = 0; c < 3; c++)
		for (int b = 0, k = 1; b < bands; b++) {
			int last = b == bands - 1 ? 63 : k + 63 / bands - 1;

			s[n++] = (jpeg_scan_info){ 1, { c }, k, last, 0, 0 };
			k = last + 1;
		}
	return n;
}

static void test_jpeg_too_many_scans(void **state)
{
	jpeg_scan_info scans[1 + 3 * 63];
	unsigned long len;
	unsigned char *jpg;
	struct image img = { 0, 0, NULL };
	const char *p = tmp(state, "scans.jpg");
	int n;

	n = many_scans(scans, 10);
	assert_int_equal(n, 31);
	jpg = progressive_jpeg(48, 32, scans, n, &len);
	write_file(p, jpg, len);
	free(jpg);
	assert_int_equal(load(state, p, &img), 0);
	assert_int_equal(img.width, 48);
	image_free(&img);

	n = many_scans(scans, 63);
	jpg = progressive_jpeg(48, 32, scans, n, &len);
	write_file(p, jpg, len);
	free(jpg);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "JPEG with more than 32 scans");
	assert_null(img.pixels);
}

/* A JPEG in memory whose coefficients are all 0 (flat grey): written without a DCT, cheap at
 * any size. */
struct jpeg_spec {
	int w, h, comps;		/* 3: YCbCr 4:4:4, 4: CMYK */
	const jpeg_scan_info *scans;	/* NULL: libjpeg's progression, if progressive */
	int nscans;
	bool progressive, arith;
};

static unsigned char *flat_jpeg(const struct jpeg_spec *s, unsigned long *len)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	jvirt_barray_ptr coefs[4];
	unsigned char *out = NULL;

	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &out, len);
	c.image_width = (JDIMENSION)s->w;
	c.image_height = (JDIMENSION)s->h;
	c.input_components = s->comps;
	c.in_color_space = s->comps == 4 ? JCS_CMYK : JCS_RGB;
	jpeg_set_defaults(&c);
	c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = 1;
	c.arith_code = s->arith;
	if (s->progressive)
		jpeg_simple_progression(&c);
	if (s->scans) {
		c.scan_info = s->scans;
		c.num_scans = s->nscans;
	}
	for (int i = 0; i < c.num_components; i++)
		coefs[i] = c.mem->request_virt_barray((j_common_ptr)&c, JPOOL_IMAGE, TRUE,
						      (JDIMENSION)(s->w + 7) / 8,
						      (JDIMENSION)(s->h + 7) / 8, 1);
	jpeg_write_coefficients(&c, coefs);
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return out;
}

static int load_jpeg_spec(void **state, const struct jpeg_spec *s)
{
	const char *p = tmp(state, "spec.jpg");
	struct image img = { 0, 0, NULL };
	unsigned long len;
	unsigned char *jpg = flat_jpeg(s, &len);
	int rc;

	write_file(p, jpg, len);
	free(jpg);
	rc = load(state, p, &img);
	if (rc == 0) {
		assert_int_equal(img.width, s->w);
		assert_int_equal(img.pixels[0] >> 24, 0xff);
	} else {
		assert_null(img.pixels);
	}
	image_free(&img);
	unlink(p);
	return rc;
}

/* Arithmetic coding decoded 12 times slower than Huffman's: a 16-megapixel CMYK picture took
 * 6.8 s of CPU, 8.5 s with successive approximation. */
static void test_jpeg_arithmetic_refused(void **state)
{
	struct jpeg_spec s = { .w = 16, .h = 16, .comps = 3, .arith = true };

	assert_int_equal(load_jpeg_spec(state, &s), -EINVAL);
	assert_string_equal(err(state), "only Huffman-coded JPEG is supported, not arithmetic-coded");
	s.progressive = true;
	assert_int_equal(load_jpeg_spec(state, &s), -EINVAL);
	assert_string_equal(err(state), "only Huffman-coded JPEG is supported, not arithmetic-coded");
	s.arith = false;
	assert_int_equal(load_jpeg_spec(state, &s), 0);
}

/* Scan i of a progression: component c, coefficients ss to se, bits ah to al. */
static jpeg_scan_info scan(int c, int ss, int se, int ah, int al)
{
	return (jpeg_scan_info){ 1, { c }, ss, se, ah, al };
}

/* The DC scan of all three components, then each component's AC coefficients sent at bits
 * al[c] and up, and refined a bit at a time: al[c] + 1 passes over the component. */
static int refined_scans(jpeg_scan_info *s, const int al[3])
{
	int n = 0;

	s[n++] = (jpeg_scan_info){ 3, { 0, 1, 2 }, 0, 0, 0, 0 };
	for (int c = 0; c < 3; c++) {
		s[n++] = scan(c, 1, 63, 0, al[c]);
		for (int a = al[c]; a > 0; a--)
			s[n++] = scan(c, 1, 63, a, a - 1);
	}
	return n;
}

/*
 * Within 32 scans, successive approximation made a 16-megapixel JPEG as many passes over its
 * coefficients: 2.7 s of CPU. What all scans carry is bounded: 12 samples a pixel at 16
 * megapixels, which libjpeg's own progression of a CMYK picture needs.
 */
static void test_jpeg_scans_bounded_by_samples(void **state)
{
	static const int light[3] = { 3, 3, 2 }, heavy[3] = { 4, 3, 3 };
	jpeg_scan_info scans[32];
	struct jpeg_spec s = { .w = 4096, .h = 4096, .comps = 4, .progressive = true };

	/* a minute under valgrind for pictures this size: the other runs check the arithmetic */
	if (getenv("FBRIPPLE_VALGRIND"))
		skip();
	/* libjpeg's 18 scans of CMYK: 11.9 samples a pixel */
	assert_int_equal(load_jpeg_spec(state, &s), 0);

	/* 4:4:4 YCbCr: 11.9 samples a pixel in 13 scans; one more pass over a component is 12.8,
	 * refused at the scan that goes over, before its data is decoded */
	s.comps = 3;
	s.scans = scans;
	s.nscans = refined_scans(scans, light);
	assert_int_equal(load_jpeg_spec(state, &s), 0);
	s.nscans = refined_scans(scans, heavy);
	assert_int_equal(s.nscans, 14);
	assert_int_equal(load_jpeg_spec(state, &s), -EINVAL);
	assert_string_equal(err(state), "image too large (4096x4096 in 14 scans; at most 192 "
				       "megasamples in all its scans)");
	/* the same scans over fewer pixels */
	s.h = 2048;
	assert_int_equal(load_jpeg_spec(state, &s), 0);
}

/* Only the header of a PNG, which is all the limits need. */
static void write_png_header(const char *path, int w, int h, int depth, int type)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(setjmp(png_jmpbuf(png)), 0);
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, type, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	png_destroy_write_struct(&png, &info);
	fclose(f);
}

/* 32 megapixels was allowed (and 256 MB of pixels allocated before the data was read). */
static void test_pixel_limit(void **state)
{
	const char *p = tmp(state, "big.png");
	struct image img = { 0, 0, NULL };

	write_png_header(p, 8192, 4096, 8, PNG_COLOR_TYPE_RGB);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "image too large (8192x4096; at most 16384 pixels a side "
				       "and 16 megapixels)");
	/* 16 megapixels of 16-bit RGBA are 128 MiB to inflate; 8-bit RGBA is allowed (and cut) */
	write_png_header(p, 4096, 4096, 16, PNG_COLOR_TYPE_RGB_ALPHA);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "image too large (4096x4096 at 16 bits a sample; at most "
				       "64 MiB of PNG data)");
	write_png_header(p, 4096, 4096, 8, PNG_COLOR_TYPE_RGB_ALPHA);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated PNG data");

	p = tmp(state, "big.ppm");
	write_file(p, "P6\n4097 4096\n255\n", 17);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_non_null(strstr(err(state), "image too large (4097x4096;"));
	write_file(p, "P6\n4096 4096\n255\n", 17);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "truncated PPM data");	/* allowed, and then cut */

	/* the file: anything past 128 MiB is refused before a byte is decoded (sparse here) */
	p = tmp(state, "huge.ppm");
	write_file(p, "P6\n1 1\n255\n", 11);
	assert_int_equal(truncate(p, 129L << 20), 0);
	assert_int_equal(load(state, p, &img), -EFBIG);
	assert_string_equal(err(state), "file too large (129 MiB; at most 128 MiB)");
	unlink(p);
	assert_null(img.pixels);
}

static int call_load(void *ctx, char *out, size_t outlen)
{
	struct image img;
	int rc = image_load(&img, ctx, out, outlen);

	if (rc == 0)
		image_free(&img);
	return rc;
}

/* A FIFO as the splash (at start, on SIGHUP or reload) is refused at once: open(2) on it would
 * wait for a writer forever. */
static void test_load_fifo_refused(void **state)
{
	const char *p = tmp(state, "fifo.png");
	char msg[256] = "";
	struct image img = { 0, 0, NULL };

	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(tu_call_bounded(call_load, (void *)p, msg, sizeof(msg), 5000), -EINVAL);
	assert_string_equal(msg, "not a regular file");
	unlink(p);
	assert_int_equal(load(state, "/dev/zero", &img), -EINVAL);
	assert_string_equal(err(state), "not a regular file");
	assert_null(img.pixels);
}

/* ---- the file itself ---- */

static void test_load_errors(void **state)
{
	static const char garbage[] = "GIF89a this is not something we read";
	struct image img = { 3, 4, NULL };
	const char *p = tmp(state, "garbage.png");	/* the extension does not matter */

	write_file(p, garbage, sizeof(garbage) - 1);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_string_equal(err(state), "not a PNG, JPEG or PPM file");

	write_file(p, "", 0);
	assert_int_equal(load(state, p, &img), -EINVAL);
	assert_true(strlen(err(state)) > 0);

	assert_int_equal(load(state, tmp(state, "missing.png"), &img), -ENOENT);
	assert_string_equal(err(state), strerror(ENOENT));
	assert_null(strstr(err(state), "missing"));	/* no path in the reason */

	assert_int_equal(load(state, ((struct fixture *)*state)->dir, &img), -EISDIR);
	assert_int_equal(img.width, 3);
	assert_int_equal(img.height, 4);
	assert_null(img.pixels);

	if (geteuid() != 0) {
		p = tmp(state, "secret.ppm");
		write_file(p, "P6 1 1 255\n\1\2\3", 14);
		assert_int_equal(chmod(p, 0), 0);
		assert_int_equal(load(state, p, &img), -EACCES);
		assert_string_equal(err(state), strerror(EACCES));
	}
}

static void test_write_png(void **state)
{
	static const uint32_t px[] = { 0xff102030, 0x80405060, 0x00708090,
				       0xffffffff, 0xff000000, 0x12abcdef };
	struct image src = make(3, 2, px), back;
	const char *p = tmp(state, "out.png");
	int i;

	assert_int_equal(image_write_png(&src, p), 0);
	assert_int_equal(load(state, p, &back), 0);
	assert_int_equal(back.width, 3);
	assert_int_equal(back.height, 2);
	for (i = 0; i < 6; i++)
		assert_int_equal(back.pixels[i], px[i] | 0xff000000u);
	image_free(&back);

	p = tmp(state, "no-such-dir/out.png");
	assert_int_equal(image_write_png(&src, p), -ENOENT);
	assert_int_equal(access(p, F_OK), -1);
	image_free(&src);
}

/* A write that fails half-way (here: past a file size limit) leaves no partial file. */
static void test_write_png_fails(void **state)
{
	const char *p = tmp(state, "partial.png");
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = { 200, 200 };
		struct image img;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) < 0 || image_builtin(&img, 64, 64) < 0)
			_exit(2);
		_exit(image_write_png(&img, p) == -EFBIG ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(p, F_OK), -1);
}

/* A screenshot path chosen over the control socket: a FIFO is refused at once instead of
 * blocking the daemon, a symlink is not followed, and the file it points to is untouched. */
static void test_write_png_only_regular(void **state)
{
	char fifo[512], link[512], target[512];
	struct image img;
	struct stat st;

	assert_int_equal(image_builtin(&img, 8, 8), 0);
	snprintf(fifo, sizeof(fifo), "%s", tmp(state, "fifo"));
	snprintf(link, sizeof(link), "%s", tmp(state, "link.png"));
	snprintf(target, sizeof(target), "%s", tmp(state, "target"));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(image_write_png(&img, fifo), -EINVAL);
	write_file(target, "keep", 4);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(image_write_png(&img, link), -ELOOP);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(image_write_png(&img, "/dev/null"), -EINVAL);
	image_free(&img);
}

/* ---- scaling ---- */

#define BG	0x203040u
#define TL	0xffff0000u
#define TR	0xff00ff00u
#define BL	0xff0000ffu
#define BR	0xffffff00u

static const uint32_t quad[] = { TL, TL, TR, TR, BL, BL, BR, BR };

static uint32_t at(const struct image *img, int x, int y)
{
	return img->pixels[y * img->width + x];
}

static void test_scale_fit(void **state)
{
	struct image src = make(4, 2, quad), out;
	int x, y;

	(void)state;
	assert_int_equal(image_scale(&out, &src, 8, 8, SCALE_FIT, BG), 0);
	assert_int_equal(out.width, 8);
	assert_int_equal(out.height, 8);
	for (x = 0; x < 8; x++) {
		assert_int_equal(at(&out, x, 0), 0xff000000u | BG);
		assert_int_equal(at(&out, x, 1), 0xff000000u | BG);
		assert_int_equal(at(&out, x, 6), 0xff000000u | BG);
		assert_int_equal(at(&out, x, 7), 0xff000000u | BG);
	}
	for (y = 2; y < 6; y++)
		for (x = 0; x < 8; x++)
			assert_int_not_equal(at(&out, x, y), 0xff000000u | BG);
	assert_int_equal(at(&out, 0, 2), TL);
	assert_int_equal(at(&out, 7, 2), TR);
	assert_int_equal(at(&out, 0, 5), BL);
	assert_int_equal(at(&out, 7, 5), BR);
	image_free(&out);

	/* Bars at the sides, and the picture at its own size is copied exactly. */
	assert_int_equal(image_scale(&out, &src, 6, 2, SCALE_FIT, BG), 0);
	for (y = 0; y < 2; y++) {
		assert_int_equal(at(&out, 0, y), 0xff000000u | BG);
		assert_int_equal(at(&out, 5, y), 0xff000000u | BG);
		for (x = 1; x < 5; x++)
			assert_int_equal(at(&out, x, y), quad[y * 4 + x - 1]);
	}
	image_free(&out);
	image_free(&src);
}

static void test_scale_fill(void **state)
{
	static const uint32_t cols[] = { 0xffff0000, 0xff00ff00, 0xff0000ff, 0xffff0000 };
	uint32_t bands[16 * 4];
	struct image src, out;
	int x, y;

	(void)state;
	/* 16x4 in four bands of 4 columns, into 8x8: only the middle 4 columns (6..9) show,
	 * so the red outer bands must leave no trace, not even by bilinear bleeding. */
	for (y = 0; y < 4; y++)
		for (x = 0; x < 16; x++)
			bands[y * 16 + x] = cols[x / 4];
	src = make(16, 4, bands);
	assert_int_equal(image_scale(&out, &src, 8, 8, SCALE_FILL, BG), 0);
	for (y = 0; y < 8; y++) {
		for (x = 0; x < 3; x++) {
			assert_int_equal(at(&out, x, y), cols[1]);
			assert_int_equal(at(&out, 7 - x, y), cols[2]);
		}
		for (x = 0; x < 8; x++)
			assert_int_equal(ch(at(&out, x, y), 16), 0);
	}
	image_free(&out);

	/* The same picture shrunk to 2x2: cropped to the middle, box-averaged exactly. */
	for (y = 0; y < 4; y++)
		for (x = 0; x < 8; x++)
			bands[y * 8 + x] = cols[x / 2];
	image_free(&src);
	src = make(8, 4, bands);
	assert_int_equal(image_scale(&out, &src, 2, 2, SCALE_FILL, BG), 0);
	for (y = 0; y < 2; y++) {
		assert_int_equal(at(&out, 0, y), cols[1]);
		assert_int_equal(at(&out, 1, y), cols[2]);
	}
	image_free(&out);

	/* One column wide: the middle source column's footprint, half green and half blue. */
	assert_int_equal(image_scale(&out, &src, 1, 4, SCALE_FILL, BG), 0);
	for (y = 0; y < 4; y++)
		assert_near(at(&out, 0, y), 0xff008080, 1);
	image_free(&out);
	image_free(&src);

	/* A tall picture on a square screen loses its top and bottom instead. */
	for (y = 0; y < 8; y++)
		for (x = 0; x < 4; x++)
			bands[y * 4 + x] = cols[y / 2];
	src = make(4, 8, bands);
	assert_int_equal(image_scale(&out, &src, 2, 2, SCALE_FILL, BG), 0);
	for (x = 0; x < 2; x++) {
		assert_int_equal(at(&out, x, 0), cols[1]);
		assert_int_equal(at(&out, x, 1), cols[2]);
	}
	image_free(&out);
	image_free(&src);
}

static void test_scale_stretch(void **state)
{
	struct image src = make(4, 2, quad), out;

	(void)state;
	assert_int_equal(image_scale(&out, &src, 8, 8, SCALE_STRETCH, BG), 0);
	assert_int_equal(at(&out, 0, 0), TL);
	assert_int_equal(at(&out, 7, 0), TR);
	assert_int_equal(at(&out, 0, 7), BL);
	assert_int_equal(at(&out, 7, 7), BR);
	image_free(&out);

	assert_int_equal(image_scale(&out, &src, 2, 2, SCALE_STRETCH, BG), 0);
	assert_int_equal(at(&out, 0, 0), TL);
	assert_int_equal(at(&out, 1, 0), TR);
	assert_int_equal(at(&out, 0, 1), BL);
	assert_int_equal(at(&out, 1, 1), BR);
	image_free(&out);
	image_free(&src);
}

static void test_scale_center(void **state)
{
	static const uint32_t px[] = { 0xff000001, 0xff000002, 0xff000003, 0xff000004,
				       0xff000005, 0xff000006, 0xff000007, 0xff000008 };
	struct image src = make(4, 2, px), out;
	int x, y;

	(void)state;
	assert_int_equal(image_scale(&out, &src, 8, 8, SCALE_CENTER, BG), 0);
	for (y = 0; y < 8; y++)
		for (x = 0; x < 8; x++) {
			int in = x >= 2 && x < 6 && y >= 3 && y < 5;

			assert_int_equal(at(&out, x, y),
					 in ? px[(y - 3) * 4 + x - 2] : 0xff000000u | BG);
		}
	image_free(&out);

	/* Larger than the screen: the middle is shown. */
	assert_int_equal(image_scale(&out, &src, 2, 2, SCALE_CENTER, BG), 0);
	assert_int_equal(at(&out, 0, 0), px[1]);
	assert_int_equal(at(&out, 1, 0), px[2]);
	assert_int_equal(at(&out, 0, 1), px[5]);
	assert_int_equal(at(&out, 1, 1), px[6]);
	image_free(&out);
	image_free(&src);
}

static void test_scale_tile(void **state)
{
	static const uint32_t px[] = { 0xff000001, 0xff000002, 0xff000003,
				       0xff000004, 0xff000005, 0xff000006 };
	struct image src = make(3, 2, px), out;
	int x, y;

	(void)state;
	assert_int_equal(image_scale(&out, &src, 7, 5, SCALE_TILE, BG), 0);
	for (y = 0; y < 5; y++)
		for (x = 0; x < 7; x++)
			assert_int_equal(at(&out, x, y), px[(y % 2) * 3 + x % 3]);
	image_free(&out);
	image_free(&src);
}

static void test_scale_area_average(void **state)
{
	static const uint32_t checker[] = { 0xff000000, 0xffffffff, 0xffffffff, 0xff000000 };
	static const uint32_t line[] = { 0xff000000, 0xffffffff, 0xff000000 };
	static const enum scale_mode modes[] = { SCALE_FILL, SCALE_FIT, SCALE_STRETCH };
	struct image src = make(2, 2, checker), out;
	uint32_t *big;
	int i, x, y;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(image_scale(&out, &src, 1, 1, modes[i], BG), 0);
		assert_near(out.pixels[0], 0xff808080, 1);
		assert_true(ch(out.pixels[0], 16) == 127 || ch(out.pixels[0], 16) == 128);
		image_free(&out);
	}
	image_free(&src);

	/* 3 -> 2: each output pixel is 1.5 inputs wide, so it sees half of the white one. */
	src = make(3, 1, line);
	assert_int_equal(image_scale(&out, &src, 2, 1, SCALE_STRETCH, BG), 0);
	assert_near(out.pixels[0], 0xff555555, 1);
	assert_near(out.pixels[1], 0xff555555, 1);
	image_free(&out);
	image_free(&src);

	/* A fine checkerboard shrunk by an odd factor stays grey everywhere (no aliasing). */
	big = malloc(101 * 99 * sizeof(uint32_t));
	assert_non_null(big);
	for (y = 0; y < 99; y++)
		for (x = 0; x < 101; x++)
			big[y * 101 + x] = (x + y) & 1 ? 0xffffffff : 0xff000000;
	src = make(101, 99, big);
	assert_int_equal(image_scale(&out, &src, 7, 6, SCALE_STRETCH, BG), 0);
	for (i = 0; i < 7 * 6; i++)
		assert_near(out.pixels[i], 0xff808080, 6);
	image_free(&out);
	image_free(&src);
	free(big);
}

static double overlap(double a0, double a1, int j)
{
	double lo = a0 > j ? a0 : j, hi = a1 < j + 1 ? a1 : j + 1;

	return hi > lo ? hi - lo : 0.0;
}

/* Shrinking by fractional factors in both axes matches a direct box-filter reference. */
static void test_scale_box_reference(void **state)
{
	enum { SW = 97, SH = 61, DW = 13, DH = 7 };
	uint32_t *px = malloc(SW * SH * sizeof(uint32_t));
	struct image src, out;
	double fx = (double)SW / DW, fy = (double)SH / DH;
	int x, y, i, j, c;

	(void)state;
	assert_non_null(px);
	for (i = 0; i < SW * SH; i++)
		px[i] = 0xff000000u | ((uint32_t)i * 2654435761u >> 8);
	src = make(SW, SH, px);
	assert_int_equal(image_scale(&out, &src, DW, DH, SCALE_STRETCH, BG), 0);
	for (y = 0; y < DH; y++) {
		for (x = 0; x < DW; x++) {
			uint32_t want = 0xff000000u;

			for (c = 0; c < 24; c += 8) {
				double sum = 0;

				for (j = 0; j < SH; j++)
					for (i = 0; i < SW; i++)
						sum += overlap(x * fx, (x + 1) * fx, i) *
						       overlap(y * fy, (y + 1) * fy, j) *
						       ch(px[j * SW + i], c);
				want |= (uint32_t)(sum / (fx * fy) + 0.5) << c;
			}
			assert_near(at(&out, x, y), want, 1);
		}
	}
	image_free(&out);
	image_free(&src);
	free(px);
}

static void test_scale_alpha(void **state)
{
	static const uint32_t half_red[] = { 0x80ff0000 };
	static const uint32_t clear_green_red[] = { 0x0000ff00, 0xffff0000 };
	static const enum scale_mode modes[] = { SCALE_FILL, SCALE_FIT, SCALE_STRETCH,
						 SCALE_CENTER, SCALE_TILE };
	struct image src = make(1, 1, half_red), out;
	int i, j;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(image_scale(&out, &src, 2, 2, modes[i], 0x0000ff), 0);
		for (j = 0; j < 4; j++) {
			if (modes[i] == SCALE_CENTER && j != 0)
				assert_int_equal(out.pixels[j], 0xff0000ff);
			else
				assert_near(out.pixels[j], 0xff80007f, 1);
		}
		image_free(&out);
	}
	image_free(&src);

	/* Averaged premultiplied: the invisible green must not tint the result. */
	src = make(2, 1, clear_green_red);
	assert_int_equal(image_scale(&out, &src, 1, 1, SCALE_STRETCH, 0x000000), 0);
	assert_near(out.pixels[0], 0xff800000, 1);
	image_free(&out);
	image_free(&src);
}

/* Growing is bilinear between pixel centres: a two-colour edge 4x wider ramps through the
 * four pixels whose centres lie between the two source centres, along either axis. */
static void test_scale_magnify_edge(void **state)
{
	static const uint32_t edge[] = { 0xff000000, 0xff000000, 0xffffffff, 0xffffffff };
	static const unsigned want[16] = { 0, 0, 0, 0, 0, 0, 32, 96, 159, 223,
					   255, 255, 255, 255, 255, 255 };
	struct image across = make(4, 1, edge), down = make(1, 4, edge), out;
	int i;

	(void)state;
	assert_int_equal(image_scale(&out, &across, 16, 1, SCALE_STRETCH, BG), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(out.pixels[i], 0xff000000u | want[i] * 0x010101u);
	image_free(&out);
	assert_int_equal(image_scale(&out, &down, 1, 16, SCALE_STRETCH, BG), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(out.pixels[i], 0xff000000u | want[i] * 0x010101u);
	image_free(&out);
	image_free(&across);
	image_free(&down);
}

/* Stretch may shrink one axis and grow the other: columns are box-averaged (black and blue
 * to half blue), rows ramp bilinearly to the white below. */
static void test_scale_shrink_across_grow_down(void **state)
{
	static const unsigned red[16] = { 0, 0, 0, 0, 0, 0, 32, 96, 159, 223,
					  255, 255, 255, 255, 255, 255 };
	static const unsigned blue[16] = { 128, 128, 128, 128, 128, 128, 143, 175, 207, 239,
					   255, 255, 255, 255, 255, 255 };
	uint32_t px[8 * 4];
	struct image src, out;
	int x, y;

	(void)state;
	for (y = 0; y < 4; y++)
		for (x = 0; x < 8; x++)
			px[y * 8 + x] = y >= 2 ? 0xffffffff : x & 1 ? 0xff0000ff : 0xff000000;
	src = make(8, 4, px);
	assert_int_equal(image_scale(&out, &src, 2, 16, SCALE_STRETCH, BG), 0);
	for (y = 0; y < 16; y++)
		for (x = 0; x < 2; x++)
			assert_near(at(&out, x, y), image_argb(red[y], red[y], blue[y], 255), 1);
	image_free(&out);
	image_free(&src);
}

/* A flat picture grown by any factor, in any mode, is exactly flat: no seams at the edges,
 * where the taps are clamped, nor between source pixels. */
static void test_scale_magnify_flat(void **state)
{
	static const struct { int w, h; enum scale_mode mode; } to[] = {
		{ 641, 479, SCALE_STRETCH }, { 500, 101, SCALE_FILL }, { 300, 300, SCALE_FIT },
		{ 8, 900, SCALE_STRETCH },
	};
	static const uint32_t colours[] = { 0xff123456, 0x80123456 };
	uint32_t px[7 * 5];
	struct image src, out;
	size_t i, c, n;

	(void)state;
	for (c = 0; c < 2; c++) {
		for (i = 0; i < 7 * 5; i++)
			px[i] = colours[c];
		src = make(7, 5, px);
		for (i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
			uint32_t want, bg = 0xff000000u | BG;

			assert_int_equal(image_scale(&out, &src, to[i].w, to[i].h, to[i].mode, BG), 0);
			want = out.pixels[(size_t)to[i].h / 2 * to[i].w + to[i].w / 2];
			if (c == 0)
				assert_int_equal(want, 0xff123456);
			for (n = 0; n < (size_t)to[i].w * to[i].h; n++)
				if (out.pixels[n] != want && !(to[i].mode == SCALE_FIT &&
							       out.pixels[n] == bg))
					fail_msg("%dx%d %s: pixel %zu is %08x, not %08x", to[i].w,
						 to[i].h, scale_mode_name(to[i].mode), n,
						 out.pixels[n], want);
			image_free(&out);
		}
		image_free(&src);
	}
}

/* Growing an edge from transparent green to opaque red over blue interpolates premultiplied:
 * red comes in as blue goes out, and the invisible green shows nowhere. */
static void test_scale_magnify_alpha_edge(void **state)
{
	static const uint32_t edge[] = { 0x0000ff00, 0x0000ff00, 0xffff0000, 0xffff0000 };
	static const unsigned red[16] = { 0, 0, 0, 0, 0, 0, 32, 96, 159, 223,
					  255, 255, 255, 255, 255, 255 };
	struct image src = make(4, 1, edge), out;
	int i;

	(void)state;
	assert_int_equal(image_scale(&out, &src, 16, 1, SCALE_STRETCH, 0x0000ff), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(out.pixels[i], image_argb(red[i], 0, 255 - red[i], 255));
	image_free(&out);
	image_free(&src);
}

static uint64_t fnv1a(const uint32_t *px, size_t n)
{
	uint64_t h = 14695981039346656037u;

	for (size_t i = 0; i < n; i++) {
		for (int b = 0; b < 32; b += 8) {
			h ^= px[i] >> b & 0xff;
			h *= 1099511628211u;
		}
	}
	return h;
}

/* Shrinking, and a picture of the screen's own size, give the very bytes they gave before
 * growing was looked at again: checksums recorded from that code (b1ed6fd). */
static void test_scale_shrink_unchanged(void **state)
{
	static const struct { int w, h; enum scale_mode mode; uint64_t fnv; } to[] = {
		{ 61, 47, SCALE_FILL, 0x34bc1bba033ebf55u },
		{ 61, 47, SCALE_FIT, 0x34bc1bba033ebf55u },
		{ 61, 47, SCALE_STRETCH, 0x34bc1bba033ebf55u },
		{ 61, 47, SCALE_CENTER, 0x34bc1bba033ebf55u },
		{ 61, 47, SCALE_TILE, 0x34bc1bba033ebf55u },
		{ 40, 30, SCALE_FILL, 0x93ffda174ea5373du },
		{ 40, 30, SCALE_FIT, 0x83d5a23caea8e377u },
		{ 40, 30, SCALE_STRETCH, 0xc8df12bf82b4248bu },
		{ 17, 47, SCALE_STRETCH, 0x257ab8654e5625bcu },
		{ 61, 20, SCALE_STRETCH, 0x3c3287c2a4c1cdaeu },
		{ 33, 29, SCALE_FILL, 0xed84cff430d9e83eu },
		{ 20, 47, SCALE_FILL, 0x4c1e61b78794cfefu },
		{ 60, 1, SCALE_FILL, 0xdbe1f65ebf669d56u },
		{ 1, 1, SCALE_FIT, 0x71669471f5ed65deu },
		{ 7, 5, SCALE_STRETCH, 0x7a8fe52962ae6e8fu },
	};
	uint32_t px[61 * 47];
	struct image src, out;
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < 61 * 47; i++) {
		uint32_t p = (uint32_t)i * 2654435761u;

		px[i] = i % 3 == 0 ? p | 0xff000000u : i % 7 == 0 ? p & 0xffffff : p;
	}
	src = make(61, 47, px);
	for (i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
		uint64_t got;

		assert_int_equal(image_scale(&out, &src, to[i].w, to[i].h, to[i].mode, BG), 0);
		got = fnv1a(out.pixels, (size_t)to[i].w * to[i].h);
		if (got != to[i].fnv) {
			print_message("%dx%d %s: fnv 0x%016llxu\n", to[i].w, to[i].h,
				      scale_mode_name(to[i].mode), (unsigned long long)got);
			bad++;
		}
		image_free(&out);
	}
	image_free(&src);
	assert_int_equal(bad, 0);
}

/* A picture the screen's size is composited in place to exactly what scaling it would give. */
static void test_flatten_is_same_size_scale(void **state)
{
	struct image img = { 7, 5, malloc(7 * 5 * sizeof(uint32_t)) }, scaled;

	(void)state;
	for (int i = 0; i < 35; i++)
		img.pixels[i] = image_argb(i * 7 & 255, i * 13 & 255, i * 29 & 255, i * 37 & 255);
	assert_int_equal(image_scale(&scaled, &img, 7, 5, SCALE_FILL, 0x336699), 0);
	image_flatten(&img, 0x336699);
	assert_memory_equal(img.pixels, scaled.pixels, 35 * sizeof(uint32_t));
	image_free(&scaled);
	image_free(&img);
}

static void test_scale_opaque_and_sizes(void **state)
{
	struct image src, out;
	int i, m;

	(void)state;
	assert_int_equal(image_builtin(&src, 37, 23), 0);
	for (i = 0; i < 37 * 23; i++)
		src.pixels[i] &= 0x7fffffff;	/* half transparent everywhere */
	for (m = SCALE_FILL; m <= SCALE_TILE; m++) {
		assert_int_equal(image_scale(&out, &src, 100, 7, (enum scale_mode)m, BG), 0);
		assert_int_equal(out.width, 100);
		assert_int_equal(out.height, 7);
		for (i = 0; i < 100 * 7; i++)
			assert_int_equal(out.pixels[i] >> 24, 0xff);
		image_free(&out);
		assert_int_equal(image_scale(&out, &src, 1, 1, (enum scale_mode)m, BG), 0);
		image_free(&out);
	}
	assert_int_equal(image_scale(&out, &src, 0, 5, SCALE_FILL, BG), -EINVAL);
	image_free(&src);
}

static void test_scale_mode_names(void **state)
{
	static const char *const names[] = { "fill", "fit", "stretch", "center", "tile" };
	enum scale_mode m;
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(scale_mode_parse(names[i], &m), 0);
		assert_int_equal(m, i);
		assert_string_equal(scale_mode_name(m), names[i]);
	}
	assert_int_equal(scale_mode_parse("zoom", &m), -EINVAL);
	assert_int_equal(scale_mode_parse("", &m), -EINVAL);
	assert_int_equal(scale_mode_parse("FILL", &m), -EINVAL);
}

/* ---- the built-in splash ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void test_builtin(void **state)
{
	struct image a, b;
	uint32_t *sorted;
	size_t n = 320 * 240, i, distinct = 1;

	(void)state;
	assert_int_equal(image_builtin(&a, 320, 240), 0);
	assert_int_equal(image_builtin(&b, 320, 240), 0);
	assert_int_equal(a.width, 320);
	assert_int_equal(a.height, 240);
	assert_memory_equal(a.pixels, b.pixels, n * sizeof(uint32_t));
	sorted = malloc(n * sizeof(uint32_t));
	assert_non_null(sorted);
	memcpy(sorted, a.pixels, n * sizeof(uint32_t));
	qsort(sorted, n, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < n; i++)
		assert_int_equal(sorted[i] >> 24, 0xff);
	for (i = 1; i < n; i++)
		distinct += sorted[i] != sorted[i - 1];
	assert_true(distinct > 2000);
	/* Detail everywhere, not only a smooth gradient: neighbours differ often. */
	for (i = 1, distinct = 0; i < n; i++)
		distinct += abs(ch(a.pixels[i], 8) - ch(a.pixels[i - 1], 8)) > 8;
	assert_true(distinct > n / 50);
	free(sorted);
	image_free(&a);
	image_free(&b);
}

static void test_builtin_odd_sizes(void **state)
{
	static const int sizes[][2] = { { 1, 1 }, { 333, 77 }, { 2, 500 }, { 17, 1 } };
	struct image img;
	size_t i;
	int j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(image_builtin(&img, sizes[i][0], sizes[i][1]), 0);
		assert_int_equal(img.width, sizes[i][0]);
		assert_int_equal(img.height, sizes[i][1]);
		for (j = 0; j < sizes[i][0] * sizes[i][1]; j++)
			assert_int_equal(img.pixels[j] >> 24, 0xff);
		image_free(&img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_png_rgba),
		cmocka_unit_test(test_png_grey),
		cmocka_unit_test(test_png_palette_trns),
		cmocka_unit_test(test_png_rgb_colour_key),
		cmocka_unit_test(test_png_16bit),
		cmocka_unit_test(test_png_interlaced),
		cmocka_unit_test(test_png_broken),
		cmocka_unit_test(test_png_too_large),
		cmocka_unit_test(test_jpeg_flat),
		cmocka_unit_test(test_jpeg_exif_orientation),
		cmocka_unit_test(test_jpeg_cmyk),
		cmocka_unit_test(test_jpeg_broken),
		cmocka_unit_test(test_ppm),
		cmocka_unit_test(test_ppm_broken),
		cmocka_unit_test(test_ppm_long_header),
		cmocka_unit_test(test_jpeg_repeated_scan),
		cmocka_unit_test(test_jpeg_too_many_scans),
		cmocka_unit_test(test_jpeg_arithmetic_refused),
		cmocka_unit_test(test_jpeg_scans_bounded_by_samples),
		cmocka_unit_test(test_pixel_limit),
		cmocka_unit_test(test_load_fifo_refused),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_write_png),
		cmocka_unit_test(test_write_png_fails),
		cmocka_unit_test(test_write_png_only_regular),
		cmocka_unit_test(test_scale_fit),
		cmocka_unit_test(test_scale_fill),
		cmocka_unit_test(test_scale_stretch),
		cmocka_unit_test(test_scale_center),
		cmocka_unit_test(test_scale_tile),
		cmocka_unit_test(test_scale_area_average),
		cmocka_unit_test(test_scale_box_reference),
		cmocka_unit_test(test_scale_alpha),
		cmocka_unit_test(test_scale_magnify_edge),
		cmocka_unit_test(test_scale_shrink_across_grow_down),
		cmocka_unit_test(test_scale_magnify_flat),
		cmocka_unit_test(test_scale_magnify_alpha_edge),
		cmocka_unit_test(test_scale_shrink_unchanged),
		cmocka_unit_test(test_scale_opaque_and_sizes),
		cmocka_unit_test(test_flatten_is_same_size_scale),
		cmocka_unit_test(test_scale_mode_names),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_builtin_odd_sizes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
