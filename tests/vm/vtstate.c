/* vtstate.c - guest helper: prints the state of a virtual terminal and of the console, as
 * "vt N kd=text|graphics switching=auto|process active=M". Built static; runs in the test VM. */
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *tty = argc > 1 ? argv[1] : "/dev/tty7";
	struct vt_mode mode;
	struct vt_stat st;
	int fd = open(tty, O_RDWR | O_NOCTTY), kd;

	if (fd < 0 || ioctl(fd, KDGETMODE, &kd) < 0 || ioctl(fd, VT_GETMODE, &mode) < 0 ||
	    ioctl(fd, VT_GETSTATE, &st) < 0) {
		perror(tty);
		return 1;
	}
	printf("vt %s kd=%s switching=%s active=%d\n", tty + strcspn(tty, "0123456789"),
	       kd == KD_TEXT ? "text" : "graphics", mode.mode == VT_AUTO ? "auto" : "process",
	       st.v_active);
	close(fd);
	return 0;
}
