/* input.h - touchscreens, mice and tablets through libevdev: classify, read, hotplug, and map
 * every contact to logical screen pixels for a callback. Knows nothing about water.
 *
 * The input folder: the devices (input.c), the thread that reads them (input_reader.c) and the
 * decoder (input_decode.c, its vocabulary in input_decode.h). It includes util/ only. */
#ifndef FBRIPPLE_INPUT_H
#define FBRIPPLE_INPUT_H

#include <linux/input.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input_decode.h"
#include "util/log.h"
#include "util/loop.h"

#define INPUT_DEVICES_MAX 32
#define INPUT_WAITING_MAX 16	/* devices that found every entry in use, opened as they free */
#define INPUT_CONTACTS_MAX (INPUT_DEVICES_MAX * INPUT_SLOTS)	/* contact ids run below it */
#define INPUT_PATH_MAX 64
#define INPUT_DIR_MAX 24	/* a folder's name and an eventN in it fit INPUT_PATH_MAX */

struct input_opts {
	const char *const *devices;	/* paths or name globs; NULL or empty: every device */
	int ndevices;
	bool only_listed;		/* an empty devices list matches nothing */
	bool grab;
	bool released;			/* at open: grab nothing until input_grab takes them */
	bool has_cal;			/* cal given in the config (else udev, else identity) */
	double cal[6];
	int fb_width, fb_height, rotate;
	int min_move;
	enum input_axes axes;
	const char *dir;		/* the event nodes' folder; NULL: /dev/input (tests use a
					 * folder of their own, shorter than INPUT_DIR_MAX) */
};

struct input;

/* Opens every matching device and a hotplug watch (udev monitor when udevd runs, else inotify
 * on /dev/input), registered in loop. Contacts go to fn, in order (one it returns false for
 * comes again in the next wake-up), messages to note. 0 or -errno. */
int input_open(struct input **in, const struct input_opts *opts, struct loop *loop,
	       input_take_fn *fn, input_note_fn *note, void *ctx);
void input_close(struct input *in);

/* Takes the devices (input.grab) or lets go of them, also those plugged in meanwhile: while
 * another VT is in front its programs must get the touches. A device with a touch or a press
 * under way is taken or let go once it ends, so that no program gets a touch without its
 * start or loses its lift. */
void input_grab(struct input *in, bool grab);

/* Closes every device (ending its contacts) and opens them again under new options. Unlike
 * input_close + input_open it frees nothing, so it is safe inside a loop handler. */
int input_reconfigure(struct input *in, const struct input_opts *opts);

/* Why path would not open (-ret), in why, which it returns: for EACCES also whose it is and what
 * would let fbripple's user read it (util/access.c), as the warning that it is retried says. */
const char *input_open_error(const char *path, int ret, char *why, size_t len);

/* Devices in use. */
int input_count(const struct input *in);

/* Every input device: path, name, class, why, and the ranges it maps; 0 or -errno. */
int input_list_devices(FILE *out, const struct input_opts *opts);

#endif
