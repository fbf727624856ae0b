/* vt.h - the text console: graphics mode, VT switching by signals, restore on exit and crash. */
#ifndef FBRIPPLE_VT_H
#define FBRIPPLE_VT_H

#include <linux/vt.h>
#include <stdbool.h>
#include <stddef.h>

#include "vt_guard.h"

struct vt {
	int fd;			/* -1 when there is no VT */
	int num;		/* the N of /dev/ttyN */
	bool taken;
	int back_to;		/* idle mode: the application's VT, brought back to the front
				 * by the guard if we die while shown */
	struct vt_guard guard;	/* gives the console back if we are killed */
};

/*
 * Opens the VT to draw on: num if it is not 0, else our controlling terminal when that is a VT,
 * else the active one; switches to it if another is in front. 0, or -errno with err saying why
 * (-ENOENT: no VT at all, as on a serial console or with CONFIG_VT off).
 */
int vt_open(struct vt *vt, int num, char *err, size_t errlen);

/* Idle mode beside a kiosk application: the VT in front into *num, asked through vt when it
 * is open (an unprivileged service may open its own VT only), else /dev/tty0; 0 or -errno. */
int vt_front(const struct vt *vt, int *num);

/* Opens VT num without bringing it to the front, to be taken (vt_take, which no console redraw
 * follows on a VT not shown) and then shown by vt_show from VT front, the one in front. A
 * framebuffer application's VT in graphics mode with the kernel's own switching, which the
 * kernel never switches away from, is answered for (and keeps its mode); a switch not made
 * within a second gives -ETIMEDOUT. 0 or -errno (vt_open_behind: with err saying why). */
int vt_open_behind(struct vt *vt, int num, char *err, size_t errlen);
int vt_show(struct vt *vt, int front);

/* Gives the screen back to VT front (answering our own VT's release, without a signal), and
 * only then sets text mode on our VT, no longer shown, so that no console is drawn over the
 * picture. Closes vt, and stops its guard (with no VT, that is all). 0 or -errno of the
 * switch. */
int vt_give_to(struct vt *vt, int front);

/* Graphics mode (no cursor, no kernel messages drawn over us), and VT switches that ask first:
 * release_sig when the user switches away, acquire_sig when back; and a guard (vt_guard.h)
 * that undoes both if the daemon is killed (vt->guard.fd < 0: none could be had), and
 * refreshes the framebuffer device refresh (may be NULL) as vt_guard_start says. 0 or -errno. */
int vt_take(struct vt *vt, int release_sig, int acquire_sig, const char *refresh);

/* Answers to those signals, after drawing has stopped or before it resumes. */
int vt_ack_release(struct vt *vt);
int vt_ack_acquire(struct vt *vt);

/* Text mode and the kernel's own switching (VT_AUTO), whatever the VT was in when taken; the
 * caller clears the screen first so the console redraws on a clean screen. Also closes the VT
 * and sends the guard away. */
void vt_restore(struct vt *vt);

/*
 * On SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT: put back the display display_crash_guard names
 * (cleared, unless another VT is in front) and the console in text mode, then die of the
 * signal. Call again whenever vt changes; vt may be one with no VT. 0 or -errno.
 */
int vt_guard_crashes(const struct vt *vt);

/* No VT of our own (fbripple draws on the application's): a guard for the application's
 * frame alone (vt_keep_frame), which also refreshes the framebuffer device refresh
 * (vt_guard_start); stopped by vt_give_to or vt_restore. 0 or -errno. */
int vt_guard_alone(struct vt *vt, const char *refresh);

/* The application's frame (display_frame_file) for vt's guard to write back if fbripple dies
 * while shown over it; -1: none any longer. 0 or -errno (-ENOTCONN: no guard). */
int vt_keep_frame(struct vt *vt, int frame_fd);

/* The framebuffer device for vt's guard to refresh from now on (a display opened anew); 0 or
 * -errno (-ENOTCONN: no guard). */
int vt_keep_refresh(struct vt *vt, const char *refresh);

/* Whether another VT is in front, whose screen neither an exit nor a crash may clear. */
void vt_set_away(bool away);

#endif
