/* screen_app.c - beside a kiosk application: standing by on its screen, then the show and the
 * hide: its frame read and put back, our VT taken and given back, the console guard's frame. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "screen_internal.h"
#include "image/image.h"

/* screensaver.mode idle: the app's screen until shown. Nothing drawn, the display let go (a
 * DRM master dropped), no VT of ours, and nothing of it cleared on exit or crash. */
void screen_stand_by(struct screen *s)
{
	int ret;

	/* the application's screen lit, if ours was blanked: it would stay dark for good */
	if (s->blanked && !s->away)
		display_blank(&s->display, false);
	s->standby = s->away = true;
	vt_set_away(true);
	ret = display_release(&s->display);
	screen_say_release(s, ret);
}

/* On a DRM card, what an fbdev application (or the console) shows is the card's fbdev
 * emulation: /dev/fb0 where sysfs cannot tell which it is; NULL when the card has none. */
static const char *card_fbdev(struct screen *s)
{
	int ret = display_drm_fbdev(s->display.path, s->card_fb, sizeof(s->card_fb));

	if (ret == -ENODEV)
		return NULL;
	if (ret < 0)
		snprintf(s->card_fb, sizeof(s->card_fb), "/dev/fb0");
	return s->card_fb;
}

/* The framebuffer device the console's guard writes onto itself once fbripple is gone, for it
 * to show anew: the display's own, or on a DRM card its fbdev emulation, through which the
 * application (or the console) draws, and not /dev/fb0, another card's on a machine with two. */
static const char *guard_refresh(struct screen *s)
{
	return s->display.ops == &display_drm ? card_fbdev(s) : s->display.path;
}

static int read_fbdev_frame(const char *device, struct image *img)
{
	struct display_request req = { .device = device, .buffering = DISPLAY_BUFFER_OFF,
				       .hidden = true, .keep_depth = true };
	struct display fb;
	char err[256];
	int ret = display_open(&fb, &req, err, sizeof(err));

	if (ret < 0)
		return ret;
	ret = display_read(&fb, img);
	display_close(&fb, false);
	return ret;
}

/* A DRM application's buffer, the CRTC scans out: its handle is given only to the card's
 * master or to CAP_SYS_ADMIN, so a user's fbripple reads it once it is master, the VT taken. */
static const char not_master[] = "the application draws with DRM: its buffer can be read only "
				 "by the card's master or with CAP_SYS_ADMIN";

/* Whether the app's frame read is the screen's size: else freed, and why. */
static const char *frame_fits(struct screen *s)
{
	if (s->app_frame.width == s->display.mode.width &&
	    s->app_frame.height == s->display.mode.height)
		return NULL;
	image_free(&s->app_frame);
	return "another size than the screen's";
}

static const char *read_drm_app_frame(struct screen *s)
{
	int ret;

	s->app_source = s->display.path;
	ret = display_read_another(&s->display, &s->app_frame);
	if (ret == -EACCES)
		return not_master;
	if (ret == -EMEDIUMTYPE)
		return "the application's buffer is tiled or of a layout fbripple cannot read";
	if (ret == -ERANGE)
		return "the application's buffer does not hold the whole screen";
	if (ret == -EXDEV)
		return "the driver does not map the application's buffer for reading";
	if (ret == -ENOTSUP)
		return "the kernel cannot hand the application's buffer over (it takes Linux 5.7)";
	return ret < 0 ? strerror(-ret) : frame_fits(s);
}

/* The frame the app shows, as the display holds it, read before anything of ours is drawn:
 * hiding puts it back. On a DRM card only for "@screen": hiding puts the CRTC back, and the
 * card's memory is slow to read. */
static const char *read_app_frame(struct screen *s, const struct config *cfg)
{
	bool drm = s->display.ops == &display_drm;
	const char *why = NULL;
	int ret;

	image_free(&s->app_frame);
	if (drm && strcmp(cfg->splash.image, SCREEN_SPLASH_APP) != 0)
		return NULL;
	s->app_source = drm ? card_fbdev(s) : s->display.path;
	if (drm && display_shows_another(&s->display)) {
		why = read_drm_app_frame(s);
	} else if (!s->app_source) {
		s->app_source = s->display.path;
		why = "the card has no framebuffer device (fbdev emulation) to read it from";
	} else {
		ret = drm ? read_fbdev_frame(s->app_source, &s->app_frame)
			  : display_read(&s->display, &s->app_frame);
		if (ret == -EMEDIUMTYPE)
			why = "the application's depth is not one fbripple can read";
		else if (ret < 0)
			why = screen_acquire_error(ret);
		else
			why = frame_fits(s);
	}
	return why;
}

/* With splash.image "@screen" the app's frame becomes the picture under the water; a frame
 * that could not be read, or a screen turned by display.rotate, leaves the picture there was
 * before, with one line saying why. */
static void ripple_app_frame(struct screen *s, const struct config *cfg, const char *why)
{
	int ret;

	if (strcmp(cfg->splash.image, SCREEN_SPLASH_APP) != 0)
		return;
	if (!why && s->render.rotate)
		why = "the screen is turned by display.rotate";
	if (!why && (ret = render_set_splash(&s->render, &s->app_frame)) < 0)
		why = strerror(-ret);
	if (why)
		log_warn("splash %s: cannot ripple the application's frame from %s (%s); rippling "
			 "the picture there was before", SCREEN_SPLASH_APP, s->app_source, why);
}

/* A reload made a new picture: with splash.image "@screen" while shown, the app's frame read
 * at the show is the picture again (the file gives none to make). */
void screen_keep_app_frame(struct screen *s, const struct config *cfg)
{
	if (s->app_frame.pixels)
		ripple_app_frame(s, cfg, NULL);
}

/* A reload opened another display while a guard runs: its framebuffer is the one to refresh
 * (in always mode the guard refreshes none, and a show forks a new one). */
void screen_guard_new_display(struct screen *s)
{
	int ret;

	if (s->vt.guard.fd < 0 || (s->vt.fd >= 0 && s->vt.back_to <= 0))
		return;
	ret = vt_keep_refresh(&s->vt, guard_refresh(s));
	if (ret < 0)
		log_warn("%s: cannot tell the console's guard of it: %s", s->display.path,
			 strerror(-ret));
}

/* No VT of fbripple's own: a guard of the app's frame alone, on a device (a file is nobody's
 * screen), which then has the framebuffer show anew (guard_refresh). */
static void guard_frame_alone(struct screen *s)
{
	int ret;

	if (!s->display.node_dev)
		return;
	ret = vt_guard_alone(&s->vt, guard_refresh(s));
	if (ret < 0)
		log_warn("no guard process (%s); killed, fbripple would leave its water on the "
			 "application's screen", strerror(-ret));
}

/* display.vt names fbripple's own VT: taken in graphics mode while still behind (so that no
 * console is drawn on the app's picture), then brought to the front; the VT in front is
 * remembered. Else fbripple draws on the VT in front, whatever mode its owner set, and only
 * the app's frame is guarded. Whether a VT of fbripple's is in front now (display.vt already
 * in front is the application's own). */
static bool take_vt(struct screen *s, int num)
{
	char err[256];
	int front = 0, ret;

	s->app_vt = 0;
	if (!num) {
		guard_frame_alone(s);
		return false;
	}
	ret = vt_open_behind(&s->vt, num, err, sizeof(err));
	if (ret == 0)
		ret = vt_front(&s->vt, &front);
	s->vt.back_to = front != num ? front : 0;
	if (ret == 0)
		ret = vt_take(&s->vt, SIGUSR1, SIGUSR2, guard_refresh(s));
	if (ret == 0 && front != num)
		ret = vt_show(&s->vt, front);
	if (ret == 0) {
		s->app_vt = front != num ? front : 0;
		vt_guard_crashes(&s->vt);
		return front != num;
	}
	if (s->vt.fd >= 0) {
		snprintf(err, sizeof(err), "VT %d: %s", num, strerror(-ret));
		vt_give_to(&s->vt, front);
	}
	log_warn("%s; drawing on the VT in front", err);
	return false;
}

static void give_vt_back(struct screen *s)
{
	int ret = vt_give_to(&s->vt, s->app_vt);

	if (ret < 0)
		log_warn("VT %d: cannot bring it back to the front: %s", s->app_vt, strerror(-ret));
	vt_guard_crashes(&s->vt);
	s->app_vt = 0;
}

/* Shown over the app's frame: the guard keeps the frame, to write it back should fbripple die
 * while drawing over it (on DRM it draws on buffers of its own: nothing to keep). */
void screen_guard_app_frame(struct screen *s)
{
	int fd, ret;

	if (!s->app_frame.pixels)
		return;
	fd = display_frame_file(&s->display, &s->app_frame);
	ret = vt_keep_frame(&s->vt, fd);	/* no file: the frame kept before is dropped */
	if (fd >= 0)
		close(fd);
	if (fd < 0 && fd != -ENOTSUP)
		ret = fd;
	if (ret < 0 && ret != -ENOTSUP && ret != -ENOTCONN)
		log_warn("%s: cannot keep the application's frame for a crash: %s", s->display.path,
			 strerror(-ret));
}

/* Idle over: the app's frame read, the VT taken, the display acquired and the picture drawn
 * on calm water: what the app showed, when splash.image is "@screen". -EBUSY: another process
 * holds the display (a DRM master); then everything stays as it was, said once in the log. */
int screen_show(struct screen *s, const struct config *cfg)
{
	const char *why = read_app_frame(s, cfg);
	int ret;

	s->shared = !take_vt(s, cfg->display.vt);
	display_share(&s->display, s->shared);
	ret = display_acquire(&s->display);
	if (ret < 0) {
		log_warn("%s: cannot take the screen: %s; staying hidden until the next idle spell",
			 s->display.path, screen_acquire_error(ret));
		give_vt_back(s);
		image_free(&s->app_frame);
		return ret;
	}
	if (why == not_master)	/* master now, on the VT taken in graphics mode */
		why = display_shows_another(&s->display) ? read_drm_app_frame(s) :
			"the application's buffer left the screen when its VT was switched";
	ripple_app_frame(s, cfg, why);
	screen_guard_app_frame(s);
	s->standby = s->away = false;
	vt_set_away(false);
	water_clear(&s->water);
	screen_redraw(s);
	return 0;
}

/* The first touch: the water damped hard, calm within screensaver.fade, whatever the engine:
 * each step halves the classic's heights and the hooke's heights and speeds, and sends the
 * springs half way back to rest with no speed left. */
void screen_fade(struct screen *s)
{
	struct water_tuning *t = &s->water.tuning;

	t->damping_shift = 1;
	t->damping = 0.5;
	t->velocity_shift = t->height_shift = 1;
	t->stiffness = 0.5;
	t->viscosity = 1.0;
}

/* The app's frame into the buffer the display hands out, and presented: present's result. */
static int present_app_frame(struct screen *s)
{
	struct display_buffer buf;

	display_events(&s->display, true);
	buf = display_buffer(&s->display);
	pixfmt_convert(&s->display.mode.fmt, &s->app_frame, buf.pixels, s->display.mode.stride);
	return display_present(&s->display);
}

/* The app's frame into the display as it was read, and shown. Refused (-EAGAIN), it is the
 * frame presented last, which the release leaves on screen where it cannot put back what it
 * found; a display that gave up flipping, or put our mode back, gets it again, as screen_draw
 * draws a frame whole after those: twice at most, so the loop waits for nothing more. */
void screen_put_back_frame(struct screen *s)
{
	int pages = s->display.mode.pages, ret;

	/* a reload while shown may have opened another mode */
	if (!s->app_frame.pixels || s->gone || s->app_frame.width != s->display.mode.width ||
	    s->app_frame.height != s->display.mode.height)
		return;
	ret = present_app_frame(s);
	if (ret < 0 && ret != -EIO && s->display.mode.pages < pages) {
		screen_one_page_left(s, ret);
		ret = present_app_frame(s);	/* on the page on screen */
	} else if (ret == -ESTALE) {
		screen_mode_put_back(s);
		ret = present_app_frame(s);	/* in the mode put back */
	}
	if (ret == -ENODEV)
		screen_lose_display(s);
	else if (ret < 0 && ret != -EAGAIN)
		log_warn("%s: the application's frame may not show again: %s", s->display.path,
			 ret == -EIO ? screen_acquire_error(ret) : strerror(-ret));
	display_flush(&s->display);
}

/* The fade over: the last frame exactly the picture, the app's own frame put back, its VT in
 * front again, the display let go. */
void screen_hide(struct screen *s, const struct config *cfg)
{
	if (s->standby)
		return;
	water_clear(&s->water);
	if (!s->away)
		screen_redraw(s);
	screen_apply_look(s, cfg);
	if (!s->away)
		screen_put_back_frame(s);
	image_free(&s->app_frame);
	vt_keep_frame(&s->vt, -1);	/* the app draws again: a frame kept would be stale */
	/* the display let go before the switch: an application that takes DRM master back as its
	 * VT returns (a Wayland compositor, through logind) must find nobody holding it */
	screen_stand_by(s);
	give_vt_back(s);
}
