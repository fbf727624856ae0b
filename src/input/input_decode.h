/* input_decode.h - the decoder's vocabulary: device classes, contacts, the map from a panel to
 * screen pixels, and the per-device state machine that turns evdev frames into contacts. No
 * I/O: input.c and input_reader.c bring the events. */
#ifndef FBRIPPLE_INPUT_DECODE_H
#define FBRIPPLE_INPUT_DECODE_H

#include <linux/input.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/log.h"

#define INPUT_SLOTS 16		/* contacts per device; higher slots are ignored */

enum input_class {
	INPUT_IGNORED,
	INPUT_MT_B,		/* multitouch with slots */
	INPUT_MT_A,		/* multitouch with SYN_MT_REPORT, no slots */
	INPUT_TOUCH,		/* single touch: ABS_X/Y + BTN_TOUCH; also a pen (BTN_TOOL_PEN) */
	INPUT_TABLET,		/* absolute pointer: ABS_X/Y + BTN_LEFT, no touch */
	INPUT_MOUSE,		/* REL_X/Y + BTN_LEFT */
};

enum input_action {
	INPUT_DOWN,		/* a contact starts at x, y */
	INPUT_MOVE,		/* a contact that is down moved from from_x, from_y to x, y */
	INPUT_UP,		/* a contact ended at x, y */
	INPUT_HOVER,		/* a pointer with no button down moved from from_x, from_y to x, y */
	INPUT_ACTIVITY,		/* events came from a device in use (at most every 100 ms) */
};

/* input.axes: where single-touch panels and tablets report x and y. */
enum input_axes {
	INPUT_AXES_AUTO,	/* ABS_X/Y, or ABS_Z/RX once only those move (eGalax firmware) */
	INPUT_AXES_XY,		/* ABS_X/Y only */
	INPUT_AXES_Z_RX,	/* ABS_Z and ABS_RX */
};

int input_axes_parse(const char *name, enum input_axes *axes);	/* 0 or -EINVAL */
const char *input_axes_name(enum input_axes axes);

struct input_contact {
	enum input_action action;
	int id;			/* unique among the contacts down at one time */
	int x, y;		/* logical (rotated) screen pixels */
	int from_x, from_y;
	int64_t time_us;	/* the event's time (CLOCK_MONOTONIC for the devices input opens) */
};

typedef void input_fn(void *ctx, const struct input_contact *c);
/* On the loop, a contact for whoever uses the devices: false when it cannot be done with c in
 * this wake-up; c then comes again, first, in the next one, and the contacts after it wait. */
typedef bool input_take_fn(void *ctx, const struct input_contact *c);
typedef void input_note_fn(void *ctx, enum log_level level, const char *msg);

/* Device axis range -> normalized [0,1) -> calibration -> rotation -> logical pixels. */
struct input_map {
	int width, height;	/* the logical screen: the framebuffer's, swapped for 90 and 270 */
	int rotate;		/* display.rotate: 0, 90, 180 or 270, the picture turned clockwise */
	double cal[6];		/* libinput's calibration matrix, normalized units */
};

struct input_axis {
	int min, max;
};

void input_map_init(struct input_map *m, int fb_width, int fb_height, int rotate,
		    const double *cal);

/* A point normalized to the panel ([0,1) across its axes) to logical pixels, clamped. */
void input_map_point(const struct input_map *m, double u, double v, int *x, int *y);

/* Parses "a b c d e f" (LIBINPUT_CALIBRATION_MATRIX) into cal; 0 or -EINVAL. */
int input_parse_matrix(const char *text, double cal[6]);

struct input_slot {
	int id;			/* tracking id; -1: no contact */
	int tid;		/* MT-A: the device's tracking id of the contact, -1: it sent none */
	int x, y;		/* device units (mouse: logical pixels) */
	bool fresh;		/* a new tracking id since the last frame */
	bool down;		/* reported as down */
	int rx, ry;		/* last reported logical position */
};

/* The per-device state machine that turns evdev frames into contacts; no I/O. */
struct input_decoder {
	enum input_class cls;
	struct input_axis ax, ay;
	unsigned code_x, code_y;	/* single touch, tablet: the axes of x and y */
	unsigned alt_x, alt_y;		/* a pair watched for firmware that uses it; 0: none */
	struct input_axis alt_ax, alt_ay;
	int alt_vx, alt_vy;		/* their last values */
	bool xy_moved, alt_moved;	/* events seen on each pair */
	const struct input_map *map;
	int min_move;			/* logical pixels a contact moves before INPUT_MOVE */
	int id_base;
	int slot;			/* MT-B: current slot, -1 if out of range */
	struct input_slot s[INPUT_SLOTS];
	bool button;			/* MT-A: BTN_TOUCH */
	bool has_button;		/* MT-A: a BTN_TOUCH came: the device has one */
	unsigned buttons;		/* mouse, tablet: the buttons held, one bit each */
	bool frame;			/* events a person made since the last SYN_REPORT */
	bool tool_left;			/* a pen's tool left range in this frame */
	int frames;			/* frames with events a person made, for INPUT_ACTIVITY */
	int64_t time_us;		/* of the last SYN_REPORT */
	bool dropped;			/* SYN_DROPPED since the last SYN_REPORT */
	int64_t dx, dy;			/* mouse: relative motion of this frame */
	int nmt;			/* MT-A: contacts in this frame */
	bool axes_switched;		/* input_decoder_watch_axes saw the other pair in use */
	bool sync_due;			/* SYN_DROPPED: libevdev's next sync state is the kernel's */
	int sync_id[INPUT_SLOTS];	/* MT-B: each slot's tracking id in the kernel after a sync */
	struct input_slot mt[INPUT_SLOTS];	/* MT-A: this frame's contacts (x, y, and
						 * id: the tracking id, -1 if it had none) */
	input_fn *fn;
	void *ctx;
};

void input_decoder_init(struct input_decoder *d, enum input_class cls,
			const struct input_axis *ax, const struct input_axis *ay,
			const struct input_map *map, int min_move, int id_base,
			input_fn *fn, void *ctx);

/* Feeds one event as libevdev_next_event returned it (normal or sync mode). */
void input_decoder_feed(struct input_decoder *d, const struct input_event *ev);

/* A contact is down or a button held: what the device reports is not over yet. */
bool input_decoder_held(const struct input_decoder *d);

/* Ends every contact that is down (the device went away). */
void input_decoder_release(struct input_decoder *d);

/* Single touch and tablets: x and y come from code_x and code_y (input.axes) instead of
 * ABS_X and ABS_Y. */
void input_decoder_set_axes(struct input_decoder *d, unsigned code_x, unsigned code_y,
			    const struct input_axis *ax, const struct input_axis *ay);

/* Single touch and tablets: a second pair of axes that some firmware uses instead of ABS_X/Y
 * (eGalax: ABS_Z and ABS_RX). Once they move while ABS_X/Y never did, x and y come from them
 * and axes_switched is set. */
void input_decoder_watch_axes(struct input_decoder *d, unsigned code_x, unsigned code_y,
			      const struct input_axis *ax, const struct input_axis *ay);

struct libevdev;

/*
 * Starts from the state libevdev read when the device was opened: the kernel does not resend
 * values that have not changed, so without this a tablet clicked before it moves would land at
 * 0,0. Positions and the current slot only: a finger already down is not a new touch.
 */
void input_decoder_seed(struct input_decoder *d, const struct libevdev *dev);

/* Feeds one event that libevdev returned in sync mode (after a SYN_DROPPED), reading what the
 * sync replays only in part from dev's state. */
void input_decoder_feed_sync(struct input_decoder *d, const struct libevdev *dev,
			     const struct input_event *ev);

/* Reports INPUT_ACTIVITY: the device did something, whatever it was. */
void input_decoder_activity(struct input_decoder *d);

/* The class of dev and why ("ABS_MT_SLOT + INPUT_PROP_DIRECT"); the axes that map. */
enum input_class input_classify(const struct libevdev *dev, char *why, size_t len,
				struct input_axis *ax, struct input_axis *ay);

/* A pen tablet beside the screen (INPUT_PROP_POINTER, not INPUT_PROP_DIRECT): its area is the
 * picture as it stands, not a panel turned with it, so display.rotate does not turn it
 * (libinput maps one so). A digitizer with neither is taken for a panel's. */
bool input_beside_screen(const struct libevdev *dev);

/* The map of a device: input_map_init's, upright for one beside the screen. */
void input_map_device(struct input_map *m, const struct libevdev *dev, int fb_width,
		      int fb_height, int rotate, const double *cal);
const char *input_class_name(enum input_class cls);

#endif
