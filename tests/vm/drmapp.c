/* drmapp.c - guest helper: a kiosk application on DRM/KMS, as a Wayland compositor or Qt's
 * eglfs runs beside fbripple. Built static; runs inside the test VM.
 * Usage: drmapp TTY
 *   Takes TTY (/dev/ttyN) to the front in graphics mode with its switching under its own
 *   control (VT_PROCESS), as logind does for a compositor; becomes master of /dev/dri/card0 and
 *   shows a buffer of its own on the first connected connector, in the mode its CRTC has (the
 *   console's), painted with kioskapp's picture but for its blue: pixel (x, y) = R x*255/(W-1),
 *   G y*255/(H-1), B 0x40 (kioskapp's 0x80 may be left in /dev/fb0: a frame read from there is
 *   not this one). Prints "drawn WxH". Asked to release its VT it drops master, then lets the switch
 *   go ("released"); given it back, it takes master again and shows its buffer anew
 *   ("acquired", or "acquire: set master: ERROR" when another process still holds the card,
 *   which is what a compositor finds then: it cannot draw again), saying which buffer the
 *   CRTC showed till then: "its own" (put back by whoever had the card) or "another" (the
 *   console's, say, flashed up between). SIGHUP shows a second buffer of the same picture
 *   ("flipped"), as a compositor flips: the one a process that opened the card before no
 *   longer on screen. SIGTERM gives TTY back to
 *   the console. Only the kernel's headers (libdrm's copies of them): no libdrm. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>

static struct {
	int card;
	uint32_t crtc, conn, fb, fbs[2];
	struct drm_mode_modeinfo mode;
} app;

static int show(void)
{
	struct drm_mode_crtc crtc = { .crtc_id = app.crtc, .fb_id = app.fb, .mode_valid = 1,
				      .set_connectors_ptr = (uintptr_t)&app.conn,
				      .count_connectors = 1, .mode = app.mode };

	return ioctl(app.card, DRM_IOCTL_MODE_SETCRTC, &crtc);
}

/* The first connected connector, the CRTC its encoder drives and that CRTC's mode. */
static int find_output(void)
{
	uint32_t conns[16];
	struct drm_mode_card_res res = { .connector_id_ptr = (uintptr_t)conns,
					 .count_connectors = 16 };

	if (ioctl(app.card, DRM_IOCTL_MODE_GETRESOURCES, &res) < 0)
		return -1;
	for (uint32_t i = 0; i < res.count_connectors && i < 16; i++) {
		struct drm_mode_get_connector c = { .connector_id = conns[i] };
		struct drm_mode_get_encoder e = { 0 };
		struct drm_mode_crtc crtc = { 0 };

		if (ioctl(app.card, DRM_IOCTL_MODE_GETCONNECTOR, &c) < 0 ||
		    c.connection != 1 || !c.encoder_id)
			continue;
		e.encoder_id = c.encoder_id;
		if (ioctl(app.card, DRM_IOCTL_MODE_GETENCODER, &e) < 0 || !e.crtc_id)
			continue;
		crtc.crtc_id = e.crtc_id;
		if (ioctl(app.card, DRM_IOCTL_MODE_GETCRTC, &crtc) < 0 || !crtc.mode_valid)
			continue;
		app.conn = conns[i];
		app.crtc = e.crtc_id;
		app.mode = crtc.mode;
		return 0;
	}
	errno = ENODEV;
	return -1;
}

/* A dumb buffer of the mode's size, painted, as framebuffer *id. */
static int make_buffer(uint32_t *id)
{
	unsigned w = app.mode.hdisplay, h = app.mode.vdisplay;
	struct drm_mode_create_dumb dumb = { .width = w, .height = h, .bpp = 32 };
	struct drm_mode_map_dumb map = { 0 };
	struct drm_mode_fb_cmd fb = { .width = w, .height = h, .bpp = 32, .depth = 24 };
	uint8_t *px;

	if (ioctl(app.card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb) < 0)
		return -1;
	map.handle = fb.handle = dumb.handle;
	fb.pitch = dumb.pitch;
	if (ioctl(app.card, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0 ||
	    ioctl(app.card, DRM_IOCTL_MODE_ADDFB, &fb) < 0)
		return -1;
	px = mmap(NULL, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, app.card, map.offset);
	if (px == MAP_FAILED)
		return -1;
	for (unsigned y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(px + (size_t)y * dumb.pitch);

		for (unsigned x = 0; x < w; x++)
			row[x] = (x * 255 / (w - 1)) << 16 | (y * 255 / (h - 1)) << 8 | 0x40;
	}
	*id = app.fb = fb.fb_id;	/* the last one made is shown */
	return 0;
}

static int take_tty(const char *tty)
{
	struct vt_mode mode = { .mode = VT_PROCESS, .relsig = SIGUSR1, .acqsig = SIGUSR2 };
	int fd = open(tty, O_RDWR | O_NOCTTY), num = atoi(tty + strlen("/dev/tty"));

	if (fd < 0 || ioctl(fd, VT_ACTIVATE, num) < 0 || ioctl(fd, VT_WAITACTIVE, num) < 0 ||
	    ioctl(fd, KDSETMODE, KD_GRAPHICS) < 0 || ioctl(fd, VT_SETMODE, &mode) < 0)
		return -1;
	return fd;
}

static void say(const char *what, int err)
{
	if (err)
		printf("%s: %s\n", what, strerror(err));
	else
		printf("%s\n", what);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct vt_mode console = { .mode = VT_AUTO };
	sigset_t sigs;
	int tty, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: drmapp TTY\n");
		return 2;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((tty = take_tty(argv[1])) < 0) {
		say(argv[1], errno);
		return 1;
	}
	app.card = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (app.card < 0 || ioctl(app.card, DRM_IOCTL_SET_MASTER, 0) < 0 || find_output() < 0 ||
	    make_buffer(&app.fbs[1]) < 0 || make_buffer(&app.fbs[0]) < 0 || show() < 0) {
		say("/dev/dri/card0", errno);
		return 1;
	}
	printf("drawn %ux%u\n", app.mode.hdisplay, app.mode.vdisplay);
	fflush(stdout);
	while (sigwait(&sigs, &sig) == 0) {
		if (sig == SIGHUP) {
			app.fb = app.fb == app.fbs[0] ? app.fbs[1] : app.fbs[0];
			if (show() < 0)
				say("flip: set crtc", errno);
			else
				say("flipped", 0);
		} else if (sig == SIGUSR1) {
			int err = ioctl(app.card, DRM_IOCTL_DROP_MASTER, 0) < 0 ? errno : 0;

			ioctl(tty, VT_RELDISP, 1);
			say(err ? "release: drop master" : "released", err);
		} else if (sig == SIGUSR2) {
			struct drm_mode_crtc now = { .crtc_id = app.crtc };

			ioctl(tty, VT_RELDISP, VT_ACKACQ);
			if (ioctl(app.card, DRM_IOCTL_SET_MASTER, 0) < 0)
				say("acquire: set master", errno);
			else if (ioctl(app.card, DRM_IOCTL_MODE_GETCRTC, &now) < 0 || show() < 0)
				say("acquire: set crtc", errno);
			else
				say(now.fb_id == app.fb ? "acquired, its own buffer on screen" :
				    "acquired, another buffer on screen", 0);
		} else {
			ioctl(tty, VT_SETMODE, &console);
			ioctl(tty, KDSETMODE, KD_TEXT);
			return 0;
		}
	}
	return 1;
}
