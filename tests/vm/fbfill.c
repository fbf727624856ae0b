/* fbfill.c - guest helper: paints a framebuffer in horizontal bands of given colours, prints
 * its geometry and pixel format, or watches its middle pixel, on the page the screen is
 * panned to; pans as an application that double-buffers does. Built static; runs in the VM. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: fbfill [-d DEV] [-i] [-g] [-t] [-M BPPxPAGES] [-P Y] [-m] [-w RRGGBB]"
		" [RRGGBB...]\n"
		"  -d DEV  framebuffer (default /dev/fb0)\n"
		"  -M B,N  set B bpp with a virtual height of N screens first, as an application does\n"
		"  -P Y    pan to line Y first (after -M), as an application that double-buffers does\n"
		"  -m      print the middle pixel as 'middle RRGGBB' (16 or 32 bpp)\n"
		"  -i      print geometry and format as one 'fb ...' line\n"
		"  -g      switch /dev/tty1 to KD_GRAPHICS first (no fbcon cursor)\n"
		"  -t      print 'mono USEC' (CLOCK_MONOTONIC, as systemd's timestamps) and exit\n"
		"  -w RGB  wait (up to 30 s) until the middle pixel is RGB (+-24 per channel) in\n"
		"          the framebuffer's memory; print 'seen USEC after SAMPLES' (or 'timeout')\n"
		"  -b MS   watch the middle pixel for MS ms, print 'black N of SAMPLES'\n"
		"  -c      count the writes to DEV (inotify's IN_MODIFY, which write() and pwrite()\n"
		"          raise, not stores through a mapping) until SIGTERM: print 'watching' once\n"
		"          watching, then 'writes N' (N is 0, or at least 1: inotify merges repeats)\n"
		"  RRGGBB  colours of equal horizontal bands, top to bottom\n");
	exit(2);
}

/* Scales an 8-bit channel into a bitfield of the pixel. */
static uint32_t chan(uint32_t v8, const struct fb_bitfield *f)
{
	if (f->length == 0)
		return 0;
	return (v8 >> (8 - (f->length > 8 ? 8 : f->length))) << f->offset;
}

static uint32_t pixel(const struct fb_var_screeninfo *v, uint32_t rgb)
{
	return chan(rgb >> 16 & 0xff, &v->red) | chan(rgb >> 8 & 0xff, &v->green) |
	       chan(rgb & 0xff, &v->blue);
}

static void fill_row(uint8_t *row, int width, int bytes, uint32_t px)
{
	for (int x = 0; x < width; x++)
		for (int b = 0; b < bytes; b++)
			row[x * bytes + b] = px >> (8 * b) & 0xff;
}

static void print_info(const struct fb_var_screeninfo *v, const struct fb_fix_screeninfo *f)
{
	printf("fb id=%.16s %ux%u virtual=%ux%u bpp=%u stride=%u red=%u/%u green=%u/%u "
	       "blue=%u/%u smem=%u\n", f->id, v->xres, v->yres, v->xres_virtual, v->yres_virtual,
	       v->bits_per_pixel, f->line_length, v->red.offset, v->red.length,
	       v->green.offset, v->green.length, v->blue.offset, v->blue.length, f->smem_len);
}

static int paint(int fd, const struct fb_var_screeninfo *v, const struct fb_fix_screeninfo *f,
		 char **colors, int n)
{
	size_t len = (size_t)f->line_length * (v->yoffset + v->yres);
	uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int bytes = (v->bits_per_pixel + 7) / 8;

	if (map == MAP_FAILED)
		return -errno;
	for (unsigned y = 0; y < v->yres; y++) {
		uint32_t rgb = strtoul(colors[(uint64_t)y * n / v->yres], NULL, 16);
		fill_row(map + (size_t)(v->yoffset + y) * f->line_length, v->xres, bytes,
			 pixel(v, rgb));
	}
	int rc = msync(map, len, MS_SYNC) ? -errno : 0;
	munmap(map, len);
	return rc;
}

static unsigned long long mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
}

static int near(uint32_t a, uint32_t b)
{
	for (int sh = 0; sh < 24; sh += 8) {
		int d = (int)(a >> sh & 0xff) - (int)(b >> sh & 0xff);

		if (d > 24 || d < -24)
			return 0;
	}
	return 1;
}

/* A field of px as 8 bits, its low bits 0. */
static uint32_t field8(uint32_t px, const struct fb_bitfield *f)
{
	return (px >> f->offset & ((1u << f->length) - 1)) << (8 - f->length);
}

/* The middle pixel of a 16 or 32 bpp mapping as 0xRRGGBB. */
static uint32_t middle(const volatile uint8_t *map, const struct fb_var_screeninfo *v,
		       const struct fb_fix_screeninfo *f)
{
	int bytes = v->bits_per_pixel / 8;
	size_t at = (size_t)(v->yoffset + v->yres / 2) * f->line_length +
		    (size_t)(v->xres / 2) * bytes;
	uint32_t px = 0;

	for (int b = bytes - 1; b >= 0; b--)
		px = px << 8 | map[at + b];
	return field8(px, &v->red) << 16 | field8(px, &v->green) << 8 | field8(px, &v->blue);
}

/* -w: until the middle is want; -b: for ms, counting the samples where it is black. Reads the
 * framebuffer's memory (32 bpp only) every millisecond. */
static int watch(int fd, const struct fb_var_screeninfo *v, const struct fb_fix_screeninfo *f,
		 const char *want, long ms)
{
	size_t len = (size_t)f->line_length * (v->yoffset + v->yres);
	volatile uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	unsigned long long end = mono_us() + (unsigned long long)ms * 1000;
	uint32_t rgb = want ? strtoul(want, NULL, 16) : 0;
	long samples = 0, dark = 0;
	int seen = 0;

	if (map == MAP_FAILED || v->bits_per_pixel != 32)
		return -1;
	while (!seen && mono_us() < end) {
		uint32_t got = middle(map, v, f);

		samples++;
		dark += (got >> 16 & 0xff) < 0x30 && (got >> 8 & 0xff) < 0x30 && (got & 0xff) < 0x30;
		seen = want && near(got, rgb);
		usleep(1000);
	}
	if (want)
		printf("%s %llu after %ld\n", seen ? "seen" : "timeout", mono_us(), samples);
	else
		printf("black %ld of %ld\n", dark, samples);
	munmap((void *)map, len);
	return 0;
}

/* -M and -P: a mode as an application sets it, or its pan; v and f read back. */
static int set_mode(int fd, struct fb_var_screeninfo *v, struct fb_fix_screeninfo *f,
		    unsigned bpp, unsigned pages, long y)
{
	struct fb_var_screeninfo want = *v;

	if (bpp) {
		want.bits_per_pixel = bpp;
		want.red = want.green = want.blue = want.transp = (struct fb_bitfield){ 0 };
		want.xres_virtual = want.xres;
		want.yres_virtual = pages * want.yres;
		want.xoffset = want.yoffset = 0;
	}
	if (y >= 0)
		want.yoffset = (unsigned)y;
	want.activate = FB_ACTIVATE_NOW;
	if (ioctl(fd, FBIOPUT_VSCREENINFO, &want) || ioctl(fd, FBIOGET_VSCREENINFO, v) ||
	    ioctl(fd, FBIOGET_FSCREENINFO, f))
		return -errno;
	return (!bpp || (v->bits_per_pixel == bpp && v->yres_virtual == pages * v->yres)) &&
	       (y < 0 || v->yoffset == (unsigned)y) ? 0 : -EINVAL;
}

static int print_middle(int fd, const struct fb_var_screeninfo *v,
			const struct fb_fix_screeninfo *f)
{
	size_t len = (size_t)f->line_length * (v->yoffset + v->yres);
	uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED || (v->bits_per_pixel != 32 && v->bits_per_pixel != 16))
		return -EINVAL;
	printf("middle %06x\n", middle(map, v, f));
	munmap(map, len);
	return 0;
}

static void graphics_mode(void)
{
	int tty = open("/dev/tty1", O_RDWR);

	if (tty < 0 || ioctl(tty, KDSETMODE, KD_GRAPHICS) < 0)
		perror("fbfill: KD_GRAPHICS on /dev/tty1");
	if (tty >= 0)
		close(tty);
}

static volatile sig_atomic_t counted_enough;

static void on_term(int sig)
{
	(void)sig;
	counted_enough = 1;
}

static int count_writes(const char *dev)
{
	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART: ppoll ends */
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	sigset_t term, none;
	struct pollfd p = { .events = POLLIN };
	long writes = 0;
	ssize_t len;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &term, NULL);	/* delivered only inside ppoll: no lost wake-up */
	sigaction(SIGTERM, &sa, NULL);
	p.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p.fd < 0 || inotify_add_watch(p.fd, dev, IN_MODIFY) < 0)
		return -errno;
	printf("watching\n");
	fflush(stdout);
	while (!counted_enough) {
		if (ppoll(&p, 1, NULL, &none) < 0 && errno != EINTR)
			break;
		while ((len = read(p.fd, buf, sizeof(buf))) > 0)
			for (ssize_t at = 0; at < len; writes++)
				at += (ssize_t)(sizeof(struct inotify_event) +
						((const struct inotify_event *)(buf + at))->len);
	}
	printf("writes %ld\n", writes);
	close(p.fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/fb0";
	int info = 0, show_middle = 0, opt, fd, rc = 0;
	unsigned bpp = 0, pages = 1;
	long pan_y = -1;
	const char *wait_rgb = NULL;
	long watch_ms = 0;
	int count = 0;
	struct fb_var_screeninfo v;
	struct fb_fix_screeninfo f;

	while ((opt = getopt(argc, argv, "d:igtw:b:M:P:mc")) != -1) {
		if (opt == 'c') {
			count = 1;
		} else if (opt == 't') {
			printf("mono %llu\n", mono_us());
			return 0;
		} else if (opt == 'w')
			wait_rgb = optarg;
		else if (opt == 'b')
			watch_ms = strtol(optarg, NULL, 10);
		else if (opt == 'd')
			dev = optarg;
		else if (opt == 'i')
			info = 1;
		else if (opt == 'M' && sscanf(optarg, "%ux%u", &bpp, &pages) == 2 && pages >= 1)
			;
		else if (opt == 'P')
			pan_y = strtol(optarg, NULL, 10);
		else if (opt == 'm')
			show_middle = 1;
		else if (opt == 'g')
			graphics_mode();
		else
			usage();
	}
	if (count) {	/* the node watched, the device itself never opened */
		rc = count_writes(dev);
		if (rc)
			fprintf(stderr, "fbfill: %s: %s\n", dev, strerror(-rc));
		return rc ? 1 : 0;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0 || ioctl(fd, FBIOGET_VSCREENINFO, &v) || ioctl(fd, FBIOGET_FSCREENINFO, &f)) {
		fprintf(stderr, "fbfill: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (bpp || pan_y >= 0)
		rc = set_mode(fd, &v, &f, bpp, pages, pan_y);
	if (info)
		print_info(&v, &f);
	if (!rc && show_middle)
		rc = print_middle(fd, &v, &f);
	if (wait_rgb || watch_ms > 0)
		rc = watch(fd, &v, &f, wait_rgb, wait_rgb ? 30000 : watch_ms) ? -EINVAL : 0;
	if (!rc && optind < argc)
		rc = paint(fd, &v, &f, argv + optind, argc - optind);
	if (rc)
		fprintf(stderr, "fbfill: %s: %s\n", dev, strerror(-rc));
	close(fd);
	return rc ? 1 : 0;
}
