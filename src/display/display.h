/* display.h - where frames are shown: one small interface, one file per backend.
 *
 * The display folder holds the screen a frame is drawn into and the VT under it: this
 * interface, its backends (drm.c: a DRM/KMS card, on the output drm_output.c chooses; fbdev.c: a
 * Linux framebuffer device; file.c: a regular file standing in for one, for --fbdev), vt.c
 * and vt_guard.c, the child that gives the console back when the daemon dies without doing so.
 * Its files include image/ (pixel formats, images) and util/, nothing above. The daemon picks
 * no backend: display_open does, from the request.
 */
#ifndef FBRIPPLE_DISPLAY_H
#define FBRIPPLE_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "image/image.h"
#include "image/pixfmt.h"

enum display_buffering {
	DISPLAY_BUFFER_AUTO,	/* two pages where the device can flip between them, else one */
	DISPLAY_BUFFER_ON,	/* the same, but a warning when it cannot */
	DISPLAY_BUFFER_OFF,
};

/* "auto", "on", "off". 0 or -EINVAL. */
int display_buffering_parse(const char *name, enum display_buffering *mode);
const char *display_buffering_name(enum display_buffering mode);

/* What to open. file: a regular file as a raw framebuffer of the given geometry, created or
 * resized to stride * height bytes; otherwise device is a device path, a path under /dev/dri/
 * for DRM, or "auto": the first /dev/dri/card* with a connected connector, else /dev/fb0. */
struct display_request {
	const char *device;
	enum display_buffering buffering;
	const char *output;		/* DRM: a connector name ("HDMI-A-1"); NULL or "": the first
					 * connected one */
	const char *mode;		/* DRM: "WxH" or "WxH@Hz"; NULL or "": the preferred one */
	const struct display *held;	/* a display open now: the same DRM card shares its
					 * descriptor, and with it master, instead of opening
					 * the card a second time (which cannot be master) */
	bool hidden;			/* show nothing yet (screensaver.mode idle, beside an
					 * application): no mode left set (fbdev may switch a depth
					 * to learn its layout, and puts it back), no page flipped
					 * or panned; the first frame presented takes the screen */
	bool await_master;		/* hidden until a show (idle mode's start): a DRM card
					 * another process is master of is kept where fbripple
					 * may take master at the show (CAP_SYS_ADMIN) */
	bool keep_depth;		/* hidden: a depth fbripple cannot draw fails the open
					 * rather than being switched (fbdev), the picture on
					 * screen being another program's */
	bool file;
	int width, height;		/* the file's */
	struct pixfmt fmt;
	size_t stride;
};

/* What was opened. The picture is width x height pixels of fmt, rows stride bytes apart. */
struct display_mode {
	int width, height;
	size_t stride;
	struct pixfmt fmt;
	int pages;			/* 1, or 2 when each frame is drawn off screen and flipped in */
	int rotate;			/* the panel's own rotation, degrees clockwise */
};

/* The buffer the next frame goes into: page says which of the mode's pages it is. */
struct display_buffer {
	uint8_t *pixels;
	int page;
};

struct display;

/*
 * A backend. Every function but open gets a display that open filled; functions left NULL do
 * nothing and succeed (blank: -ENOTTY). present shows the buffer just drawn and hands out the
 * other one from then on; it may wait for the vertical blank but never for longer. A device
 * that refuses to show it (fbdev: a pan; DRM: a page flip) leaves it off screen, handed out
 * again, and returns -EAGAIN; one that keeps refusing may leave a display of two pages with
 * one, the one on screen (mode.pages then 1, and present or acquire returns the device's
 * error). -ENODEV: the device is gone. events reads
 * what the device reported on event_fd (page flips done) and returns how many flips completed;
 * with wait it first waits for a flip still under way, at most a vertical blank or so, so that
 * the buffer handed out next is off screen. acquire returns -EBUSY while another process holds
 * the device (a DRM master): the caller tries again a little later. release returns the
 * kernel's error where it cannot put back what the screen showed before (DRM: -ENOENT, the
 * buffer found gone): the frame presented last, shown or refused, stays on screen until the
 * display closes. present or acquire
 * return -EIO where another program set a mode the device keeps and ours is not taken back
 * (fbdev): the caller draws nothing more in the old one (the daemon opens it anew in the new
 * one). crash_guard
 * copies what crash_restore needs into the backend's own storage; crash_restore runs in a
 * fatal signal handler, so it may make async-signal-safe calls only.
 */
struct display_ops {
	const char *name;
	int (*open)(struct display *d, const struct display_request *req, char *err,
		    size_t errlen);
	void (*close)(struct display *d, bool clear);
	struct display_buffer (*buffer)(const struct display *d);
	int (*present)(struct display *d);
	int (*events)(struct display *d, bool wait);
	int (*flush)(struct display *d);		/* written pixels out to the device */
	int (*blank)(struct display *d, bool blank);
	int (*release)(struct display *d);		/* another VT takes the screen */
	int (*acquire)(struct display *d);		/* and gives it back */
	void (*share)(struct display *d, bool shared);	/* for the next acquire */
	int (*read)(const struct display *d, struct image *img);	/* the shown frame */
	bool (*shows_another)(const struct display *d);	/* another process's buffer on screen */
	int (*read_another)(const struct display *d, struct image *img);	/* and read */
	void (*describe)(const struct display *d, FILE *out);
	void (*hand_over)(struct display *from, struct display *to);
	void (*crash_guard)(const struct display *d);
	void (*crash_restore)(bool clear);
	int (*frame_file)(const struct display *d, const struct image *img);
};

struct display {
	const struct display_ops *ops;		/* NULL: closed */
	struct display_mode mode;
	char path[256];				/* the device opened ("auto" resolved) */
	int event_fd;				/* readable when events has work; -1: never */
	unsigned long flips;			/* page flips completed (fbdev: pans) */
	char note[256];				/* after open: why path is not the device asked
						 * for, for the log; "" */
	void *state;				/* the backend's own */
	dev_t node_dev;				/* the device node opened (0: a file) */
	ino_t node_ino;
	int watch_fd, watch;			/* display_watch's inotify fd and watch; -1: none */
};

/* For backends: err says why an open failed (without the path); returns ret. display_open
 * closes a failed open itself, so a backend's open only returns. */
int display_errorf(int ret, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* For backends: err says why path would not open (-ret), and for EACCES whose it is and what
 * would let fbripple's user in, as far as its mode and ACL tell (util/access.c). */
int display_open_error(const char *path, int ret, char *err, size_t errlen);

/* The backend for req opens the display: DRM for "auto" when a card has a connected connector
 * and for a path under /dev/dri/, falling back to the card's own fbdev emulation (saying why in
 * note) when another process is the card's DRM master; fbdev for other paths, and for "auto"
 * without a card to draw on (/dev/fb0; note says why where there are cards); file for
 * req->file. 0, or -errno with err saying why (without the path, which is in d->path); on
 * failure d stays closed. */
int display_open(struct display *d, const struct display_request *req, char *err,
		 size_t errlen);

/* A reload opened to on the device from has open, to take its place: what from's close would
 * put back (fbdev: the mode found when fbripple first opened the device) is to's to put back
 * now, and from's close leaves the device as to has it. Nothing on another device. */
void display_hand_over(struct display *from, struct display *to);

/* Puts back what open changed (mode, panning, the CRTC) and closes; d is then closed. clear:
 * blank the picture first, so that the console redraws on a clean screen (not while another
 * VT shows it: that screen is not ours to clear). */
void display_close(struct display *d, bool clear);

static inline bool display_is_open(const struct display *d)
{
	return d->ops != NULL;
}

/* "WxH" or "WxH@Hz" (display.mode): 0 or -EINVAL. hz is 0 when not given. */
int display_mode_parse(const char *text, int *width, int *height, int *hz);

struct display_buffer display_buffer(const struct display *d);
int display_present(struct display *d);
/* Flips the device reported done (counted in d->flips); wait: until none is under way, so that
 * display_buffer hands out a buffer off screen. The number done, or -errno. */
int display_events(struct display *d, bool wait);
int display_flush(struct display *d);
/* 0, or -errno when the device refuses; -ENOTTY where the backend cannot blank. */
int display_blank(struct display *d, bool blank);
int display_release(struct display *d);
/* -EBUSY: another process holds the device; call again later (every 20 ms or so). */
int display_acquire(struct display *d);
/* Opened hidden: whether the next acquire takes the screen on the application's own VT, to
 * draw over it as it is (fbdev: where it pans, in no other mode), or on a VT of fbripple's,
 * whose mode it sets. Until said, the former. */
void display_share(struct display *d, bool shared);
/* The frame on screen, ours (fbdev: whoever drew it), for screenshots and the application's
 * frame: display memory may be slow to read. */
int display_read(const struct display *d, struct image *img);
/* Whether another process's own buffer is on screen (a DRM application's), neither ours nor
 * the one found at open (the console's, through which an fbdev application draws); opened
 * while another process was master (await_master), any buffer not ours. */
bool display_shows_another(const struct display *d);
/* That buffer, read. -EACCES: the kernel gives it only to the card's master or to
 * CAP_SYS_ADMIN; -EMEDIUMTYPE: tiled, or a layout we do not read; -ERANGE: it does not hold
 * the whole mode; -EXDEV: it cannot be mapped; -ENOTSUP: the kernel cannot hand it over or
 * the backend has none. */
int display_read_another(const struct display *d, struct image *img);
/* --list-devices: what the device offers and what fbripple makes of it. */
void display_describe(const struct display *d, FILE *out);

/*
 * A device can go away under a running daemon (its driver unbound, a USB display unplugged, a
 * GPU reset): inotify_fd becomes readable when d's device node changes, and display_gone then
 * says whether the node that was opened is gone. A file display is never watched. 0 or -errno.
 */
int display_watch(struct display *d, int inotify_fd);
bool display_gone(const struct display *d);

/* After every open and close: what a crash must put back is d's (NULL: nothing). */
void display_crash_guard(const struct display *d);
/* In a fatal signal handler: puts back the display as open found it, clearing the screen
 * first when clear is set. Async-signal-safe. */
void display_crash_restore(bool clear);

/*
 * Beside an application that draws on the same memory: img (its frame) in the display's
 * format, as a memfd that a vt_guard_frame header leads (where on the device its rows go), for
 * the VT's guard to write back should fbripple die while its water is drawn over the frame.
 * The descriptor, or -errno; -ENOTSUP where fbripple draws on memory of its own (DRM).
 */
int display_frame_file(const struct display *d, const struct image *img);

/* Whether device ("auto", as display_open resolves it) is the device node d has open. */
bool display_same_device(const struct display *d, const char *device);

/* For backends: a device's memory mapped to draw in (MAP_FAILED and errno when not), never
 * inherited by a child: the console's guard would hold the device open with it, and a DRM
 * card's master, after the daemon is gone. */
void *display_map(int fd, size_t len, off_t offset);

/* For backends: whether path is the device node d has open. */
bool display_node_is(const struct display *d, const char *path);

/* The first /dev/dri/card* with a connected connector into path: 0; -ENODEV when there are
 * cards with connectors but none connected (the first into path); -ENOENT when there is no
 * card to open with connectors at all. */
int display_drm_find(char *path, size_t len);

/* The framebuffer device of DRM card's fbdev emulation ("/dev/fb1") into path: 0; -ENODEV
 * when the card has none; -ENOENT when sysfs cannot tell. */
int display_drm_fbdev(const char *card, char *path, size_t len);

extern const struct display_ops display_drm;
extern const struct display_ops display_fbdev;
extern const struct display_ops display_file;

#endif
