/* vt_guard.c - a child that gives the console back when the daemon dies without doing so
 * (SIGKILL, the OOM killer): it holds the VT (if fbripple has one of its own), one end of a
 * socket pair and, while fbripple is shown over an application's frame, that frame; nothing
 * else. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vt_guard.h"

/* What the daemon writes before it lets go: the console is given back already. */
#define GUARD_CLEAN 'c'
/* A frame file comes with this byte; the other one says there is none any longer. */
#define GUARD_FRAME 'f'
#define GUARD_NO_FRAME 'n'
/* The framebuffer device to refresh from now on: VT_GUARD_PATH bytes of path follow. */
#define GUARD_REFRESH 'r'

static void close_range_of(int first, int last)
{
	if (first > last)
		return;
	if (syscall(SYS_close_range, (unsigned)first, (unsigned)last, 0u) == 0)
		return;
	for (int fd = first; fd <= last && fd < 65536; fd++)	/* a kernel before 5.9 */
		close(fd);
}

/* Every descriptor but a and b: the guard must hold no display, socket or input device, or a
 * killed daemon's card would stay open (and its master with it). */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	close_range_of(0, lo - 1);
	close_range_of(lo + 1, hi - 1);
	close_range_of(hi + 1, 0x7fffffff);
}

static bool in_front(int vt_fd, int num)
{
	struct vt_stat st;

	return ioctl(vt_fd, VT_GETSTATE, &st) == 0 && st.v_active == num;
}

/* Killed while shown beside an application: the switch back to its VT is answered here (our
 * VT put under the guard's control without signals), and only then is our VT, no longer in
 * front, put in text mode, so that no console is drawn over the application's picture. */
static int hand_back(int vt_fd, int back_to)
{
	static const struct vt_mode quiet = { .mode = VT_PROCESS };
	const struct timespec ms = { 0, 1000000L };

	if (ioctl(vt_fd, VT_SETMODE, &quiet) < 0 || ioctl(vt_fd, VT_ACTIVATE, back_to) < 0)
		return -1;
	/* a kernel worker makes the switch: answer once it asks, for at most half a second */
	for (int i = 0; i < 500; i++) {
		if (ioctl(vt_fd, VT_RELDISP, 1) == 0)
			return 0;
		if (errno != EINVAL)
			break;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* On a DRM card, a VT switch made without a DRM master leaves the kernel's fbdev emulation
 * showing a stale copy of the card's framebuffer device (black on bochs-drm), and an fbdev
 * application does not repaint: that device (path; /dev/fb1 for a second card) written with
 * what it holds makes the emulation copy the frame anew (a
 * write(), not a store through a mapping, which it did not copy here). Its frame written back
 * alone was not enough there either. On a plain fbdev driver this changes nothing. */
static void refresh_fbdev(const char *path)
{
	uint8_t chunk[4096];
	off_t off = 0;
	ssize_t n;
	int fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;

	if (fd < 0)
		return;
	while ((n = pread(fd, chunk, sizeof(chunk), off)) > 0 && pwrite(fd, chunk, (size_t)n, off) == n)
		off += n;
	close(fd);
}

/* The framebuffer device path refreshed, twice: the emulation's copy can go stale once more as
 * the card's release or a VT switch settles (once refreshed, bochs-drm was black in one run of
 * the VM case in three). */
static void show_anew(const char *path)
{
	refresh_fbdev(path);
	nanosleep(&(struct timespec){ 0, 200000000L }, NULL);
	refresh_fbdev(path);
}

/* The application's frame, as the daemon read it before drawing over it, written back row by
 * row where the frame file's header says. */
static void put_back_frame(int frame_fd)
{
	static uint8_t chunk[16384];
	struct vt_guard_frame head;
	int fd;

	if (frame_fd < 0 || pread(frame_fd, &head, sizeof(head), 0) != sizeof(head))
		return;
	head.path[sizeof(head.path) - 1] = '\0';
	fd = open(head.path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (uint64_t row = 0, from = sizeof(head); row < head.rows; row++) {
		for (uint64_t done = 0; done < head.row_bytes;) {
			size_t n = head.row_bytes - done < sizeof(chunk) ? head.row_bytes - done
									 : sizeof(chunk);

			if (pread(frame_fd, chunk, n, (off_t)from) != (ssize_t)n ||
			    pwrite(fd, chunk, n, (off_t)(head.offset + row * head.stride + done)) !=
				    (ssize_t)n)
				goto out;
			from += n;
			done += n;
		}
	}
out:
	close(fd);
}

/* One byte from the daemon into *c, and the descriptor that came with it into *fd (-1: none).
 * 1, 0 at the end, or -1. */
static ssize_t hear(int sock, char *c, int *fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;

	*fd = -1;
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return n;
}

/* The socket ends while the dead daemon's files are still being let go: its DRM card's last
 * close puts the console's framebuffer back on the CRTC, and only after that may the console
 * redraw or the application's frame be copied in. The daemon is past that once the guard is
 * no longer its child; a second at most. */
static void wait_for_release(pid_t daemon)
{
	const struct timespec ms = { 0, 1000000L };

	for (int i = 0; i < 1000 && getppid() == daemon; i++)
		nanosleep(&ms, NULL);
}

/* The guard's whole life: wait for the daemon's end; unless it said it was clean, put back
 * what its exit would have: the kernel's own VT switching and text mode, which makes the
 * console redraw its text. Only async-signal-safe calls: it runs in a fork of a daemon. */
static void guard_run(pid_t daemon, int vt_fd, int sock, int num, int back_to,
		      const char *refresh)
{
	static const struct vt_mode console = { .mode = VT_AUTO };
	static char told[VT_GUARD_PATH];
	bool clean = false;
	int frame = -1, fd;
	char c;
	ssize_t n;

	/* What reaches the daemon's whole cgroup or process group, the guard outlives: a stop's
	 * SIGTERM, the watchdog's SIGABRT, Ctrl-C's SIGINT and Ctrl-\'s SIGQUIT, a hang-up. The
	 * daemon answers them, and the guard cleans up after it. */
	static const int outlived[] = { SIGTERM, SIGABRT, SIGINT, SIGQUIT, SIGHUP };
	/* the daemon's crash handler, inherited, would act on the daemon's state of the fork */
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };

	for (size_t i = 0; i < sizeof(outlived) / sizeof(outlived[0]); i++)
		signal(outlived[i], SIG_IGN);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	prctl(PR_SET_NAME, "fbripple-guard");
	close_all_but(vt_fd, sock);
	if (chdir("/") < 0) {
		/* the directory it started in stays busy: nothing worse */
	}
	while ((n = hear(sock, &c, &fd)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		if (n == 1 && c == GUARD_CLEAN)
			clean = true;
		if (n == 1 && c == GUARD_REFRESH &&
		    recv(sock, told, sizeof(told), MSG_WAITALL) == sizeof(told)) {
			told[sizeof(told) - 1] = '\0';
			refresh = told[0] ? told : NULL;
		}
		if (n == 1 && (c == GUARD_FRAME || c == GUARD_NO_FRAME)) {
			if (frame >= 0)
				close(frame);
			frame = c == GUARD_FRAME ? fd : -1;
			fd = -1;
		}
		if (fd >= 0)
			close(fd);
	}
	if (clean)
		_exit(0);
	wait_for_release(daemon);
	if (vt_fd < 0) {	/* drawn on the application's own VT: its frame back */
		put_back_frame(frame);
		show_anew(refresh);
	} else if (back_to > 0 && in_front(vt_fd, num)) {
		put_back_frame(frame);	/* while our VT shows: no water on the app's VT */
		hand_back(vt_fd, back_to);
		show_anew(refresh);
	}
	if (vt_fd >= 0) {
		ioctl(vt_fd, VT_SETMODE, &console);
		ioctl(vt_fd, KDSETMODE, KD_TEXT);
	}
	_exit(0);
}

int vt_guard_start(struct vt_guard *g, int vt_fd, int num, int back_to, const char *refresh)
{
	int fds[2];
	pid_t daemon, pid;

	if (g->fd >= 0)		/* one guard for the VT, however often it is taken */
		return 0;
	g->pid = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -errno;
	daemon = getpid();
	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (pid == 0)
		guard_run(daemon, vt_fd, fds[0], num, back_to, refresh);
	close(fds[0]);
	g->fd = fds[1];
	g->pid = pid;
	return 0;
}

int vt_guard_frame(struct vt_guard *g, int frame_fd)
{
	char c = frame_fd >= 0 ? GUARD_FRAME : GUARD_NO_FRAME;
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (g->fd < 0)
		return -ENOTCONN;
	if (frame_fd >= 0) {
		struct cmsghdr *cm;

		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &frame_fd, sizeof(int));
	}
	return sendmsg(g->fd, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int vt_guard_refresh(struct vt_guard *g, const char *refresh)
{
	char msg[1 + VT_GUARD_PATH] = { GUARD_REFRESH };

	if (g->fd < 0)
		return -ENOTCONN;
	if (refresh && strlen(refresh) >= VT_GUARD_PATH)
		return -ENAMETOOLONG;
	if (refresh)
		memcpy(msg + 1, refresh, strlen(refresh));
	return send(g->fd, msg, sizeof(msg), MSG_NOSIGNAL) == (ssize_t)sizeof(msg) ? 0 : -errno;
}

void vt_guard_stop(struct vt_guard *g)
{
	char c = GUARD_CLEAN;

	if (g->fd < 0)
		return;
	if (send(g->fd, &c, 1, MSG_NOSIGNAL) < 0) {
		/* a guard already gone: nothing to tell */
	}
	close(g->fd);
	g->fd = -1;
	while (g->pid > 0 && waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	g->pid = -1;
}
