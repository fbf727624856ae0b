/* display.c - the backend for a request, and calls through it. */
#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "display.h"

static const char *const buffering_names[] = { "auto", "on", "off" };

int display_buffering_parse(const char *name, enum display_buffering *mode)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, buffering_names[i])) {
			*mode = (enum display_buffering)i;
			return 0;
		}
	return -EINVAL;
}

const char *display_buffering_name(enum display_buffering mode)
{
	return (unsigned)mode < 3 ? buffering_names[mode] : "?";
}

int display_open(struct display *d, const struct display_request *req, char *err,
		 size_t errlen)
{
	const struct display_ops *ops = req->file ? &display_file : &display_fbdev;
	struct stat st;
	int ret;

	memset(d, 0, sizeof(*d));
	d->watch_fd = d->watch = -1;
	snprintf(d->path, sizeof(d->path), "%s", req->device);
	d->mode.pages = 1;
	ret = ops->open(d, req, err, errlen);
	if (ret < 0)
		return ret;
	d->ops = ops;
	if (!req->file && stat(req->device, &st) == 0 && S_ISCHR(st.st_mode)) {
		d->node_dev = st.st_dev;
		d->node_ino = st.st_ino;
	}
	return 0;
}

void display_close(struct display *d, bool clear)
{
	if (d->watch >= 0)
		inotify_rm_watch(d->watch_fd, d->watch);
	d->watch_fd = d->watch = -1;
	if (d->ops)
		d->ops->close(d, clear);
	d->ops = NULL;
	d->state = NULL;
}

/* The kernel removes a device's node when the device goes: the link count falls (IN_ATTRIB,
 * sent while the name may still be found, with no link left), and a node made again when it
 * returns is another inode. */
int display_watch(struct display *d, int inotify_fd)
{
	if (!d->node_dev)
		return 0;
	d->watch = inotify_add_watch(inotify_fd, d->path, IN_ATTRIB | IN_DELETE_SELF);
	if (d->watch < 0)
		return -errno;
	d->watch_fd = inotify_fd;
	return 0;
}

bool display_gone(const struct display *d)
{
	struct stat st;

	if (!d->node_dev)
		return false;
	return stat(d->path, &st) < 0 || st.st_nlink == 0 || st.st_dev != d->node_dev ||
	       st.st_ino != d->node_ino;
}

struct display_buffer display_buffer(const struct display *d)
{
	return d->ops->buffer(d);
}

int display_present(struct display *d)
{
	return d->ops->present ? d->ops->present(d) : 0;
}

int display_flush(struct display *d)
{
	return d->ops && d->ops->flush ? d->ops->flush(d) : 0;
}

int display_blank(struct display *d, bool blank)
{
	return d->ops->blank ? d->ops->blank(d, blank) : -ENOTTY;
}

int display_release(struct display *d)
{
	return d->ops->release ? d->ops->release(d) : 0;
}

int display_acquire(struct display *d)
{
	return d->ops->acquire ? d->ops->acquire(d) : 0;
}

int display_read(const struct display *d, struct image *img)
{
	return d->ops->read(d, img);
}

void display_describe(const struct display *d, FILE *out)
{
	d->ops->describe(d, out);
}

/* The only state outside a struct: a fatal signal handler cannot be passed any. */
static void (*volatile crash_restore)(bool clear);

void display_crash_guard(const struct display *d)
{
	crash_restore = NULL;
	if (!d || !d->ops || !d->ops->crash_restore)
		return;
	d->ops->crash_guard(d);
	crash_restore = d->ops->crash_restore;
}

void display_crash_restore(bool clear)
{
	void (*restore)(bool clear) = crash_restore;

	if (restore)
		restore(clear);
}
