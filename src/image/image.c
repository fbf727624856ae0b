/* image.c - picture files: load PNG, JPEG and PPM into memory, write PNG. */
#include "image.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include "image_exif.h"
#include "util/file.h"

/* Bounds on the work a picture can ask for (README "Splash pictures"): the costliest picture
 * within them decodes in about 1.3 s of CPU. */
#define MAX_SIDE	16384UL
#define MAX_PIXELS	(16UL * 1024 * 1024)
#define MAX_FILE	(128L * 1024 * 1024)	/* a 16-bit PPM at MAX_PIXELS is 96 MiB */
#define MAX_SCANS	32	/* libjpeg's progressions have 6 to 18, mozjpeg's 16 at most */
#define MAX_PNG_DATA	(64UL * 1024 * 1024)	/* inflated bytes: 16-bit RGBA is 8 a pixel */
#define MAX_PPM_HEADER	4096L	/* netpbm's is some 20 bytes; GIMP adds a comment of 50 */
/* What a JPEG's scans carry, in samples (jpeg_scan_samples): 12 a pixel at MAX_PIXELS, which
 * libjpeg's progression of a CMYK picture needs (11.9); its YCbCr one needs 4 to 7, mozjpeg's
 * 10 at most, a baseline JPEG 1 to 4. */
#define MAX_SCAN_SAMPLES	(12ULL * MAX_PIXELS)
/* Of a JPEG's EXIF segment, what is kept: the first directory, where the orientation is, comes
 * some 200 bytes in. */
#define EXIF_KEEP	4096

void image_free(struct image *img)
{
	if (!img)
		return;
	free(img->pixels);
	img->pixels = NULL;
	img->width = img->height = 0;
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
	int scans;		/* JPEG: the scans counted into samples so far */
	unsigned long long samples;
	uint8_t exif[EXIF_KEEP];	/* JPEG: the start of its first EXIF segment */
	size_t exif_len;
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
			snprintf(ld->err, ld->errlen, "image too large (%lux%lu; at most %lu pixels a "
				 "side and %lu megapixels)", w, h, MAX_SIDE, MAX_PIXELS >> 20);
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
		return load_fail(ld, -ENOMEM, strerror(ENOMEM));
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

/* The bytes libpng inflates, before any conversion, are the work a PNG asks for. */
static int png_check_data(struct load *ld, unsigned long w, unsigned long h, int depth,
			  int channels)
{
	if ((w * (unsigned long)(depth * channels) + 7) / 8 * h <= MAX_PNG_DATA)
		return 0;
	if (ld->errlen)
		snprintf(ld->err, ld->errlen, "image too large (%lux%lu at %d bits a sample; at most "
			 "%lu MiB of PNG data)", w, h, depth, MAX_PNG_DATA >> 20);
	return -EINVAL;
}

static int png_decode(struct load *ld, png_structp png, png_infop info)
{
	png_uint_32 w, h, y, x;
	png_bytep *rows;
	int depth, type, rc;

	if (setjmp(png_jmpbuf(png)))
		return ld->rc;

	png_set_read_fn(png, ld, png_on_read);
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
	/* Text, ICC profiles and the like are never used: skipped, never inflated. */
	png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
#endif
	png_read_info(png, info);
	png_get_IHDR(png, info, &w, &h, &depth, &type, NULL, NULL, NULL);
	rc = load_alloc(ld, w, h);
	if (rc < 0)
		return rc;
	rc = png_check_data(ld, w, h, depth, png_get_channels(png, info));
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
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	png_set_bgr(png);	/* B, G, R, A in memory is the word 0xAARRGGBB: no pass to turn them */
#endif
#ifdef PNG_IGNORE_ADLER32
	/* every chunk's CRC is still checked; zlib's own sum over the same bytes is 5% of a decode */
	png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 4)
		png_error(png, "unsupported PNG layout");

	/* RGBA bytes go straight into the pixel rows and are then turned into words in place. */
	rows = ld->rows = malloc(h * sizeof(*rows));
	if (!rows) {
		ld->rc = -ENOMEM;
		png_error(png, strerror(ENOMEM));
	}
	for (y = 0; y < h; y++)
		rows[y] = (png_bytep)(ld->pixels + (size_t)y * w);
	png_read_image(png, rows);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	for (y = 0; y < h; y++) {
		uint32_t *row = ld->pixels + (size_t)y * w;

		for (x = 0; x < w; x++) {
			const uint8_t *p = (const uint8_t *)(row + x);

			row[x] = image_argb(p[0], p[1], p[2], p[3]);
		}
	}
#else
	(void)x;
#endif
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
		return load_fail(ld, -ENOMEM, strerror(ENOMEM));
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

/*
 * Warnings are dropped, except running out of data (libjpeg would pad with grey and carry on)
 * and a scan that repeats what earlier ones sent (each would cost a pass for nothing).
 */
static void jpeg_on_message(j_common_ptr cinfo, int level)
{
	struct load *ld = cinfo->client_data;

	if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
		load_fail(ld, ld->rc, "truncated JPEG data");
		longjmp(ld->jb, 1);
	}
	if (level == -1 && cinfo->err->msg_code == JWRN_BOGUS_PROGRESSION)
		jpeg_on_error(cinfo);
}

/* What the scan just begun costs: the samples of its components, in proportion to the
 * coefficients it sends (a progressive scan a band of the 64, a sequential one all). */
static unsigned long long jpeg_scan_samples(j_decompress_ptr d)
{
	int band = d->progressive_mode ? d->Se - d->Ss + 1 : DCTSIZE2;
	unsigned long long n = 0;
	int i;

	for (i = 0; i < d->comps_in_scan; i++)
		n += (unsigned long long)d->cur_comp_info[i]->downsampled_width *
		     d->cur_comp_info[i]->downsampled_height;
	return n * (unsigned)band / DCTSIZE2;
}

static void jpeg_refuse(struct load *ld, const char *msg)
{
	load_fail(ld, -EINVAL, msg);
	longjmp(ld->jb, 1);
}

/* Called as the scans come in, each before its data is decoded: every scan is another pass
 * over the components it holds. */
static void jpeg_on_progress(j_common_ptr cinfo)
{
	j_decompress_ptr d = (j_decompress_ptr)cinfo;
	struct load *ld = cinfo->client_data;
	char msg[160];

	if (d->input_scan_number > MAX_SCANS) {
		snprintf(msg, sizeof(msg), "JPEG with more than %d scans", MAX_SCANS);
		jpeg_refuse(ld, msg);
	}
	if (d->input_scan_number <= ld->scans)
		return;
	ld->scans = d->input_scan_number;
	ld->samples += jpeg_scan_samples(d);
	if (ld->samples > MAX_SCAN_SAMPLES) {
		snprintf(msg, sizeof(msg), "image too large (%ux%u in %d scans; at most %llu "
			 "megasamples in all its scans)", d->image_width, d->image_height,
			 d->input_scan_number, MAX_SCAN_SAMPLES >> 20);
		jpeg_refuse(ld, msg);
	}
}

/* A byte of the segment being read (the stdio source never suspends; past the end of the file
 * it gives an EOI marker and warns, which jpeg_on_message makes an error). */
static unsigned jpeg_byte(j_decompress_ptr d)
{
	struct jpeg_source_mgr *s = d->src;

	if (!s->bytes_in_buffer && (!s->fill_input_buffer(d) || !s->bytes_in_buffer))
		ERREXIT(d, JERR_INPUT_EMPTY);
	s->bytes_in_buffer--;
	return *s->next_input_byte++;
}

/* An APP1 segment: the start of the first EXIF one is kept, every other byte skipped, so that
 * no number of segments costs memory (libjpeg's jpeg_save_markers keeps them all). */
static boolean jpeg_on_app1(j_decompress_ptr d)
{
	struct load *ld = d->client_data;
	long left = (long)(jpeg_byte(d) << 8);
	size_t n = 0;
	uint8_t *keep = ld->exif;

	left += (long)jpeg_byte(d) - 2;
	while (left > 0 && n < (ld->exif_len ? 0 : EXIF_KEEP)) {
		keep[n++] = (uint8_t)jpeg_byte(d);
		left--;
		if (n == 6 && memcmp(keep, "Exif\0\0", 6) != 0)
			break;
	}
	if (n >= 6 && memcmp(keep, "Exif\0\0", 6) == 0)
		ld->exif_len = n;
	if (left > 0)
		d->src->skip_input_data(d, left);
	return TRUE;
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
		out[x] = image_argb((c * k + 127) / 255, (m * k + 127) / 255, (y * k + 127) / 255, 255);
	}
}

static int jpeg_decode(struct load *ld, struct jpeg_decompress_struct *cinfo,
		       struct jpeg_progress_mgr *progress)
{
	JSAMPARRAY buf;
	uint32_t *row;
	int rc, x, want, turn;
	long w, h, start, step;

	if (setjmp(ld->jb))
		return ld->rc;

	jpeg_create_decompress(cinfo);
	progress->progress_monitor = jpeg_on_progress;
	cinfo->progress = progress;
	jpeg_stdio_src(cinfo, ld->f);
	jpeg_set_marker_processor(cinfo, JPEG_APP0 + 1, jpeg_on_app1);
	jpeg_read_header(cinfo, TRUE);
	/* its decoder takes some 12 times the CPU of Huffman's for the same picture */
	if (cinfo->arith_code)
		return load_fail(ld, -EINVAL, "only Huffman-coded JPEG is supported, not "
				 "arithmetic-coded");
	rc = load_alloc(ld, cinfo->image_width, cinfo->image_height);
	if (rc < 0)
		return rc;
	w = ld->width, h = ld->height;
	/* a photo taken with the camera turned stands upright, as its viewers show it */
	turn = exif_orientation(ld->exif, ld->exif_len);
	if (exif_swaps(turn))
		ld->width = (int)h, ld->height = (int)w;
	ld->rows = row = malloc((size_t)w * sizeof(*row));
	if (!row)
		return load_fail(ld, -ENOMEM, strerror(ENOMEM));
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
	if (cinfo->output_components != want || (long)cinfo->output_width != w ||
	    (long)cinfo->output_height != h)
		return load_fail(ld, -EINVAL, "unsupported JPEG colour space");
	buf = cinfo->mem->alloc_sarray((j_common_ptr)cinfo, JPOOL_IMAGE,
				       cinfo->output_width * (JDIMENSION)want, 1);
	while (cinfo->output_scanline < cinfo->output_height) {
		const JSAMPLE *in = buf[0];

		exif_place_row(turn, w, h, (long)cinfo->output_scanline, &start, &step);
		jpeg_read_scanlines(cinfo, buf, 1);
		if (want == 1) {
			for (x = 0; x < w; x++)
				row[x] = image_argb(in[x], in[x], in[x], 255);
		} else if (want == 3) {
			for (x = 0; x < w; x++, in += 3)
				row[x] = image_argb(in[0], in[1], in[2], 255);
		} else {
			jpeg_cmyk_row(row, in, (int)w, cinfo->saw_Adobe_marker);
		}
		for (x = 0; x < w; x++)
			ld->pixels[start + x * step] = row[x];
	}
	/* No jpeg_finish_decompress: every row is in, and a missing EOI is harmless. */
	return 0;
}

static int load_jpeg(struct load *ld)
{
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	struct jpeg_progress_mgr progress = { 0 };
	int rc;

	/* Zeroed, so destroying is safe even if creating failed half-way. */
	memset(&cinfo, 0, sizeof(cinfo));
	cinfo.err = jpeg_std_error(&jerr);
	cinfo.client_data = ld;
	jerr.error_exit = jpeg_on_error;
	jerr.emit_message = jpeg_on_message;
	rc = jpeg_decode(ld, &cinfo, &progress);
	jpeg_destroy_decompress(&cinfo);
	return rc;
}

#define PPM_BAD		(-2)
#define PPM_LONG	(-3)

/* The next header byte, or PPM_LONG past MAX_PPM_HEADER of them: spaces or a comment must not
 * make the header the work. */
static int ppm_getc(FILE *f, long *left)
{
	if (*left <= 0)
		return PPM_LONG;
	--*left;
	return getc(f);
}

/* The next header number; returns the character after it, or PPM_BAD at a bad byte, PPM_LONG,
 * EOF at the end. */
static int ppm_number(FILE *f, long *left, unsigned long *v)
{
	int c;

	for (;;) {
		c = ppm_getc(f, left);
		if (c == '#') {
			while ((c = ppm_getc(f, left)) != '\n' && c != EOF && c != PPM_LONG)
				;
		}
		if (c < 0 || !isspace(c))
			break;
	}
	if (c < 0)
		return c;
	if (!isdigit(c))
		return PPM_BAD;
	for (*v = 0; isdigit(c); c = ppm_getc(f, left)) {
		if (*v > 10000000UL)
			return PPM_BAD;
		*v = *v * 10 + (unsigned long)(c - '0');
	}
	return c;
}

static int ppm_header(struct load *ld, unsigned long v[3])
{
	long left = MAX_PPM_HEADER - 2;		/* after "P6" */
	int i, c = 0;

	for (i = 0; i < 3; i++) {
		c = ppm_number(ld->f, &left, &v[i]);
		if (c == EOF)
			return load_fail(ld, -EINVAL, "truncated PPM header");
		if (c == PPM_LONG) {
			if (ld->errlen)
				snprintf(ld->err, ld->errlen, "PPM header too long (at most %ld KiB)",
					 MAX_PPM_HEADER >> 10);
			return -EINVAL;
		}
		if (c < 0 || (c != '#' && !isspace(c)))
			return load_fail(ld, -EINVAL, "bad PPM header");
		if (i < 2) {
			ungetc(c, ld->f);
			left++;
		}
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
		return load_fail(ld, -ENOMEM, strerror(ENOMEM));
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
			out[x] = channels == 3 ? image_argb(c[0], c[1], c[2], 255)
					       : image_argb(c[0], c[0], c[0], 255);
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
	static const int channels[7] = { 1, 0, 3, 1, 2, 0, 4 };	/* by colour type */
	uint8_t m[26];
	size_t n;
	int rc;

	n = fread(m, 1, sizeof(m), ld->f);
	if (ferror(ld->f))
		return load_fail(ld, errno ? -errno : -EIO, errno ? strerror(errno) : "read error");
	if (n == 0)
		return load_fail(ld, -EINVAL, "empty file");
	if (n >= 8 && memcmp(m, png_sig, 8) == 0) {
		/* IHDR comes first: refuse a huge picture before libpng reads on to the data. */
		if (n == sizeof(m) && memcmp(m + 12, "IHDR", 4) == 0) {
			rc = load_check_size(ld, be32(m + 16), be32(m + 20));
			if (rc == 0 && m[25] < 7 && channels[m[25]])
				rc = png_check_data(ld, be32(m + 16), be32(m + 20), m[24],
						    channels[m[25]]);
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

/* path as a stream, if it is a regular file no larger than MAX_FILE. */
static int load_open(struct load *ld, const char *path)
{
	struct stat st;
	int fd = file_open_regular(path);

	if (fd < 0)
		return load_fail(ld, fd, file_strerror(fd));
	if (fstat(fd, &st) == 0 && st.st_size > MAX_FILE) {
		close(fd);
		if (ld->errlen)
			snprintf(ld->err, ld->errlen, "file too large (%lld MiB; at most %ld MiB)",
				 (long long)(st.st_size >> 20), MAX_FILE >> 20);
		return -EFBIG;
	}
	ld->f = fdopen(fd, "rb");
	if (!ld->f) {
		int rc = -errno;

		close(fd);
		return load_fail(ld, rc, strerror(-rc));
	}
	return 0;
}

int image_load(struct image *img, const char *path, char *err, size_t errlen)
{
	struct load ld = { .err = err, .errlen = errlen, .rc = -EINVAL };
	int rc;

	if (errlen)
		err[0] = '\0';
	rc = load_open(&ld, path);
	if (rc < 0)
		return rc;
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

/*
 * A path that a control-socket client may choose: never follow a link, never wait on a FIFO (a
 * daemon stuck in open is a dead daemon), and write only a regular file, which is then also ours
 * to remove after a failure.
 */
static int open_regular(const char *path, FILE **f)
{
	struct stat st;
	int fd;

	/* a clear answer for what is there already; the flags below hold even if it changes */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (ftruncate(fd, 0) < 0 || !(*f = fdopen(fd, "wb"))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return 0;
}

int image_write_png_file(const struct image *img, FILE *f)
{
	struct save sv = { f, -EIO };
	png_structp png = NULL;
	png_infop info = NULL;
	uint8_t *row;
	int rc;

	if (!img->pixels || img->width <= 0 || img->height <= 0)
		return -EINVAL;
	row = malloc((size_t)img->width * 3);
	if (!row)
		return -ENOMEM;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, save_on_error, png_on_warning);
	info = png ? png_create_info_struct(png) : NULL;
	errno = 0;
	rc = info ? png_encode(&sv, png, info, img, row) : -ENOMEM;
	png_destroy_write_struct(&png, &info);
	free(row);
	if (rc == 0 && fflush(f) != 0)
		rc = errno ? -errno : -EIO;
	return rc;
}

int image_write_png(const struct image *img, const char *path)
{
	FILE *f;
	int rc;

	if (!img->pixels || img->width <= 0 || img->height <= 0)
		return -EINVAL;
	rc = open_regular(path, &f);
	if (rc < 0)
		return rc;
	rc = image_write_png_file(img, f);
	if (fclose(f) != 0 && rc == 0)
		rc = errno ? -errno : -EIO;
	if (rc < 0)
		unlink(path);
	return rc;
}
