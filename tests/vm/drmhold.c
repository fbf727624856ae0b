/* drmhold.c - guest helper: `drmhold [CARD]` is another process holding a DRM card, as a display
 * server does. It opens CARD (/dev/dri/card0), becomes its master and prints "master", or prints
 * "busy: REASON" and exits 1; on SIGTERM or SIGINT it drops master, prints "dropped" and exits.
 * Built static without libdrm (whose drm.h is the only one installed): raw ioctls, numbered
 * as in the kernel's include/uapi/drm/drm.h. Runs in the test VM. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DRM_IOCTL_SET_MASTER _IO('d', 0x1e)
#define DRM_IOCTL_DROP_MASTER _IO('d', 0x1f)

int main(int argc, char **argv)
{
	const char *card = argc > 1 ? argv[1] : "/dev/dri/card0";
	sigset_t stop;
	int fd, sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(card, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("busy: %s: %s\n", card, strerror(errno));
		return 1;
	}
	/* the first opener of a card without a master is its master already; SET_MASTER then
	 * succeeds at once, and fails with EBUSY while another process is master */
	if (ioctl(fd, DRM_IOCTL_SET_MASTER, 0) < 0) {
		printf("busy: %s: %s\n", card, strerror(errno));
		return 1;
	}
	printf("master\n");
	if (sigwait(&stop, &sig) != 0)
		return 1;
	if (ioctl(fd, DRM_IOCTL_DROP_MASTER, 0) < 0) {
		printf("drop master: %s\n", strerror(errno));
		return 1;
	}
	printf("dropped\n");
	close(fd);
	return 0;
}
