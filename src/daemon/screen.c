/* screen.c - what is on the screen: the console, the display and its VT switches, the water and
 * every frame (what it is made of: screen_setup.c; beside a kiosk application: screen_app.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "screen_internal.h"
#include "image/image.h"
#include "image/shot.h"

/* FBRIPPLE_TEST_STRIPES=1: every frame carries its number in its top and bottom 8 rows, so
 * that a screendump shows whether it holds one frame or parts of two. Read once, at start. */
static bool test_stripes(void)
{
	const char *env = getenv("FBRIPPLE_TEST_STRIPES");

	return env && strcmp(env, "1") == 0;
}

void screen_init(struct screen *s)
{
	*s = (struct screen){ .vt.fd = -1, .vt.guard.fd = -1, .events.fd = -1, .watch.fd = -1,
			      .display.watch_fd = -1, .display.watch = -1,
			      .stripes = test_stripes(),
			      .rain.rng = (uint64_t)time(NULL) * 2654435761u | 1 };
}

/* The display's device is gone: nothing to draw on until it comes back, and the daemon is
 * started anew then (the unit's Restart=, or whoever started it). */
void screen_lose_display(struct screen *s)
{
	if (s->gone)
		return;
	s->gone = true;
	log_error("%s: the display went away (its driver unbound or the device unplugged); "
		  "exiting", s->display.path);
}

static void on_display_node(struct loop_source *src, uint32_t events)
{
	struct screen *s = src->ctx;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	(void)events;
	while (read(src->fd, buf, sizeof(buf)) > 0)
		;
	if (display_gone(&s->display))
		screen_lose_display(s);
}

static void on_display_events(struct loop_source *src, uint32_t events)
{
	struct screen *s = src->ctx;

	(void)events;
	display_events(&s->display, false);
}

/* The display's events off the loop: before its descriptor closes. */
void screen_unwatch_display(struct screen *s)
{
	if (s->loop && s->events.fd >= 0)
		loop_remove(s->loop, &s->events);
	s->events.fd = -1;
}

/* The display open now on the loop: its events (page flips done), and its device node, to
 * notice the device going away at no cost until it does. */
void screen_watch_display(struct screen *s)
{
	int ret;

	screen_unwatch_display(s);
	s->events = (struct loop_source){ s->display.event_fd, on_display_events, s };
	if (!s->loop)
		return;
	if (s->watch.fd >= 0 && display_watch(&s->display, s->watch.fd) < 0)
		log_warn("%s: cannot watch it for going away", s->display.path);
	if (s->events.fd < 0)
		return;
	ret = loop_add(s->loop, &s->events);
	if (ret < 0) {
		/* the frames still go out: each waits for the flip before it, in screen_draw */
		log_warn("%s: events: %s", s->display.path, strerror(-ret));
		s->events.fd = -1;
	}
}

void screen_attach(struct screen *s, struct loop *loop)
{
	s->loop = loop;
	s->watch = (struct loop_source){ inotify_init1(IN_NONBLOCK | IN_CLOEXEC), on_display_node,
					 s };
	if (s->watch.fd >= 0 && loop_add(loop, &s->watch) < 0) {
		close(s->watch.fd);
		s->watch.fd = -1;
	}
	screen_watch_display(s);
}

/* The VT under the display, in graphics mode and switching only when we agree. Without one
 * fbripple still runs; the console may then draw over the water. */
void screen_open_console(struct screen *s, int vt)
{
	char err[256];
	int ret = vt_open(&s->vt, vt, err, sizeof(err));

	/* the guard of a VT with no application's to bring back refreshes nothing: text mode
	 * has the console redraw itself */
	if (ret == 0 && (ret = vt_take(&s->vt, SIGUSR1, SIGUSR2, NULL)) < 0)
		snprintf(err, sizeof(err), "VT %d: %s", s->vt.num, strerror(-ret));
	if (ret == 0 && s->vt.guard.fd < 0)
		log_warn("VT %d: no guard process; killed, fbripple would leave it in graphics mode",
			 s->vt.num);
	if (ret == 0) {
		log_debug("drawing on VT %d", s->vt.num);
		return;
	}
	log_warn("%s; drawing without one, the console may show through", err);
	vt_restore(&s->vt);
}

/* A crash puts back the display on screen and the console. */
void screen_guard_crashes(struct screen *s)
{
	display_crash_guard(&s->display);
	vt_guard_crashes(&s->vt);
}

static void log_buffering(const struct display *d, enum display_buffering mode)
{
	if (d->mode.pages == 2)
		log_info("%s: double buffered", d->path);
	else if (mode == DISPLAY_BUFFER_ON)
		log_warn("%s: cannot flip between two pages; single buffered", d->path);
	else if (mode == DISPLAY_BUFFER_AUTO)
		log_info("%s: single buffered (the device cannot flip pages)", d->path);
}

/* Opens the display into d; says why not, and why another device than the one asked for. */
int screen_open_display(struct display *d, const struct display_request *req)
{
	char err[256];
	int ret = display_open(d, req, err, sizeof(err));

	if (ret < 0) {
		log_error("%s: %s", d->path, err);
		return ret;
	}
	if (d->note[0])
		log_warn("%s", d->note);
	if (!req->file)
		log_buffering(d, req->buffering);
	return 0;
}

int screen_open(struct screen *s, const struct display_request *req)
{
	int ret = screen_open_display(&s->display, req);

	/* hidden from the start: a start that fails before standing by leaves the app's
	 * screen alone, as a crash does */
	if (ret == 0 && req->hidden) {
		s->standby = s->away = true;
		vt_set_away(true);
	}
	if (ret == 0)
		screen_guard_crashes(s);
	return ret;
}

/* Leaves the screen as found: cleared, in its old mode, the console in text mode so it
 * redraws itself. */
void screen_release(struct screen *s)
{
	pool_free(&s->pool);
	render_free(&s->render);
	water_free(&s->water);
	walls_free(&s->walls);
	if (s->loop && s->events.fd >= 0)
		loop_remove(s->loop, &s->events);
	s->events.fd = -1;
	display_close(&s->display, !s->away && !s->gone);
	screen_guard_crashes(s);	/* nothing of the display left for a crash to touch */
	vt_restore(&s->vt);
	if (s->watch.fd >= 0)
		close(s->watch.fd);
	s->watch.fd = -1;
}

/* Both return their work (water_drop's). */
long screen_drop(struct screen *s, int x, int y, int size, int weight)
{
	return water_drop(&s->water, x, y, size, weight);
}

long screen_trail_part(struct screen *s, struct water_trail *t, long budget)
{
	return water_trail_part(&s->water, t, budget);
}

/* rate drops a second (0: none) of size and weight from the next step on. */
void screen_set_rain(struct screen *s, double rate, int size, int weight)
{
	s->rain.rate = rate;
	s->rain.size = size;
	s->rain.weight = weight;
}

/* steps simulation steps of dt seconds each, the rain falling in every one. */
void screen_step(struct screen *s, int steps, double dt)
{
	for (int i = 0; i < steps; i++) {
		water_rain(&s->water, &s->rain, dt);
		water_step_pool(&s->water, &s->pool);
	}
}

bool screen_calm(const struct screen *s)
{
	return water_calm(&s->water);
}

/* Whether a frame is owed though the water may be calm: a page to draw whole, or a mode lost
 * to adopt (those frames ask for it, and draw nothing until it is done). */
bool screen_wants_frame(const struct screen *s)
{
	return !s->away && (s->mode_lost ? !s->mode_foreign : s->full_pages > 0);
}

/* The test stripes: frame number n in rows y0 .. y0 + 7, bit i the 8x8 square at x = 8i,
 * white for 1, black for 0; the rest of the rows as drawn. */
static void paint_stripes(const struct display_mode *m, uint8_t *pixels, int y0, uint32_t n)
{
	uint32_t white = pixfmt_pack(&m->fmt, 0xffffff), black = pixfmt_pack(&m->fmt, 0);

	for (int y = y0; y < y0 + 8 && y < m->height; y++) {
		uint8_t *row = pixels + (size_t)y * m->stride;

		for (int x = 0; x < 256 && x < m->width; x++) {
			uint32_t v = n >> (x / 8) & 1 ? white : black;

			if (m->fmt.bytes == 4)
				((uint32_t *)row)[x] = v;
			else if (m->fmt.bytes == 2)
				((uint16_t *)row)[x] = (uint16_t)v;
			else
				memcpy(row + 3 * x, &v, 3);	/* little-endian, as pixfmt says */
		}
	}
}

/* Another program set a mode on our VT, and the display put its own back: every page drawn
 * whole again. Said once; a program that keeps at it is not given a line a frame. */
void screen_mode_put_back(struct screen *s)
{
	s->full_pages = s->display.mode.pages;
	if (s->mode_resets++ == 0)
		log_warn("%s: another program set its mode while fbripple was drawing on it; "
			 "fbripple's put back (run fbset and the like before fbripple starts, or "
			 "restart it after)", s->display.path);
}

/* The display gave up flipping pages (the driver kept refusing to pan, or to flip on DRM):
 * one page from now on, the one on screen, drawn whole first. Once a display: it stays single
 * buffered. */
void screen_one_page_left(struct screen *s, int err)
{
	s->full_pages = s->display.mode.pages;
	log_warn("%s: the driver refused to %s the page drawn (%s); drawing on the page on "
		 "screen from now on, single buffered: frames may tear", s->display.path,
		 s->display.ops == &display_drm ? "flip to" : "pan to", strerror(-err));
}

/* Draws the water into the page off screen and shows it. full: every row, on every page. */
void screen_draw(struct screen *s, bool full)
{
	const struct display_mode *m = &s->display.mode;
	struct display_buffer buf;
	int pages = m->pages, ret;

	if (s->away || s->gone || s->mode_lost)
		return;
	if (full)
		s->full_pages = s->display.mode.pages;
	full = s->full_pages > 0;
	s->full_pages -= full;
	/* a new renderer (a reload's) or a new pool: scratch for its bands, made once */
	if (s->render.bands != s->pool.threads)
		render_set_bands(&s->render, s->pool.threads);
	/* the page handed out next must be off screen: a flip still under way is waited for */
	display_events(&s->display, true);
	buf = display_buffer(&s->display);
	/* the top number first and the bottom last, as the rows are drawn; the top again after
	 * the water, which may have drawn over it */
	if (s->stripes)
		paint_stripes(m, buf.pixels, 0, (uint32_t)s->frames);
	render_frame_pool(&s->render, &s->water, buf.pixels, m->stride, buf.page, full, &s->pool);
	if (s->stripes) {
		paint_stripes(m, buf.pixels, 0, (uint32_t)s->frames);
		paint_stripes(m, buf.pixels, m->height - 8, (uint32_t)s->frames);
	}
	ret = display_present(&s->display);
	if (ret == 0)
		s->frames++;
	else if (m->pages < pages && ret != -EIO)
		screen_one_page_left(s, ret);
	else if (ret == -EAGAIN)
		/* not shown: the same page is handed out again, and owed even where the water is
		 * calm now, else the frame timer stops with the frame before on screen (a page
		 * owed is drawn whole: the one kind of frame owed without water) */
		s->full_pages++;
	else if (ret == -ENODEV)
		screen_lose_display(s);
	else if (ret == -ESTALE)
		screen_mode_put_back(s);
	else if (ret == -EIO)
		s->mode_lost = true;	/* the daemon adopts it (screen_adopt_mode) */
}

void screen_redraw(struct screen *s)
{
	screen_draw(s, true);
	display_flush(&s->display);
}

/* The frame on screen as an image, for a screenshot. */
int screen_capture(struct screen *s, struct image *img)
{
	return display_read(&s->display, img);
}

/* --screenshot at the end of a run: the user's own path, replaced if it is there. */
int screen_write_png(struct screen *s, const char *path)
{
	struct image img;
	int ret;

	display_flush(&s->display);	/* the file framebuffer on disk shows the same frame */
	ret = screen_capture(s, &img);
	if (ret == 0) {
		ret = shot_write(&img, path, true);
		image_free(&img);
	}
	if (ret < 0)
		log_error("screenshot %s: %s", path, shot_strerror(ret));
	return ret;
}

/* Blanks the display, or wakes it: the next frame then draws it whole (the caller's timer
 * draws it; a blanked screen may have lost its picture). While another VT is in front the
 * display is that VT's: only the wish is kept, and screen_retake carries it out. */
void screen_blank(struct screen *s, bool blank)
{
	int ret;

	s->blanked = blank;
	if (s->standby)		/* hidden: the display is the app's */
		log_info(blank ? "no input for screensaver.blank_after: hidden, the display left to "
				 "the application" : "unblanked while hidden");
	else
		log_info(blank ? "no input for screensaver.blank_after: display blanked"
			       : "display unblanked");
	if (!blank)
		s->full_pages = s->display.mode.pages;
	if (s->away)
		return;
	ret = display_blank(&s->display, blank);
	if (ret < 0 && ret != -ENOTTY)
		log_warn("%s: blank: %s", s->display.path, strerror(-ret));
}

/* A display set up anew (a reload's) lit the screen: blanked, it goes dark again. Off, then
 * on again, as the connector may still hold the blank it was told. */
void screen_keep_blank(struct screen *s)
{
	int ret;

	if (!s->blanked || s->away)
		return;
	display_blank(&s->display, false);
	ret = display_blank(&s->display, true);
	if (ret < 0 && ret != -ENOTTY)
		log_warn("%s: blank: %s", s->display.path, strerror(-ret));
}

/* Why the display could not be taken, for the log. */
const char *screen_acquire_error(int ret)
{
	if (ret == -EBUSY)
		return "another process is its DRM master";
	if (ret == -EIO)
		return "another program set its mode, and the driver does not take fbripple's "
		       "back";
	if (ret == -ESTALE)
		return "an application set another mode since fbripple opened it (restart "
		       "fbripple to draw in it)";
	if (ret == -EMEDIUMTYPE)
		return "the application's screen is at a depth fbripple cannot draw (it draws "
		       "there only on a VT of its own, display.vt)";
	if (ret == -ERANGE)
		return "the screen is panned where fbripple cannot draw a page (wrapped, sideways "
		       "or past its memory)";
	return strerror(-ret);
}

/* Why the display could not be let go, said once while every release fails the same way (the
 * buffer found at open gone for good, as a boot splash's once it quits). */
void screen_say_release(struct screen *s, int ret)
{
	if (ret < 0 && ret != s->release_said)
		log_warn("%s: release: %s", s->display.path,
			 ret == -ENOENT ? "the screen cannot be put back as it was found (the "
					  "buffer it showed is gone); fbripple's last frame stays "
					  "on it until another program shows its own or fbripple "
					  "closes the card"
					: strerror(-ret));
	s->release_said = ret;
}

/* The user switches to another VT: let go of the display. Shown beside an application, its
 * frame goes back first: the framebuffer is shared, and the application does not repaint. */
void screen_leave(struct screen *s)
{
	int ret;

	screen_put_back_frame(s);
	s->away = true;
	vt_set_away(true);
	ret = display_release(&s->display);
	vt_ack_release(&s->vt);
	/* the other VT's screen lit (fbdev keeps a blank across the switch; a DRM card no longer
	 * ours refuses, and its console lights it itself) */
	if (s->blanked)
		display_blank(&s->display, false);
	log_debug("VT %d released", s->vt.num);
	screen_say_release(s, ret);
}

/* Back on our VT: acknowledged, then the display taken back (screen_retake). */
int screen_return(struct screen *s)
{
	vt_ack_acquire(&s->vt);
	log_debug("VT %d acquired", s->vt.num);
	return screen_retake(s);
}

/* The display taken back and drawn whole; -EBUSY while another process holds it (the caller
 * tries again shortly), and nothing drawn until then. */
int screen_retake(struct screen *s)
{
	int pages = s->display.mode.pages, ret = display_acquire(&s->display);

	if (ret == -EBUSY)
		return ret;
	/* the mode as the driver keeps it now: ours, or one adopted anew */
	s->mode_lost = ret == -EIO;
	s->mode_foreign = false;
	if (ret < 0 && ret != -EIO && s->display.mode.pages < pages)
		screen_one_page_left(s, ret);
	else if (ret < 0)
		log_warn("%s: acquire: %s", s->display.path, screen_acquire_error(ret));
	s->away = false;
	vt_set_away(false);
	if (s->blanked) {
		/* taking the display back lit it: blank stays blank until input wakes it */
		ret = display_blank(&s->display, true);
		if (ret < 0 && ret != -ENOTTY)
			log_warn("%s: blank: %s", s->display.path, strerror(-ret));
		return 0;
	}
	screen_draw(s, true);
	return 0;
}
