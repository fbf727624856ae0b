/* vt_guard.h - a child that gives the console back when the daemon dies without doing so. */
#ifndef FBRIPPLE_VT_GUARD_H
#define FBRIPPLE_VT_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

struct vt_guard {
	int fd;			/* our end of the pipe; -1: no guard */
	pid_t pid;
};

/*
 * Forks the guard: it keeps vt_fd and its end of a pipe, closes every other descriptor and
 * ignores SIGTERM, SIGINT and SIGHUP. When the pipe ends without vt_guard_stop's word (the
 * daemon killed), it brings VT back_to to the front if it is not 0 (the application's, in idle
 * mode) and VT num, vt_fd's, is in front, puts VT num back in text mode with the kernel's own
 * switching, and exits.
 * Call it before the display is opened: a child is cheapest while the daemon is small. g->fd
 * must be -1 at first; with a guard running already it does nothing.
 * 0 or -errno (then there is no guard, and the daemon runs on without one).
 */
int vt_guard_start(struct vt_guard *g, int vt_fd, int num, int back_to);

/* The console is given back: the guard exits without touching it, and is reaped. */
void vt_guard_stop(struct vt_guard *g);

#endif
