/* reload.h - what a new configuration changes, so that a reload applies only that. */
#ifndef FBRIPPLE_RELOAD_H
#define FBRIPPLE_RELOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

enum reload_change {
	RELOAD_DISPLAY = 1 << 0,	/* another device or rotation: reopen the display */
	RELOAD_FPS = 1 << 1,		/* the frame timer's period */
	RELOAD_SPLASH = 1 << 2,		/* the picture: file, its contents, scale or background */
	RELOAD_WATER = 1 << 3,		/* damping: the next step, the waves in flight kept */
	RELOAD_STONE = 1 << 4,		/* read at each drop: nothing to do but say so */
	RELOAD_RAIN = 1 << 5,
	RELOAD_IDLE = 1 << 6,		/* rain.idle_after, screensaver.blank_after */
	RELOAD_CONTROL = 1 << 7,	/* the control socket's path */
	RELOAD_LOG = 1 << 8,
	RELOAD_INPUT = 1 << 9,		/* devices, grab, trails, calibration: reconfigure input */
	RELOAD_RESTART = 1 << 10,	/* display.vt, display.double_buffer: only at start */
	RELOAD_GRID = 1 << 11,		/* water.cell or engine: a new grid, the water starts calm */
	RELOAD_WALLS = 1 << 12,		/* water.obstacles' file or contents (service.c sees it) */
	RELOAD_THREADS = 1 << 13,	/* display.threads: a new pool */
};

/* Identifies the contents of a splash file without reading it: a file rewritten in place or
 * replaced by rename changes its ctime, mtime, size or inode. All zero for "" or a missing file. */
struct reload_file_id {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

void reload_file_id(const char *path, struct reload_file_id *id);

/* The reload_change bits for going from old to new; pure. */
unsigned reload_changes(const struct config *old, const struct config *new,
			const struct reload_file_id *old_splash,
			const struct reload_file_id *new_splash);

/* "display splash water" for the log; buf is always terminated. */
void reload_describe(unsigned changes, char *buf, size_t len);

#endif
