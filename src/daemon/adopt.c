/* adopt.c - a mode another program set, which the driver keeps: the display opened anew in it
 * on the loop, its pictures made off the loop, then drawn in. */
#include <errno.h>
#include <stdlib.h>

#include "app.h"

/* An adoption in the making: the display opened in the mode on screen, its pictures. */
struct adopt_job {
	struct worker_job job;
	struct app *app;
	struct display display;
	struct pictures_job pic;
};

/* On the worker's thread: the splash (and walls) at the new screen's size. */
static void adopt_run(struct worker_job *job)
{
	pictures_make(&((struct adopt_job *)job)->pic);
}

/* Back on the loop: the display and its pictures taken, unless our VT went meanwhile or the
 * mode came back (then closed, as the next adoption opens anew). */
static void adopt_done(struct worker_job *job)
{
	struct adopt_job *a = (struct adopt_job *)job;
	struct app *app = a->app;

	if (!job->cancelled && a->pic.ret < 0)
		log_warn("%s: the pictures for the mode another program set: %s; made on the loop",
			 a->display.path, a->pic.err);
	if (!job->cancelled) {
		screen_adopt_mode(&app->screen, &a->display, &app->cfg, &a->pic.made);
		/* adopted: the touches land on the screen as it is now; not: the frame timer
		 * stops, nothing to draw (a --frames run has neither) */
		if (!app->screen.mode_lost && app->loop.epfd >= 0)
			touch_open(&app->touch, &app->opt, &app->loop);
		if (app->loop.epfd >= 0)
			pace_wake(&app->pace);
	}
	if (display_is_open(&a->display))
		display_close(&a->display, false);
	pictures_free(&a->pic);
	free(a);
}

void adopt_mode(struct app *app)
{
	struct screen *s = &app->screen;
	struct display_request req;
	struct adopt_job *a;

	if (!s->mode_lost || s->mode_foreign || s->away || worker_busy(&app->adopts))
		return;
	a = calloc(1, sizeof(*a));
	if (!a)
		return;		/* tried again after the next frame */
	*a = (struct adopt_job){ .job = { .run = adopt_run, .done = adopt_done }, .app = app,
				 .pic = { .cfg = app->cfg } };
	req = service_display_wanted(app, &a->pic.cfg, s->display.path);
	if (screen_adopt_open(s, &req, &a->display) < 0) {
		free(a);
		return;
	}
	screen_picture_size(&a->display, &a->pic.cfg, &a->pic.width, &a->pic.height);
	a->pic.made.new_walls = s->walls.mask != NULL;
	if (worker_start(&app->adopts, &a->job) == 0)
		return;
	adopt_run(&a->job);	/* no thread to be had: made here */
	adopt_done(&a->job);
}

/* The worker the adoptions' pictures are made on; without one they are made on the loop. */
void adopt_open(struct app *app)
{
	if (worker_open(&app->adopts, &app->loop) < 0)
		log_warn("no worker thread: the pictures for a mode another program sets are made on "
			 "the loop");
}

/* An adoption under way is dropped: its display closed, its pictures freed. */
void adopt_close(struct app *app)
{
	worker_close(&app->adopts);
}
