/* image.c - pictures in memory: load PNG/JPEG/PPM, scale to a screen, the built-in splash, PNG out. */
#include "image.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#define MAX_SIDE	16384UL
#define MAX_PIXELS	(64UL * 1024 * 1024)

static const char *const mode_names[] = { "fill", "fit", "stretch", "center", "tile" };

int scale_mode_parse(const char *name, enum scale_mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (name && strcmp(name, mode_names[i]) == 0) {
			*mode = (enum scale_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *scale_mode_name(enum scale_mode mode)
{
	if ((unsigned)mode >= sizeof(mode_names) / sizeof(mode_names[0]))
		return "unknown";
	return mode_names[mode];
}

void image_free(struct image *img)
{
	if (!img)
		return;
	free(img->pixels);
	img->pixels = NULL;
	img->width = img->height = 0;
}

static uint32_t argb(unsigned r, unsigned g, unsigned b, unsigned a)
{
	return (uint32_t)a << 24 | (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* ---- loading ----------------------------------------------------------------------------- */

/* Decoder state lives here, outside the functions that call setjmp, so it survives a longjmp. */
struct load {
	FILE *f;
	char *err;
	size_t errlen;
	int rc;			/* what a decoder returns after a longjmp */
	int width, height;
	uint32_t *pixels;
	void *rows;
	jmp_buf jb;
};

static int load_fail(struct load *ld, int rc, const char *msg)
{
	if (ld->errlen)
		snprintf(ld->err, ld->errlen, "%s", msg);
	return rc;
}

static int load_check_size(struct load *ld, unsigned long w, unsigned long h)
{
	if (w == 0 || h == 0)
		return load_fail(ld, -EINVAL, "image has no pixels");
	if (w > MAX_SIDE || h > MAX_SIDE || w * h > MAX_PIXELS) {
		if (ld->errlen)
			snprintf(ld->err, ld->errlen, "image too large (%lux%lu)", w, h);
		return -EINVAL;
	}
	return 0;
}

/* Refuses absurd sizes before allocating anything that big. */
static int load_alloc(struct load *ld, unsigned long w, unsigned long h)
{
	int rc = load_check_size(ld, w, h);

	if (rc < 0)
		return rc;
	ld->pixels = malloc(w * h * sizeof(uint32_t));
	if (!ld->pixels)
		return load_fail(ld, -ENOMEM, "out of memory");
	ld->width = (int)w;
	ld->height = (int)h;
	return 0;
}

static void png_on_error(png_structp png, png_const_charp msg)
{
	struct load *ld = png_get_error_ptr(png);

	load_fail(ld, ld->rc, msg);
	png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static void png_on_read(png_structp png, png_bytep data, size_t len)
{
	struct load *ld = png_get_io_ptr(png);

	if (fread(data, 1, len, ld->f) == len)
		return;
	if (ferror(ld->f)) {
		ld->rc = -EIO;
		png_error(png, "read error");
	}
	png_error(png, "truncated PNG data");
}

static int png_decode(struct load *ld, png_structp png, png_infop info)
{
	png_uint_32 w, h, y, x;
	png_bytep *rows;
	int depth, type, rc;

	if (setjmp(png_jmpbuf(png)))
		return ld->rc;

	png_set_read_fn(png, ld, png_on_read);
	png_read_info(png, info);
	png_get_IHDR(png, info, &w, &h, &depth, &type, NULL, NULL, NULL);
	rc = load_alloc(ld, w, h);
	if (rc < 0)
		return rc;

	png_set_expand(png);
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
	png_set_scale_16(png);
#else
	png_set_strip_16(png);
#endif
	if (!(type & PNG_COLOR_MASK_COLOR))
		png_set_gray_to_rgb(png);
	if (!(type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_filler(png, 0xff, PNG_FILLER_AFTER);
	png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 4)
		png_error(png, "unsupported PNG layout");

	/* RGBA bytes go straight into the pixel rows and are then turned into words in place. */
	rows = ld->rows = malloc(h * sizeof(*rows));
	if (!rows) {
		ld->rc = -ENOMEM;
		png_error(png, "out of memory");
	}
	for (y = 0; y < h; y++)
		rows[y] = (png_bytep)(ld->pixels + (size_t)y * w);
	png_read_image(png, rows);
	for (y = 0; y < h; y++) {
		uint32_t *row = ld->pixels + (size_t)y * w;

		for (x = 0; x < w; x++) {
			const uint8_t *p = (const uint8_t *)(row + x);

			row[x] = argb(p[0], p[1], p[2], p[3]);
		}
	}
	return 0;
}

static int load_png(struct load *ld)
{
	png_structp png;
	png_infop info;
	int rc;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ld, png_on_error, png_on_warning);
	info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_read_struct(&png, NULL, NULL);
		return load_fail(ld, -ENOMEM, "out of memory");
	}
	rc = png_decode(ld, png, info);
	png_destroy_read_struct(&png, &info, NULL);
	return rc;
}

static void jpeg_on_error(j_common_ptr cinfo)
{
	struct load *ld = cinfo->client_data;
	char msg[JMSG_LENGTH_MAX];

	cinfo->err->format_message(cinfo, msg);
	load_fail(ld, ld->rc, msg);
	longjmp(ld->jb, 1);
}

/* Warnings are dropped, except running out of data: libjpeg would pad with grey and carry on. */
static void jpeg_on_message(j_common_ptr cinfo, int level)
{
	struct load *ld = cinfo->client_data;

	if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
		load_fail(ld, ld->rc, "truncated JPEG data");
		longjmp(ld->jb, 1);
	}
}

static void jpeg_cmyk_row(uint32_t *out, const JSAMPLE *in, int w, int inverted)
{
	int x;

	for (x = 0; x < w; x++, in += 4) {
		unsigned c = in[0], m = in[1], y = in[2], k = in[3];

		/* Adobe writes CMYK inverted (0 = full ink); normalise to that form. */
		if (!inverted) {
			c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
		}
		out[x] = argb((c * k + 127) / 255, (m * k + 127) / 255, (y * k + 127) / 255, 255);
	}
}

static int jpeg_decode(struct load *ld, struct jpeg_decompress_struct *cinfo)
{
	JSAMPARRAY buf;
	int rc, x, want;

	if (setjmp(ld->jb))
		return ld->rc;

	jpeg_create_decompress(cinfo);
	jpeg_stdio_src(cinfo, ld->f);
	jpeg_read_header(cinfo, TRUE);
	rc = load_alloc(ld, cinfo->image_width, cinfo->image_height);
	if (rc < 0)
		return rc;
	switch (cinfo->jpeg_color_space) {
	case JCS_GRAYSCALE:
		cinfo->out_color_space = JCS_GRAYSCALE;
		want = 1;
		break;
	case JCS_CMYK:
	case JCS_YCCK:
		cinfo->out_color_space = JCS_CMYK;
		want = 4;
		break;
	default:
		cinfo->out_color_space = JCS_RGB;
		want = 3;
		break;
	}
	jpeg_start_decompress(cinfo);
	if (cinfo->output_components != want || (int)cinfo->output_width != ld->width ||
	    (int)cinfo->output_height != ld->height)
		return load_fail(ld, -EINVAL, "unsupported JPEG colour space");
	buf = cinfo->mem->alloc_sarray((j_common_ptr)cinfo, JPOOL_IMAGE,
				       cinfo->output_width * (JDIMENSION)want, 1);
	while (cinfo->output_scanline < cinfo->output_height) {
		uint32_t *out = ld->pixels + (size_t)cinfo->output_scanline * ld->width;
		const JSAMPLE *in = buf[0];

		jpeg_read_scanlines(cinfo, buf, 1);
		if (want == 1) {
			for (x = 0; x < ld->width; x++)
				out[x] = argb(in[x], in[x], in[x], 255);
		} else if (want == 3) {
			for (x = 0; x < ld->width; x++, in += 3)
				out[x] = argb(in[0], in[1], in[2], 255);
		} else {
			jpeg_cmyk_row(out, in, ld->width, cinfo->saw_Adobe_marker);
		}
	}
	/* No jpeg_finish_decompress: every row is in, and a missing EOI is harmless. */
	return 0;
}

static int load_jpeg(struct load *ld)
{
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	int rc;

	/* Zeroed, so destroying is safe even if creating failed half-way. */
	memset(&cinfo, 0, sizeof(cinfo));
	cinfo.err = jpeg_std_error(&jerr);
	cinfo.client_data = ld;
	jerr.error_exit = jpeg_on_error;
	jerr.emit_message = jpeg_on_message;
	rc = jpeg_decode(ld, &cinfo);
	jpeg_destroy_decompress(&cinfo);
	return rc;
}

/* The next header number; returns the character after it, or -1 at a bad byte, EOF at the end. */
static int ppm_number(FILE *f, unsigned long *v)
{
	int c;

	for (;;) {
		c = getc(f);
		if (c == '#') {
			while ((c = getc(f)) != '\n' && c != EOF)
				;
		}
		if (c == EOF || !isspace(c))
			break;
	}
	if (c == EOF)
		return EOF;
	if (!isdigit(c))
		return -2;
	for (*v = 0; isdigit(c); c = getc(f)) {
		if (*v > 10000000UL)
			return -2;
		*v = *v * 10 + (unsigned long)(c - '0');
	}
	return c;
}

static int ppm_header(struct load *ld, unsigned long v[3])
{
	int i, c = 0;

	for (i = 0; i < 3; i++) {
		c = ppm_number(ld->f, &v[i]);
		if (c == EOF)
			return load_fail(ld, -EINVAL, "truncated PPM header");
		if (c < 0 || (c != '#' && !isspace(c)))
			return load_fail(ld, -EINVAL, "bad PPM header");
		if (i < 2)
			ungetc(c, ld->f);
	}
	/* Exactly one whitespace byte separates maxval from the samples. */
	if (c == '#')
		return load_fail(ld, -EINVAL, "bad PPM header");
	if (v[2] == 0 || v[2] > 65535)
		return load_fail(ld, -EINVAL, "bad PPM maxval");
	return 0;
}

static int load_ppm(struct load *ld, int channels)
{
	unsigned long v[3], maxval;
	size_t sample, rowbytes, i;
	uint8_t *row;
	int rc, x, y;

	if (fseek(ld->f, 2, SEEK_SET) != 0)
		return load_fail(ld, -errno, strerror(errno));
	rc = ppm_header(ld, v);
	if (rc < 0)
		return rc;
	rc = load_alloc(ld, v[0], v[1]);
	if (rc < 0)
		return rc;
	maxval = v[2];
	sample = maxval > 255 ? 2 : 1;
	rowbytes = (size_t)ld->width * (size_t)channels * sample;
	row = malloc(rowbytes);
	if (!row)
		return load_fail(ld, -ENOMEM, "out of memory");
	for (y = 0; y < ld->height; y++) {
		uint32_t *out = ld->pixels + (size_t)y * ld->width;
		unsigned c[3];

		if (fread(row, 1, rowbytes, ld->f) != rowbytes) {
			free(row);
			if (ferror(ld->f))
				return load_fail(ld, -EIO, "read error");
			return load_fail(ld, -EINVAL, "truncated PPM data");
		}
		for (x = 0, i = 0; x < ld->width; x++) {
			int k;

			for (k = 0; k < channels; k++, i += sample) {
				unsigned long s = sample == 2 ? (unsigned long)row[i] << 8 | row[i + 1]
							      : row[i];

				c[k] = s >= maxval ? 255 : (unsigned)((s * 255 + maxval / 2) / maxval);
			}
			out[x] = channels == 3 ? argb(c[0], c[1], c[2], 255)
					       : argb(c[0], c[0], c[0], 255);
		}
	}
	free(row);
	return 0;
}

static unsigned long be32(const uint8_t *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static int load_any(struct load *ld)
{
	static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t m[24];
	size_t n;
	int rc;

	n = fread(m, 1, sizeof(m), ld->f);
	if (ferror(ld->f))
		return load_fail(ld, errno ? -errno : -EIO, errno ? strerror(errno) : "read error");
	if (n == 0)
		return load_fail(ld, -EINVAL, "empty file");
	if (n >= 8 && memcmp(m, png_sig, 8) == 0) {
		/* IHDR comes first: refuse a huge picture before libpng reads on to the data. */
		if (n == 24 && memcmp(m + 12, "IHDR", 4) == 0) {
			rc = load_check_size(ld, be32(m + 16), be32(m + 20));
			if (rc < 0)
				return rc;
		}
		if (fseek(ld->f, 0, SEEK_SET) != 0)
			return load_fail(ld, -errno, strerror(errno));
		return load_png(ld);
	}
	if (n >= 3 && m[0] == 0xff && m[1] == 0xd8 && m[2] == 0xff) {
		if (fseek(ld->f, 0, SEEK_SET) != 0)
			return load_fail(ld, -errno, strerror(errno));
		return load_jpeg(ld);
	}
	if (n >= 3 && m[0] == 'P' && (m[1] == '6' || m[1] == '5') &&
	    (isspace(m[2]) || m[2] == '#'))
		return load_ppm(ld, m[1] == '6' ? 3 : 1);
	if (n >= 2 && m[0] == 'P' && m[1] >= '1' && m[1] <= '4')
		return load_fail(ld, -EINVAL, "only binary PPM (P6) and PGM (P5) are supported");
	return load_fail(ld, -EINVAL, "not a PNG, JPEG or PPM file");
}

int image_load(struct image *img, const char *path, char *err, size_t errlen)
{
	struct load ld = { .err = err, .errlen = errlen, .rc = -EINVAL };
	int rc;

	if (errlen)
		err[0] = '\0';
	ld.f = fopen(path, "rb");
	if (!ld.f) {
		rc = -errno;
		return load_fail(&ld, rc, strerror(-rc));
	}
	errno = 0;
	rc = load_any(&ld);
	fclose(ld.f);
	free(ld.rows);
	if (rc < 0) {
		free(ld.pixels);
		return rc;
	}
	img->width = ld.width;
	img->height = ld.height;
	img->pixels = ld.pixels;
	return 0;
}

/* ---- scaling ----------------------------------------------------------------------------- */

/* For each destination index along one axis: the source indices it reads, with weights. */
struct taps {
	int *start, *count;
	float *w;	/* maxn per destination index */
	int maxn;
};

static void taps_free(struct taps *t)
{
	free(t->start);
	free(t->count);
	free(t->w);
}

/* dlen destination pixels cover source [s0, s0 + dlen * f), f source pixels per destination
 * pixel. Shrinking averages the exact footprint (box filter, fractional edges); growing is
 * bilinear. */
static int taps_build(struct taps *t, int dlen, int slen, double s0, double f)
{
	int i, j;

	t->maxn = f >= 1.0 ? (int)ceil(f) + 2 : 2;
	t->start = malloc((size_t)dlen * sizeof(int));
	t->count = malloc((size_t)dlen * sizeof(int));
	t->w = malloc((size_t)dlen * (size_t)t->maxn * sizeof(float));
	if (!t->start || !t->count || !t->w) {
		taps_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < dlen; i++) {
		float *w = t->w + (size_t)i * t->maxn;

		if (f >= 1.0) {
			double a = fmax(s0 + i * f, 0.0), b = fmin(s0 + (i + 1) * f, (double)slen);
			int j0 = (int)floor(a), j1 = (int)ceil(b);

			if (j1 > slen)
				j1 = slen;
			if (j0 > j1 - 1)
				j0 = j1 - 1;
			if (j1 - j0 > t->maxn)
				j1 = j0 + t->maxn;
			t->start[i] = j0;
			t->count[i] = j1 - j0;
			for (j = j0; j < j1; j++)
				w[j - j0] = b > a ? (float)((fmin(b, j + 1.0) - fmax(a, (double)j)) / (b - a))
						  : 1.0f / (float)(j1 - j0);
		} else {
			double u = s0 + (i + 0.5) * f - 0.5;
			int j0 = (int)floor(u);
			float frac = (float)(u - j0);

			if (j0 < 0 || j0 >= slen - 1) {
				t->start[i] = j0 < 0 ? 0 : slen - 1;
				t->count[i] = 1;
				w[0] = 1.0f;
			} else {
				t->start[i] = j0;
				t->count[i] = 2;
				w[0] = 1.0f - frac;
				w[1] = frac;
			}
		}
	}
	return 0;
}

static inline unsigned clamp_byte(float v)
{
	return v <= 0.0f ? 0 : v >= 255.0f ? 255 : (unsigned)(v + 0.5f);
}

/* Rows of 4 floats per pixel: premultiplied r, g, b and alpha, all 0..255. */
static void premultiply(float *out, const uint32_t *in, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint32_t p = in[i];
		float a = (float)(p >> 24), k = a * (1.0f / 255.0f);

		out[4 * i + 0] = (float)((p >> 16) & 0xff) * k;
		out[4 * i + 1] = (float)((p >> 8) & 0xff) * k;
		out[4 * i + 2] = (float)(p & 0xff) * k;
		out[4 * i + 3] = a;
	}
}

/* One source row, premultiplied and resampled across to dw pixels of 4 floats. */
static void resample_row(const struct taps *tx, const uint32_t *in, float *prow, float *h, int dw)
{
	int cx0 = tx->start[0], cx1 = tx->start[dw - 1] + tx->count[dw - 1], x, k;

	premultiply(prow, in + cx0, cx1 - cx0);
	for (x = 0; x < dw; x++) {
		const float *p = prow + (size_t)(tx->start[x] - cx0) * 4;
		const float *wx = tx->w + (size_t)x * tx->maxn;
		float r = 0, g = 0, b = 0, a = 0;

		for (k = 0; k < tx->count[x]; k++, p += 4) {
			r += wx[k] * p[0];
			g += wx[k] * p[1];
			b += wx[k] * p[2];
			a += wx[k] * p[3];
		}
		h[4 * x] = r, h[4 * x + 1] = g, h[4 * x + 2] = b, h[4 * x + 3] = a;
	}
}

/* Source rectangle (fractional) -> destination rectangle dx, dy, dw x dh of dst. Each output
 * row sums resampled source rows; consecutive output rows share at most two source rows (one
 * when shrinking, two when growing), so two cached rows avoid resampling any row twice. */
static int resample(const struct image *src, double sx, double sw, double sy, double sh,
		    struct image *dst, int dx, int dy, int dw, int dh, uint32_t bg)
{
	struct taps tx = { 0 }, ty = { 0 };
	float *prow = NULL, *cache = NULL, *acc = NULL;
	float bgr = (float)((bg >> 16) & 0xff), bgg = (float)((bg >> 8) & 0xff),
	      bgb = (float)(bg & 0xff);
	int rc = -ENOMEM, cached[2] = { -1, -1 }, x, y, k;

	if (taps_build(&tx, dw, src->width, sx, sw / dw) < 0)
		return -ENOMEM;
	if (taps_build(&ty, dh, src->height, sy, sh / dh) < 0)
		goto out;
	prow = malloc((size_t)src->width * 4 * sizeof(float));
	cache = malloc((size_t)2 * dw * 4 * sizeof(float));
	acc = malloc((size_t)dw * 4 * sizeof(float));
	if (!prow || !cache || !acc)
		goto out;

	for (y = 0; y < dh; y++) {
		const float *wy = ty.w + (size_t)y * ty.maxn;
		uint32_t *out = dst->pixels + (size_t)(dy + y) * dst->width + dx;

		memset(acc, 0, (size_t)dw * 4 * sizeof(float));
		for (k = 0; k < ty.count[y]; k++) {
			int r = ty.start[y] + k;
			float *h = cache + (size_t)(r & 1) * dw * 4, wk = wy[k];

			if (cached[r & 1] != r) {
				resample_row(&tx, src->pixels + (size_t)r * src->width, prow, h, dw);
				cached[r & 1] = r;
			}
			for (x = 0; x < dw * 4; x++)
				acc[x] += wk * h[x];
		}
		for (x = 0; x < dw; x++) {
			const float *p = acc + 4 * x;
			float t = (255.0f - p[3]) * (1.0f / 255.0f);

			out[x] = argb(clamp_byte(p[0] + bgr * t), clamp_byte(p[1] + bgg * t),
				      clamp_byte(p[2] + bgb * t), 255);
		}
	}
	rc = 0;
out:
	free(prow);
	free(cache);
	free(acc);
	taps_free(&tx);
	taps_free(&ty);
	return rc;
}

static uint32_t over(uint32_t p, uint32_t bg)
{
	unsigned a = p >> 24, na = 255 - a;

	if (a == 255)
		return p;
	return argb((((p >> 16) & 0xff) * a + ((bg >> 16) & 0xff) * na + 127) / 255,
		    (((p >> 8) & 0xff) * a + ((bg >> 8) & 0xff) * na + 127) / 255,
		    ((p & 0xff) * a + (bg & 0xff) * na + 127) / 255, 255);
}

static void place_center(const struct image *src, struct image *dst, uint32_t bg)
{
	int ox = (dst->width - src->width) / 2, oy = (dst->height - src->height) / 2;
	int x0 = ox > 0 ? ox : 0, y0 = oy > 0 ? oy : 0;
	int x1 = ox + src->width < dst->width ? ox + src->width : dst->width;
	int y1 = oy + src->height < dst->height ? oy + src->height : dst->height;
	int x, y;

	for (y = y0; y < y1; y++) {
		const uint32_t *in = src->pixels + (size_t)(y - oy) * src->width - ox;
		uint32_t *out = dst->pixels + (size_t)y * dst->width;

		for (x = x0; x < x1; x++)
			out[x] = over(in[x], bg);
	}
}

static void place_tiles(const struct image *src, struct image *dst, uint32_t bg)
{
	int x, y;

	for (y = 0; y < dst->height; y++) {
		const uint32_t *in = src->pixels + (size_t)(y % src->height) * src->width;
		uint32_t *out = dst->pixels + (size_t)y * dst->width;

		for (x = 0; x < dst->width; x++)
			out[x] = over(in[x % src->width], bg);
	}
}

int image_scale(struct image *dst, const struct image *src, int width, int height,
		enum scale_mode mode, uint32_t background)
{
	struct image out = { width, height, NULL };
	long long sw = src->width, sh = src->height, w = width, h = height;
	uint32_t fillc = 0xff000000u | (background & 0xffffff);
	size_t i, n;
	int rc = 0;

	if (width <= 0 || height <= 0 || src->width <= 0 || src->height <= 0 || !src->pixels)
		return -EINVAL;
	n = (size_t)width * (size_t)height;
	out.pixels = malloc(n * sizeof(uint32_t));
	if (!out.pixels)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		out.pixels[i] = fillc;

	switch (mode) {
	case SCALE_FIT: {
		int dw = width, dh = height;

		/* The tighter axis spans the screen exactly; the other is rounded. */
		if (w * sh <= h * sw)
			dh = (int)((sh * w * 2 + sw) / (sw * 2));
		else
			dw = (int)((sw * h * 2 + sh) / (sh * 2));
		dw = dw < 1 ? 1 : dw;
		dh = dh < 1 ? 1 : dh;
		rc = resample(src, 0, (double)sw, 0, (double)sh, &out, (width - dw) / 2,
			      (height - dh) / 2, dw, dh, background);
		break;
	}
	case SCALE_STRETCH:
		rc = resample(src, 0, (double)sw, 0, (double)sh, &out, 0, 0, width, height, background);
		break;
	case SCALE_CENTER:
		place_center(src, &out, background);
		break;
	case SCALE_TILE:
		place_tiles(src, &out, background);
		break;
	case SCALE_FILL:
	default: {
		double vw = (double)sw, vh = (double)sh;

		/* The looser axis spans the source exactly; the other is cropped evenly. */
		if (w * sh >= h * sw)
			vh = (double)(h * sw) / (double)w;
		else
			vw = (double)(w * sh) / (double)h;
		rc = resample(src, ((double)sw - vw) / 2, vw, ((double)sh - vh) / 2, vh, &out, 0, 0,
			      width, height, background);
		break;
	}
	}
	if (rc < 0) {
		free(out.pixels);
		return rc;
	}
	*dst = out;
	return 0;
}

/* ---- the built-in splash ----------------------------------------------------------------- */

static uint32_t hash2(int x, int y)
{
	uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	h *= 0x297a2d39u;
	h ^= h >> 15;
	return h;
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static float smooth01(float t)
{
	t = clampf(t, 0.0f, 1.0f);
	return t * t * (3.0f - 2.0f * t);
}

/* Signed distance to a drop: a round bottom of radius r at the origin narrowing to a rounded tip
 * of radius r2 at height len (y grows upwards). Inigo Quilez's "uneven capsule". */
static float drop_distance(float px, float py, float r, float r2, float len)
{
	float b = (r - r2) / len, a = sqrtf(1.0f - b * b);
	float k;

	px = fabsf(px);
	k = -b * px + a * py;
	if (k < 0.0f)
		return sqrtf(px * px + py * py) - r;
	if (k > a * len)
		return sqrtf(px * px + (py - len) * (py - len)) - r2;
	return a * px + b * py - r;
}

/* Plane waves sin(kx x + ky y + phase) = sin(kx x + phase) cos(ky y) + cos(kx x + phase) sin(ky y),
 * tabulated per column and per row so the caustic pattern costs a few multiplies per pixel. */
#define NWAVES 6

struct splash_axis {
	float s[NWAVES], c[NWAVES];
	float f;		/* pixel centre over the side length, 0..1 */
	int tile, in;		/* tile index, position inside the tile */
};

struct splash {
	int w, h;
	int tile, grout;
	float bevel;
	float cx, cy, r;	/* drop: centre of the round part, radius */
};

static void splash_axis_init(struct splash_axis *ax, int n, int origin, int tile, float k,
			     float phase_scale)
{
	static const float dir[NWAVES][3] = {
		/* angle, relative frequency, phase */
		{ 0.31f, 1.00f, 0.0f }, { 2.43f, 1.13f, 1.7f }, { 4.29f, 0.89f, 4.1f },
		{ 1.12f, 2.07f, 0.6f }, { 3.05f, 1.91f, 2.9f }, { 5.37f, 2.23f, 5.3f },
	};
	int i, j;

	for (j = 0; j < n; j++) {
		int t = j - origin;
		int ix = t >= 0 ? t / tile : -((tile - 1 - t) / tile);

		ax[j].tile = ix;
		ax[j].in = t - ix * tile;
		ax[j].f = ((float)j + 0.5f) / (float)n;
	}
	for (i = 0; i < NWAVES; i++) {
		/* phase_scale picks the x (cos) or y (sin) component of the wave direction. */
		float kk = k * dir[i][1] * (phase_scale > 0 ? cosf(dir[i][0]) : sinf(dir[i][0]));
		float ph = phase_scale > 0 ? dir[i][2] : 0.0f;

		for (j = 0; j < n; j++) {
			ax[j].s[i] = sinf(kk * (float)j + ph);
			ax[j].c[i] = cosf(kk * (float)j + ph);
		}
	}
}

/* Bright where the sum of three waves crosses zero: a net of thin, soft lines. */
static float caustic(const struct splash_axis *cx, const struct splash_axis *cy, int first)
{
	float s = 0.0f, c;
	int i;

	for (i = first; i < first + 3; i++)
		s += cx->s[i] * cy->c[i] + cx->c[i] * cy->s[i];
	c = 1.0f - fabsf(s) * (1.0f / 3.0f);
	c *= c;
	c *= c;
	return c * c;
}

struct tile_look {
	float shade, tint, dim[3];
};

static void tile_look(struct tile_look *tl, int ix, int iy)
{
	uint32_t hs = hash2(ix, iy);
	int accent = ((hs >> 16) & 0xff) < 14;	/* an occasional darker tile */

	tl->shade = 1.0f + 0.10f * ((float)(hs & 0xff) * (1.0f / 255.0f) - 0.5f);
	tl->tint = 0.05f * ((float)((hs >> 8) & 0xff) * (1.0f / 255.0f) - 0.5f);
	tl->dim[0] = accent ? 0.55f : 1.0f;
	tl->dim[1] = accent ? 0.62f : 1.0f;
	tl->dim[2] = accent ? 0.85f : 1.0f;
}

/* The pool floor along one row: depth gradient, tiles with bevels and grout, caustics. */
static void floor_row(const struct splash *sp, const struct splash_axis *ax,
		      const struct splash_axis *ay, uint32_t *out)
{
	static const float deep[3] = { 0.02f, 0.12f, 0.34f }, shallow[3] = { 0.10f, 0.70f, 0.76f };
	static const float grout_c[3] = { 0.78f, 0.92f, 0.96f };
	struct tile_look tl;
	float vy = (ay->f - 0.5f) * (ay->f - 0.5f), b = sp->bevel, g = (float)sp->grout;
	float e = (float)(sp->tile - 1), v = (float)ay->in;
	float lit_v = clampf(1.0f - (v - g) * b, 0, 1) - clampf(1.0f - (e - v) * b, 0, 1);
	int x, k, last_tile = ax[0].tile;

	tile_look(&tl, ax[0].tile, ay->tile);
	for (x = 0; x < sp->w; x++) {
		const struct splash_axis *cx = &ax[x];
		float t = smooth01(0.8f * ay->f + 0.2f * cx->f);
		float vig = 1.0f - 0.35f * ((cx->f - 0.5f) * (cx->f - 0.5f) + vy);
		float c[3], ca, i, u = (float)cx->in;

		if (cx->tile != last_tile) {
			last_tile = cx->tile;
			tile_look(&tl, cx->tile, ay->tile);
		}
		for (k = 0; k < 3; k++)
			c[k] = (deep[k] + (shallow[k] - deep[k]) * t) * tl.dim[k];
		if (cx->in < sp->grout || ay->in < sp->grout) {
			for (k = 0; k < 3; k++)
				c[k] += (grout_c[k] - c[k]) * 0.42f;
		} else {
			float lit = lit_v + clampf(1.0f - (u - g) * b, 0, 1) -
				    clampf(1.0f - (e - u) * b, 0, 1);

			c[0] = c[0] * tl.shade + 0.06f * lit;
			c[1] = (c[1] + tl.tint) * tl.shade + 0.07f * lit;
			c[2] = c[2] * tl.shade + 0.07f * lit;
		}
		ca = 0.65f * caustic(cx, ay, 0) + 0.35f * caustic(cx, ay, 3);
		i = ca * (0.30f + 0.45f * t);
		out[x] = argb(clamp_byte((c[0] * vig + i * 0.55f) * 255.0f),
			      clamp_byte((c[1] * vig + i * 0.90f) * 255.0f),
			      clamp_byte((c[2] * vig + i * 0.95f) * 255.0f), 255);
	}
}

/* The drop emblem over the floor colour c: shadow, glassy body, rim and highlights. */
static void drop_color(const struct splash *sp, int x, int y, float c[3])
{
	float r = sp->r, len = 1.75f * r, r2 = 0.05f * r;
	float px = (float)x + 0.5f - sp->cx, py = sp->cy - ((float)y + 0.5f);
	float ds = drop_distance(px - 0.22f * r, py + 0.28f * r, r, r2, len);
	float d = drop_distance(px, py, r, r2, len);
	float shadow = 0.38f * smooth01(0.5f - ds / (0.45f * r));
	float cover = clampf(0.5f - d, 0.0f, 1.0f);
	float rim, tint, hl, e, spot;
	int k;

	for (k = 0; k < 3; k++)
		c[k] *= 1.0f - shadow * (1.0f - cover);
	if (cover <= 0.0f)
		return;
	rim = clampf(1.0f + d / (0.4f * r), 0.0f, 1.0f);
	tint = cover * (0.16f + 0.38f * rim * rim);
	c[0] += (0.70f - c[0]) * tint;
	c[1] += (0.93f - c[1]) * tint;
	c[2] += (1.00f - c[2]) * tint;
	e = (px + 0.42f * r) * (px + 0.42f * r) / (0.13f * 0.13f * r * r) +
	    (py - 0.28f * r) * (py - 0.28f * r) / (0.33f * 0.33f * r * r);
	hl = clampf(1.2f - e, 0.0f, 1.0f);
	e = ((px - 0.45f * r) * (px - 0.45f * r) + (py + 0.45f * r) * (py + 0.45f * r)) /
	    (0.08f * 0.08f * r * r);
	spot = clampf(1.1f - e, 0.0f, 1.0f);
	hl = cover * (0.85f * hl * hl + 0.6f * spot + 0.45f * clampf(1.0f - fabsf(d + 1.2f) / 1.6f, 0, 1));
	for (k = 0; k < 3; k++)
		c[k] += (1.0f - c[k]) * clampf(hl, 0.0f, 1.0f);
}

int image_builtin(struct image *img, int width, int height)
{
	struct splash sp;
	struct splash_axis *ax, *ay;
	float c[3], m, k;
	uint32_t *px;
	int x, y, bx0, bx1, by0, by1;

	if (width <= 0 || height <= 0)
		return -EINVAL;
	px = malloc((size_t)width * (size_t)height * sizeof(uint32_t));
	ax = malloc(((size_t)width + (size_t)height) * sizeof(*ax));
	if (!px || !ax) {
		free(px);
		free(ax);
		return -ENOMEM;
	}
	ay = ax + width;
	m = (float)(width < height ? width : height);
	sp.w = width;
	sp.h = height;
	sp.tile = (int)(m / 15.0f + 0.5f);
	sp.tile = sp.tile < 6 ? 6 : sp.tile;
	sp.grout = sp.tile / 11 < 1 ? 1 : sp.tile / 11;
	sp.bevel = 1.0f / ((float)sp.tile * 0.16f);
	sp.r = m * 0.11f;
	sp.cx = (float)width * 0.5f;
	sp.cy = (float)height * 0.5f + 0.35f * sp.r;
	k = 6.2831853f / (m * 0.21f + 4.0f);
	splash_axis_init(ax, width, width / 2 - sp.tile / 2, sp.tile, k, 1.0f);
	splash_axis_init(ay, height, height / 2 - sp.tile / 2, sp.tile, k, -1.0f);

	/* Emblem bounding box, shadow and anti-aliased edge included. */
	bx0 = (int)floorf(sp.cx - 1.4f * sp.r) - 2;
	bx1 = (int)ceilf(sp.cx + 1.7f * sp.r) + 2;
	by0 = (int)floorf(sp.cy - 2.0f * sp.r) - 2;
	by1 = (int)ceilf(sp.cy + 1.8f * sp.r) + 2;
	for (y = 0; y < height; y++)
		floor_row(&sp, ax, &ay[y], px + (size_t)y * width);
	bx0 = bx0 < 0 ? 0 : bx0;
	by0 = by0 < 0 ? 0 : by0;
	bx1 = bx1 >= width ? width - 1 : bx1;
	by1 = by1 >= height ? height - 1 : by1;
	for (y = by0; y <= by1; y++) {
		for (x = bx0; x <= bx1; x++) {
			uint32_t *p = px + (size_t)y * width + x;

			c[0] = (float)((*p >> 16) & 0xff) * (1.0f / 255.0f);
			c[1] = (float)((*p >> 8) & 0xff) * (1.0f / 255.0f);
			c[2] = (float)(*p & 0xff) * (1.0f / 255.0f);
			drop_color(&sp, x, y, c);
			*p = argb(clamp_byte(c[0] * 255.0f), clamp_byte(c[1] * 255.0f),
				  clamp_byte(c[2] * 255.0f), 255);
		}
	}
	free(ax);
	img->width = width;
	img->height = height;
	img->pixels = px;
	return 0;
}

/* ---- PNG out ----------------------------------------------------------------------------- */

struct save {
	FILE *f;
	int rc;
};

static void save_on_error(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void save_on_write(png_structp png, png_bytep data, size_t len)
{
	struct save *sv = png_get_io_ptr(png);

	if (fwrite(data, 1, len, sv->f) != len) {
		sv->rc = errno ? -errno : -EIO;
		png_error(png, "write error");
	}
}

static void save_on_flush(png_structp png)
{
	struct save *sv = png_get_io_ptr(png);

	if (fflush(sv->f) != 0) {
		sv->rc = errno ? -errno : -EIO;
		png_error(png, "write error");
	}
}

static int png_encode(struct save *sv, png_structp png, png_infop info, const struct image *img,
		      uint8_t *row)
{
	int x, y;

	if (setjmp(png_jmpbuf(png)))
		return sv->rc;
	png_set_write_fn(png, sv, save_on_write, save_on_flush);
	png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	for (y = 0; y < img->height; y++) {
		const uint32_t *in = img->pixels + (size_t)y * img->width;

		for (x = 0; x < img->width; x++) {
			row[3 * x] = (uint8_t)(in[x] >> 16);
			row[3 * x + 1] = (uint8_t)(in[x] >> 8);
			row[3 * x + 2] = (uint8_t)in[x];
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	return 0;
}

int image_write_png(const struct image *img, const char *path)
{
	struct save sv = { NULL, -EIO };
	png_structp png = NULL;
	png_infop info = NULL;
	struct stat st;
	uint8_t *row;
	int rc, regular;

	if (!img->pixels || img->width <= 0 || img->height <= 0)
		return -EINVAL;
	row = malloc((size_t)img->width * 3);
	if (!row)
		return -ENOMEM;
	sv.f = fopen(path, "wb");
	if (!sv.f) {
		rc = -errno;
		free(row);
		return rc;
	}
	/* Only a regular file is ours to remove after a failure, never a device or a pipe. */
	regular = fstat(fileno(sv.f), &st) == 0 && S_ISREG(st.st_mode);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, save_on_error, png_on_warning);
	info = png ? png_create_info_struct(png) : NULL;
	errno = 0;
	rc = info ? png_encode(&sv, png, info, img, row) : -ENOMEM;
	png_destroy_write_struct(&png, &info);
	free(row);
	if (fclose(sv.f) != 0 && rc == 0)
		rc = errno ? -errno : -EIO;
	if (rc < 0 && regular)
		unlink(path);
	return rc;
}
