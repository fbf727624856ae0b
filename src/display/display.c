/* display.c - the backend for a request, and calls through it. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "display.h"
#include "util/access.h"

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

int display_mode_parse(const char *text, int *width, int *height, int *hz)
{
	char *end;
	long v[3] = { 0, 0, 0 };
	const char *p = text;

	for (int i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v[i] = strtol(p, &end, 10);
		if (v[i] < 1 || v[i] > 16384)
			return -EINVAL;
		p = end;
		if (i == 0 && *p++ != 'x')
			return -EINVAL;
		if (i == 1 && *p == '\0')
			break;
		if (i == 1 && *p++ != '@')
			return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	*width = (int)v[0];
	*height = (int)v[1];
	*hz = (int)v[2];
	return 0;
}

/* why (may be NULL) says why "auto" passes over the cards there are. */
static const struct display_ops *backend_for(const struct display_request *req, char *path,
					     size_t len, char *why, size_t whylen)
{
	if (req->file)
		return &display_file;
	if (strcmp(req->device, "auto") == 0) {
		int ret = display_drm_find(path, len);

		if (ret == 0)
			return &display_drm;
		if (ret == -ENODEV && why)
			snprintf(why, whylen, "%.64s has no connected connector (a monitor off or "
				 "unplugged at start?)", path);
		snprintf(path, len, "/dev/fb0");
		return &display_fbdev;
	}
	snprintf(path, len, "%s", req->device);
	return strncmp(req->device, "/dev/dri/", 9) == 0 ? &display_drm : &display_fbdev;
}

static int open_with(struct display *d, const struct display_ops *ops,
		     const struct display_request *req, char *err, size_t errlen)
{
	struct display_request at = *req;
	int ret;

	at.device = d->path;
	d->mode = (struct display_mode){ .pages = 1 };
	d->event_fd = -1;
	ret = ops->open(d, &at, err, errlen);
	if (ret == 0)
		d->ops = ops;
	else
		ops->close(d, false);	/* whatever the open got as far as */
	return ret;
}

void *display_map(int fd, size_t len, off_t offset)
{
	void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);

	if (map != MAP_FAILED)
		madvise(map, len, MADV_DONTFORK);
	return map;
}

bool display_node_is(const struct display *d, const char *path)
{
	struct stat st;

	return d->node_dev && stat(path, &st) == 0 && st.st_dev == d->node_dev &&
	       st.st_ino == d->node_ino;
}

bool display_same_device(const struct display *d, const char *device)
{
	struct display_request req = { .device = device };
	char path[sizeof(d->path)];

	backend_for(&req, path, sizeof(path), NULL, 0);
	return display_node_is(d, path);
}

int display_errorf(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

int display_open_error(const char *path, int ret, char *err, size_t errlen)
{
	if (ret == -EACCES && access_explain(path, R_OK | W_OK, err, errlen) == 0)
		return ret;
	return display_errorf(ret, err, errlen, "%s", strerror(-ret));
}

/* A display server (or Plymouth) is the card's master: the card's own fbdev emulation still
 * takes frames (/dev/fb0 where sysfs cannot tell which is the card's). held says why the card
 * was refused; on failure why says both, and d->path is the card again. */
static int open_card_fbdev(struct display *d, const struct display_request *req,
			   const char *held, char *why, size_t len)
{
	char card[sizeof(d->path)], fb[64], fbwhy[200];
	int ret = display_drm_fbdev(d->path, fb, sizeof(fb));

	if (ret == -ENODEV)
		return display_errorf(-EBUSY, why, len, "%.120s, and the card has no framebuffer "
				      "device (fbdev emulation) to draw on instead", held);
	if (ret < 0)
		snprintf(fb, sizeof(fb), "/dev/fb0");
	snprintf(card, sizeof(card), "%s", d->path);
	snprintf(d->path, sizeof(d->path), "%s", fb);
	ret = open_with(d, &display_fbdev, req, fbwhy, sizeof(fbwhy));
	if (ret < 0) {
		snprintf(d->path, sizeof(d->path), "%s", card);
		return display_errorf(ret, why, len, "%.120s, and its framebuffer device %s cannot "
				      "be drawn on instead: %.120s", held, fb, fbwhy);
	}
	snprintf(d->note, sizeof(d->note), "%.64s: %.120s; drawing on %.40s (fbdev) instead", card,
		 held, fb);
	return 0;
}

int display_open(struct display *d, const struct display_request *req, char *err,
		 size_t errlen)
{
	const struct display_ops *ops;
	char why[400], passed[160] = "", held[200];
	struct stat st;
	int ret;

	memset(d, 0, sizeof(*d));
	d->watch_fd = d->watch = -1;
	snprintf(d->path, sizeof(d->path), "%s", req->device);
	ops = backend_for(req, d->path, sizeof(d->path), passed, sizeof(passed));
	ret = open_with(d, ops, req, why, sizeof(why));
	if (ret == -EBUSY && ops == &display_drm) {
		snprintf(held, sizeof(held), "%.199s", why);
		ret = open_card_fbdev(d, req, held, why, sizeof(why));
	}
	if (ret < 0 && passed[0])
		snprintf(err, errlen, "%.200s, and %s", why, passed);
	else if (ret < 0)
		snprintf(err, errlen, "%s", why);
	if (ret < 0)
		return ret;
	if (passed[0])
		snprintf(d->note, sizeof(d->note), "display.device \"auto\": %.160s; drawing on "
			 "%.40s (fbdev)", passed, d->path);
	if (!req->file && stat(d->path, &st) == 0 && S_ISCHR(st.st_mode)) {
		d->node_dev = st.st_dev;
		d->node_ino = st.st_ino;
	}
	return 0;
}

void display_hand_over(struct display *from, struct display *to)
{
	if (from->ops && from->ops == to->ops && from->ops->hand_over && from->node_dev &&
	    from->node_dev == to->node_dev && from->node_ino == to->node_ino)
		from->ops->hand_over(from, to);
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
	int ret = d->ops->present ? d->ops->present(d) : 0;

	/* a backend without events shows a second page the moment present returns */
	if (ret == 0 && !d->ops->events && d->mode.pages == 2)
		d->flips++;
	return ret;
}

int display_events(struct display *d, bool wait)
{
	int ret = d->ops && d->ops->events ? d->ops->events(d, wait) : 0;

	if (ret > 0)
		d->flips += (unsigned long)ret;
	return ret;
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

void display_share(struct display *d, bool shared)
{
	if (d->ops->share)
		d->ops->share(d, shared);
}

int display_read(const struct display *d, struct image *img)
{
	return d->ops->read(d, img);
}

bool display_shows_another(const struct display *d)
{
	return d->ops->shows_another && d->ops->shows_another(d);
}

int display_read_another(const struct display *d, struct image *img)
{
	return d->ops->read_another ? d->ops->read_another(d, img) : -ENOTSUP;
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

int display_frame_file(const struct display *d, const struct image *img)
{
	return d->ops->frame_file ? d->ops->frame_file(d, img) : -ENOTSUP;
}

void display_crash_restore(bool clear)
{
	void (*restore)(bool clear) = crash_restore;

	if (restore)
		restore(clear);
}
