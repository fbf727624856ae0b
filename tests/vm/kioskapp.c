/* kioskapp.c - guest helper: a kiosk application on the framebuffer, as fbripple's idle mode
 * finds one. Built static; runs inside the test VM.
 * Usage: kioskapp TTY DEVICE-NAME SOCKET
 *   Takes TTY (/dev/ttyN) to the front in graphics mode (as Qt's linuxfb does), paints
 *   /dev/fb0 with a gradient, pixel (x, y) = R x*255/(W-1), G y*255/(H-1), B 0x80, flushes it,
 *   and prints "drawn WxH". Then counts the touch-downs (BTN_TOUCH 1) of the input device named
 *   DEVICE-NAME, read without grabbing it, writing the count to /tmp/app.count after each, and
 *   the lifts (BTN_TOUCH 0) to /tmp/app.lifts (a lift without its touch counts too); and
 *   connects to fbripple's control SOCKET (retrying) to "watch", appending every line it hears
 *   to /tmp/app.events. Draws nothing more: like Qt after a VT switch, it never repaints.
 *   SIGTERM puts TTY back in text mode (else no VT switch away from it ever happens again). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <linux/input.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "evfind.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int take_tty(const char *tty)
{
	int fd = open(tty, O_RDWR | O_NOCTTY), num = atoi(tty + strlen("/dev/tty"));

	if (fd < 0 || ioctl(fd, VT_ACTIVATE, num) < 0 || ioctl(fd, VT_WAITACTIVE, num) < 0 ||
	    ioctl(fd, KDSETMODE, KD_GRAPHICS) < 0) {
		fprintf(stderr, "kioskapp: %s: %s\n", tty, strerror(errno));
		return -1;
	}
	return fd;		/* kept open: the mode lasts while the app runs */
}

static int paint(void)
{
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	int fd = open("/dev/fb0", O_RDWR);
	uint8_t *map;

	if (fd < 0 || ioctl(fd, FBIOGET_VSCREENINFO, &var) < 0 ||
	    ioctl(fd, FBIOGET_FSCREENINFO, &fix) < 0 || var.bits_per_pixel != 32) {
		fprintf(stderr, "kioskapp: /dev/fb0: not a 32 bpp framebuffer\n");
		return -1;
	}
	map = mmap(NULL, fix.smem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	for (unsigned y = 0; y < var.yres; y++) {
		uint32_t *row = (uint32_t *)(map + (size_t)(y + var.yoffset) * fix.line_length);

		for (unsigned x = 0; x < var.xres; x++)
			row[x] = (x * 255 / (var.xres - 1)) << var.red.offset |
				 (y * 255 / (var.yres - 1)) << var.green.offset |
				 0x80u << var.blue.offset;
	}
	msync(map, fix.smem_len, MS_SYNC);
	printf("drawn %ux%u\n", var.xres, var.yres);
	fflush(stdout);
	return 0;
}

static void write_count(const char *path, int n)
{
	char tmp[64];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "w")))
		return;
	fprintf(f, "%d\n", n);
	fclose(f);
	rename(tmp, path);
}

static int watch(const char *sock)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    write(fd, "watch\n", 6) != 6) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* What the watch connection brought, appended to /tmp/app.events; 0 at its end. */
static ssize_t log_events(int fd)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf));
	FILE *f = n > 0 ? fopen("/tmp/app.events", "a") : NULL;

	if (f) {
		fwrite(buf, 1, (size_t)n, f);
		fclose(f);
	}
	return n;
}

int main(int argc, char **argv)
{
	char path[64];
	struct input_event ev[64];
	struct sigaction sa = { .sa_handler = on_term };
	int in, ctl = -1, touches = 0, lifts = 0, tty;

	if (argc != 4) {
		fprintf(stderr, "usage: kioskapp TTY DEVICE-NAME SOCKET\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	if ((tty = take_tty(argv[1])) < 0 || paint() < 0)
		return 1;
	if (evfind_by_name(argv[2], path, sizeof(path)) < 0 || (in = open(path, O_RDONLY)) < 0) {
		fprintf(stderr, "kioskapp: no input device named '%s'\n", argv[2]);
		return 1;
	}
	write_count("/tmp/app.count", 0);
	write_count("/tmp/app.lifts", 0);
	for (;;) {
		struct pollfd p[2] = { { in, POLLIN, 0 }, { ctl, POLLIN, 0 } };
		ssize_t n;

		if (stop) {
			ioctl(tty, KDSETMODE, KD_TEXT);
			return 0;
		}
		if (ctl < 0)
			ctl = watch(argv[3]);
		if (poll(p, 2, 100) <= 0)
			continue;
		if (ctl >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    log_events(ctl) <= 0) {
			close(ctl);
			ctl = -1;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		n = read(in, ev, sizeof(ev));
		for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(ev[0]); i++)
			if (ev[i].type == EV_KEY && ev[i].code == BTN_TOUCH && ev[i].value == 1)
				write_count("/tmp/app.count", ++touches);
			else if (ev[i].type == EV_KEY && ev[i].code == BTN_TOUCH && ev[i].value == 0)
				write_count("/tmp/app.lifts", ++lifts);
	}
}
