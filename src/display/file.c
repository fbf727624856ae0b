/* file.c - a regular file standing in for a framebuffer (--fbdev): one page, nothing to pan. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "display.h"

struct file {
	int fd;
	uint8_t *map;
	size_t len;
};

static void file_close(struct display *d, bool clear)
{
	struct file *f = d->state;

	(void)clear;	/* the last frame stays in the file: that is what it is for */
	if (!f)
		return;
	if (f->map)
		munmap(f->map, f->len);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
	d->state = NULL;
}

static int file_open(struct display *d, const struct display_request *req, char *err,
		     size_t errlen)
{
	struct display_mode *m = &d->mode;
	struct file *f;

	/* rows of 16- and 32-bit pixels are written a whole pixel at a time */
	if (req->width < 1 || req->height < 1 ||
	    req->stride < (size_t)req->width * req->fmt.bytes ||
	    (req->fmt.bytes != 3 && req->stride % req->fmt.bytes)) {
		return display_errorf(-EINVAL, err, errlen, "bad geometry %dx%d, stride %zu",
				      req->width, req->height, req->stride);
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return display_errorf(-ENOMEM, err, errlen, "%s", strerror(ENOMEM));
	d->state = f;
	*m = (struct display_mode){ req->width, req->height, req->stride, req->fmt, 1, 0 };
	f->len = req->stride * req->height;
	f->fd = open(req->device, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f->fd < 0)
		return display_errorf(-errno, err, errlen, "%s", strerror(errno));
	if (ftruncate(f->fd, f->len) < 0)
		return display_errorf(-errno, err, errlen, "resize: %s", strerror(errno));
	f->map = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return display_errorf(-errno, err, errlen, "mmap: %s", strerror(errno));
	}
	return 0;
}

static struct display_buffer file_buffer(const struct display *d)
{
	const struct file *f = d->state;

	return (struct display_buffer){ f->map, 0 };
}

/* The file on disk shows the frame on screen: for a reader of the file, as --fbdev promises. */
static int file_flush(struct display *d)
{
	const struct file *f = d->state;

	return msync(f->map, f->len, MS_SYNC) < 0 ? -errno : 0;
}

static int file_read(const struct display *d, struct image *img)
{
	const struct file *f = d->state;

	return pixfmt_read_image(&d->mode.fmt, f->map, d->mode.stride, d->mode.width,
				 d->mode.height, img);
}

static void file_describe(const struct display *d, FILE *out)
{
	const struct display_mode *m = &d->mode;

	fprintf(out, "display %s: file\n", d->path);
	fprintf(out, "  resolution %dx%d, %d bpp %s, stride %zu bytes\n", m->width, m->height,
		m->fmt.bpp, m->fmt.name, m->stride);
}

const struct display_ops display_file = {
	.name = "file",
	.open = file_open,
	.close = file_close,
	.buffer = file_buffer,
	.flush = file_flush,
	.read = file_read,
	.describe = file_describe,
};
