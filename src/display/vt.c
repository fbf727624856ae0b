/* vt.c - the virtual terminal under the framebuffer: take it, share it, give it back. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/major.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "display.h"
#include "vt.h"

/* The only state outside a struct: a fatal signal handler cannot be passed any. */
static struct {
	int vt_fd;
	int back_to;
	volatile sig_atomic_t away;	/* another VT in front: its screen is not ours to clear */
} crash = { .vt_fd = -1 };

/* No VT, no guard. */
static void vt_reset(struct vt *vt)
{
	memset(vt, 0, sizeof(*vt));
	vt->fd = vt->guard.fd = -1;
	vt->guard.pid = -1;
}

static int own_vt(void)
{
	struct stat st;

	if (fstat(STDIN_FILENO, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != TTY_MAJOR)
		return 0;
	return minor(st.st_rdev) >= 1 && minor(st.st_rdev) <= 63 ? (int)minor(st.st_rdev) : 0;
}

static int active_vt(int *num)
{
	struct vt_stat st;
	int fd = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, VT_GETSTATE, &st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	close(fd);
	*num = st.v_active;
	return 0;
}

int vt_front(const struct vt *vt, int *num)
{
	struct vt_stat st;

	if (vt->fd < 0)
		return active_vt(num);
	if (ioctl(vt->fd, VT_GETSTATE, &st) < 0)
		return -errno;
	*num = st.v_active;
	return 0;
}

int vt_open_behind(struct vt *vt, int num, char *err, size_t errlen)
{
	char path[32];

	vt_reset(vt);
	snprintf(path, sizeof(path), "/dev/tty%d", num);
	vt->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (vt->fd < 0) {
		int ret = -errno;

		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	vt->num = num;
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Until VT num is in front, a second at most (VT_WAITACTIVE would wait for ever). */
static int wait_active(int fd, int num)
{
	struct vt_stat st;

	for (int i = 0; i < 500; i++) {
		if (ioctl(fd, VT_GETSTATE, &st) < 0)
			return -errno;
		if (st.v_active == num)
			return 0;
		sleep_ms(2);
	}
	return -ETIMEDOUT;
}

/*
 * Brings VT num to the front from the VT in front, whose fd is from_fd, within about a second,
 * never waiting longer. The kernel ignores every switch away from a VT in graphics mode with
 * its own switching (a framebuffer application's, as Qt's linuxfb leaves it), and waits for
 * the owner of a VT under process control: such a VT of the application's, and ours, are put
 * under our control without signals for the switch and answered here; the application's gets
 * its mode back. A VT another process controls answers for itself.
 */
static int switch_over(int from_fd, int num, bool ours)
{
	struct vt_mode mode, quiet = { .mode = VT_PROCESS };
	struct vt_stat st;
	int kd = KD_TEXT, ret = 0;
	bool answer;

	if (ioctl(from_fd, VT_GETSTATE, &st) < 0 || ioctl(from_fd, VT_GETMODE, &mode) < 0)
		return -errno;
	if (st.v_active == num)
		return 0;
	ioctl(from_fd, KDGETMODE, &kd);
	answer = ours || (mode.mode == VT_AUTO && kd == KD_GRAPHICS);
	if (answer && ioctl(from_fd, VT_SETMODE, &quiet) < 0)
		return -errno;
	if (ioctl(from_fd, VT_ACTIVATE, num) < 0)
		ret = -errno;
	/* the switch is made by a kernel worker: answer once it asks */
	for (int i = 0; ret == 0 && answer && i < 500; i++) {
		if (ioctl(from_fd, VT_RELDISP, 1) == 0 || errno != EINVAL)
			break;
		sleep_ms(1);
	}
	if (ret == 0)
		ret = wait_active(from_fd, num);
	if (answer && !ours)
		ioctl(from_fd, VT_SETMODE, &mode);
	return ret;
}

int vt_show(struct vt *vt, int front)
{
	char path[32];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/tty%d", front);
	/* only ioctls on it: write access is all that the tty group's 0620 on a console grants */
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = switch_over(fd, vt->num, false);
	close(fd);
	return ret;
}

/* vt to the front, as vt_show does it: VT_WAITACTIVE would wait for ever where the VT in
 * front ignores the switch (an application's in graphics mode) or its owner never answers. A
 * user who may not open the VT in front (a service's, given only its own) switches from its
 * own VT, which answers for nobody. */
static int bring_to_front(struct vt *vt)
{
	int front = 0, ret = vt_front(vt, &front);

	if (ret < 0 || front == vt->num)
		return ret;
	ret = vt_show(vt, front);
	if (ret != -EACCES && ret != -EPERM)
		return ret;
	return ioctl(vt->fd, VT_ACTIVATE, vt->num) < 0 ? -errno : wait_active(vt->fd, vt->num);
}

int vt_give_to(struct vt *vt, int front)
{
	struct vt_stat st;
	int ret = 0;

	if (vt->fd < 0) {
		vt_restore(vt);
		return 0;
	}
	/* the user switched elsewhere meanwhile: that VT stays in front */
	if (front > 0 && front != vt->num && ioctl(vt->fd, VT_GETSTATE, &st) == 0 &&
	    st.v_active == vt->num)
		ret = switch_over(vt->fd, front, true);
	vt_restore(vt);
	return ret;
}

int vt_open(struct vt *vt, int num, char *err, size_t errlen)
{
	char path[32];
	int ret;

	vt_reset(vt);
	if (!num)
		num = own_vt();
	if (!num) {
		ret = active_vt(&num);
		if (ret < 0) {
			snprintf(err, errlen, "no virtual terminal (/dev/tty0: %s)", strerror(-ret));
			return ret == -EACCES ? ret : -ENOENT;
		}
	}
	snprintf(path, sizeof(path), "/dev/tty%d", num);
	vt->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (vt->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	vt->num = num;
	ret = bring_to_front(vt);
	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot switch to it: %s", path, strerror(-ret));
		close(vt->fd);
		vt->fd = -1;
	}
	return ret;
}

int vt_take(struct vt *vt, int release_sig, int acquire_sig, const char *refresh)
{
	struct vt_mode mode = { .mode = VT_PROCESS, .relsig = release_sig,
				.acqsig = acquire_sig };

	if (ioctl(vt->fd, KDSETMODE, KD_GRAPHICS) < 0)
		return -errno;
	vt->taken = true;
	if (ioctl(vt->fd, VT_SETMODE, &mode) < 0)
		return -errno;
	vt_guard_start(&vt->guard, vt->fd, vt->num, vt->back_to, refresh);
	return 0;
}

int vt_ack_release(struct vt *vt)
{
	return ioctl(vt->fd, VT_RELDISP, 1) < 0 ? -errno : 0;
}

int vt_ack_acquire(struct vt *vt)
{
	return ioctl(vt->fd, VT_RELDISP, VT_ACKACQ) < 0 ? -errno : 0;
}

/*
 * The console's own state, not the one found at start: that may be the graphics mode and the
 * VT_PROCESS switching of a predecessor killed with SIGKILL, which nobody would ever undo.
 * Async-signal-safe.
 */
static void give_back(int fd)
{
	static const struct vt_mode console = { .mode = VT_AUTO };

	ioctl(fd, VT_SETMODE, &console);
	ioctl(fd, KDSETMODE, KD_TEXT);
}

void vt_restore(struct vt *vt)
{
	if (vt->fd >= 0 && vt->taken)
		give_back(vt->fd);
	vt_guard_stop(&vt->guard);	/* a guard of the application's frame alone too */
	if (vt->fd < 0)
		return;
	if (crash.vt_fd == vt->fd)
		crash.vt_fd = -1;
	close(vt->fd);
	vt->fd = -1;
	vt->taken = false;
}

/* The signals of a crash: faults, abort (the systemd watchdog's too), a seccomp filter's
 * trap, and Ctrl-\'s quit. */
static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT, SIGQUIT };

/* The thread that crashed first (0: none yet): it restores, the others wait for its end. */
static atomic_int crashed_tid;

/* sig's default action, now: the process ends. */
static void die_of(int sig)
{
	sigset_t one;

	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* Only async-signal-safe calls: plain stores, ioctl, signal, sigprocmask, raise. Every fatal
 * signal is blocked while it runs, so a fault within it ends the process at once. */
static void on_crash(int sig)
{
	int none = 0, self = (int)gettid();

	if (!atomic_compare_exchange_strong(&crashed_tid, &none, self)) {
		if (none == self)
			die_of(sig);	/* again in the thread restoring (an abort within) */
		for (;;)
			pause();
	}
	/* beside an application its frame is on screen, or ours over it: no black either way */
	display_crash_restore(!crash.away && crash.back_to <= 0);
	/* beside an application the guard hands its VT back once we are gone: text mode here,
	 * on our VT in front, would draw the console over the application's picture */
	if (crash.vt_fd >= 0 && crash.back_to <= 0)
		give_back(crash.vt_fd);
	die_of(sig);
}

void vt_set_away(bool away)
{
	crash.away = away;
}

int vt_guard_crashes(const struct vt *vt)
{
	struct sigaction sa = { .sa_handler = on_crash };

	if (atomic_load(&crashed_tid))	/* a crash under way: its handler stays as it set it */
		return 0;
	crash.vt_fd = vt->taken ? vt->fd : -1;
	crash.back_to = vt->taken ? vt->back_to : 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaddset(&sa.sa_mask, fatal[i]);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (sigaction(fatal[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

int vt_guard_alone(struct vt *vt, const char *refresh)
{
	return vt_guard_start(&vt->guard, -1, 0, 0, refresh);
}

int vt_keep_frame(struct vt *vt, int frame_fd)
{
	return vt_guard_frame(&vt->guard, frame_fd);
}

int vt_keep_refresh(struct vt *vt, const char *refresh)
{
	return vt_guard_refresh(&vt->guard, refresh);
}
