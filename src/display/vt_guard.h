/* vt_guard.h - a child that gives the console back when the daemon dies without doing so. */
#ifndef FBRIPPLE_VT_GUARD_H
#define FBRIPPLE_VT_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vt_guard {
	int fd;			/* our end of the socket pair; -1: no guard */
	pid_t pid;
};

/*
 * Forks the guard: it keeps vt_fd and its end of a socket pair, closes every other descriptor
 * and ignores SIGTERM, SIGINT and SIGHUP. When the socket ends without vt_guard_stop's word
 * (the daemon killed), it brings VT back_to to the front if it is not 0 (the application's,
 * in idle mode) and VT num, vt_fd's, is in front, the application's frame written back first
 * if it has one (vt_guard_frame), puts VT num back in text mode with the kernel's own
 * switching, and exits. refresh, if not NULL: the framebuffer device it writes back onto
 * itself after the switch, for a DRM card's fbdev emulation to show it anew. vt_fd -1: no VT
 * of ours (fbripple draws on the application's): the frame alone is written back, then
 * refresh onto itself.
 * A child is cheapest while the daemon is small; beside an application it is forked at each
 * show, and the pages the daemon writes while it runs are copied once. g->fd must be -1 at
 * first; with a guard running already it does nothing.
 * 0 or -errno (then there is no guard, and the daemon runs on without one).
 */
int vt_guard_start(struct vt_guard *g, int vt_fd, int num, int back_to, const char *refresh);

/* The longest framebuffer device path a guard is told, with its NUL. */
#define VT_GUARD_PATH 256

/* Tells the guard the framebuffer device to refresh from now on (vt_guard_start's refresh;
 * NULL: none), as when a reload opens another display. 0 or -errno (-ENOTCONN: no guard). */
int vt_guard_refresh(struct vt_guard *g, const char *refresh);

/* What a frame file (display_frame_file) starts with: rows of row_bytes follow, each to go
 * to path at offset + row * stride. */
struct vt_guard_frame {
	char path[VT_GUARD_PATH];
	uint64_t offset, stride, row_bytes, rows;
};

/* Hands the guard frame_fd, a frame file, to write back if the daemon dies while its VT is
 * in front (before the guard brings back_to to the front); -1: none any longer (hidden).
 * The guard keeps its own descriptor. 0 or -errno. */
int vt_guard_frame(struct vt_guard *g, int frame_fd);

/* The console is given back: the guard exits without touching it, and is reaped. */
void vt_guard_stop(struct vt_guard *g);

#endif
