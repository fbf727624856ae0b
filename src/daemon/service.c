/* service.c - what makes it a service: reload, watchdog, control commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "notify.h"
#include "image/shot.h"
#include "water/water_engine.h"

static void on_watchdog(struct loop_source *src, uint32_t events)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		notify_send("WATCHDOG=1");
}

/* Why control_listen could not make the socket at path, for the log. */
static void control_why(int ret, const char *path, char *why, size_t len)
{
	if (ret == -EADDRINUSE)
		snprintf(why, len, "another fbripple is running on %s", path);
	else if (ret == -ENOTSOCK)
		snprintf(why, len, "control socket: %s exists and is not a socket", path);
	else
		snprintf(why, len, "control socket %s: %s", path, control_error(ret));
}

/* Whether cfg's display keys ask for another display than the one open: another device (not
 * "auto" found to be the one open), output, mode or buffering. */
static bool new_display(const struct app *app, const struct config *cfg)
{
	const struct config *now = &app->cfg;

	if (app->opt.fbdev_file)
		return false;
	return strcmp(cfg->display.output, now->display.output) ||
	       strcmp(cfg->display.mode, now->display.mode) ||
	       cfg->display.double_buffer != now->display.double_buffer ||
	       (strcmp(cfg->display.device, now->display.device) &&
		!display_same_device(&app->screen.display, cfg->display.device));
}

struct display_request service_display_wanted(const struct app *app, const struct config *cfg,
					     const char *device)
{
	return (struct display_request){ .device = device,
					 .buffering = cfg->display.double_buffer,
					 .output = cfg->display.output,
					 .mode = cfg->display.mode,
					 .held = &app->screen.display,
					 /* beside an application, as at start: nothing panned
					  * or flipped but the frame fbripple shows */
					 .hidden = app->pace.saver.mode == SAVER_IDLE,
					 .keep_depth = app->pace.saver.mode == SAVER_IDLE &&
						       cfg->display.vt == 0 };
}

/* The display cfg names (a new device, output, mode, rotation or cell), opened anew only when
 * it is another; the same DRM card is set up again on the descriptor that holds it. */
static int reopen_screen(struct app *app, const struct config *cfg, struct screen_pictures *made,
			 char *err, size_t len)
{
	struct display_request req = service_display_wanted(app, cfg, cfg->display.device);
	bool open = new_display(app, cfg);

	/* the card is not ours to set up while another VT or the application has it */
	if (open && app->screen.away) {
		snprintf(err, len, "display: %s; reload once fbripple is shown, or restart it",
			 app->screen.standby ? "hidden beside the application"
					     : "another VT is in front");
		return -EBUSY;
	}
	return screen_reopen(&app->screen, open ? &req : NULL, cfg, made, err, len);
}

/* Applies what changed and clears from *changes what it could not; on an error err says why
 * and nothing changed. made: the pictures made off the loop, for the screen as it is when
 * the picture or the walls changed, for the one expected when the display did. */
static int apply_config(struct app *app, const struct config *new, unsigned *changes,
			struct screen_pictures *made, char *err, size_t len)
{
	struct config adopted = *new, *cfg = &adopted;
	struct service *sv = &app->service;
	struct screen *screen = &app->screen;
	struct pace_settings set;
	char why[512];
	int ret = 0;

	if (*changes & RELOAD_RESTART) {
		log_warn("display.vt takes effect when fbripple restarts");
		adopted.display.vt = app->cfg.display.vt;
	}

	if (*changes & RELOAD_DISPLAY)
		ret = reopen_screen(app, cfg, made, err, len);
	else if (*changes & RELOAD_GRID)
		ret = screen_regrid(screen, cfg, err, len);
	if (ret == 0 && !(*changes & RELOAD_DISPLAY) && (*changes & RELOAD_SPLASH))
		ret = screen_reload_splash(screen, &made->splash, err, len);
	if (ret == 0 && !(*changes & RELOAD_DISPLAY) && (*changes & RELOAD_WALLS))
		ret = screen_reload_walls(screen, &made->walls, err, len);
	if (ret < 0)
		return ret;
	if (*changes & (RELOAD_DISPLAY | RELOAD_SPLASH))
		screen_keep_app_frame(screen, cfg);
	if (*changes & (RELOAD_DISPLAY | RELOAD_GRID))
		screen_redraw(screen);
	if (*changes & RELOAD_DISPLAY)
		screen_keep_blank(screen);
	if ((*changes & RELOAD_CONTROL) &&
	    (ret = control_listen(&sv->control, cfg->control.socket)) < 0) {
		control_why(ret, cfg->control.socket, why, sizeof(why));
		log_warn("%s; keeping %s", why, sv->control.path[0] ? sv->control.path : "none");
		snprintf(adopted.control.socket, sizeof(adopted.control.socket), "%s",
			 sv->control.path);
		*changes &= ~RELOAD_CONTROL;
	}
	if ((*changes & RELOAD_LOG) && !app->opt.verbose)
		log_set_level(cfg->log.level);
	if (*changes & RELOAD_THREADS)
		screen_start_threads(screen, cfg);
	screen_apply_look(screen, cfg);
	if (app->pace.saver.state == SAVER_FADING)
		screen_fade(screen);	/* the fade's damping until it ends, not the water's */
	if (*changes & (RELOAD_SPLASH | RELOAD_WATER | RELOAD_WALLS))
		screen_redraw(screen);	/* the new look at once, also on paused water */
	memcpy(&app->cfg, cfg, sizeof(*cfg));
	set = pace_settings(cfg);
	pace_configure(&app->pace, &set);
	if (touch_reload_wanted(*changes, cfg) && app->loop.epfd >= 0)
		touch_open(&app->touch, &app->opt, &app->loop);
	pace_wake(&app->pace);
	return 0;
}

/* A reload in the making: the file read, what it changes, its picture, who waits for the reply. */
struct reload_job {
	struct worker_job job;
	struct app *app;
	struct pictures_job pic;	/* cfg: the file read anew; ret, err: the reload's */
	struct reload_file_id splash_id, walls_id;
	unsigned changes;
	int nwaiting;
	struct control_ticket waiting[CONTROL_CLIENTS];
};

/* On the worker's thread: the pictures, decoded and scaled, while the loop draws on; both
 * for a new display, which needs them at its size. */
static void reload_run(struct worker_job *job)
{
	struct reload_job *r = (struct reload_job *)job;

	if (r->changes & RELOAD_DISPLAY)
		pictures_make(&r->pic);
	else
		pictures_remake(&r->pic, r->changes & RELOAD_SPLASH, r->changes & RELOAD_WALLS);
}

static void reload_free(struct reload_job *r)
{
	pictures_free(&r->pic);
	free(r);
}

/* Applies what the job read, says so (log, systemd, each waiting client, reply), frees it. */
static void reload_finish(struct reload_job *r, char *reply, size_t len)
{
	struct app *app = r->app;
	struct pictures_job *p = &r->pic;
	char what[256], text[CONTROL_REPLY_MAX];

	if (p->ret == 0)
		p->ret = apply_config(app, &p->cfg, &r->changes, &p->made, p->err, sizeof(p->err));
	if (p->ret < 0) {
		log_error("reload refused, the running configuration stays: %s", p->err);
		snprintf(app->service.reload_said, sizeof(app->service.reload_said),
			 "reload refused: %s", p->err);
		snprintf(text, sizeof(text), "error: %.490s", p->err);
	} else {
		app->service.splash_id = r->splash_id;
		app->service.walls_id = r->walls_id;
		reload_describe(r->changes, what, sizeof(what));
		log_info("reloaded %s: changed %s", app->opt.config_path, what);
		snprintf(app->service.reload_said, sizeof(app->service.reload_said),
			 "last reload changed %s", what);
		snprintf(text, sizeof(text), "ok changed %s", what);
	}
	app->service.reloads_ended++;
	status_tell(app, "READY=1");
	for (int i = 0; i < r->nwaiting; i++)
		control_answer(&app->service.control, r->waiting[i], text);
	if (reply)
		snprintf(reply, len, "%s", text);
	reload_free(r);
}

static int reload_begin(struct app *app, const struct control_ticket *waiting, int nwaiting,
			char *reply, size_t len);

/* Back on the loop with the picture: swap it in, then the reload asked for meanwhile. */
static void reload_done(struct worker_job *job)
{
	struct reload_job *r = (struct reload_job *)job;
	struct service *sv = &r->app->service;
	struct control_ticket waiting[CONTROL_CLIENTS];
	int n = sv->reload_nwaiting;

	if (job->cancelled) {
		reload_free(r);
		return;
	}
	struct app *app = r->app;

	reload_finish(r, NULL, 0);
	if (!sv->reload_again)
		return;
	if (n)
		memcpy(waiting, sv->reload_waiting, (size_t)n * sizeof(waiting[0]));
	sv->reload_again = false;
	sv->reload_nwaiting = 0;
	reload_begin(app, waiting, n, NULL, 0);
}

/* The walls to remake: another file, new contents, or the same file scaled another way. */
static bool walls_changed(const struct app *app, const struct reload_job *r)
{
	const char *path = r->pic.cfg.water.obstacles;

	return strcmp(path, app->cfg.water.obstacles) ||
	       memcmp(&r->walls_id, &app->service.walls_id, sizeof(r->walls_id)) ||
	       (path[0] && r->pic.cfg.splash.scale != app->cfg.splash.scale);
}

/* The screen's size once cfg is applied, as far as it can be told before: turned by a new
 * rotation; a new mode or device may differ (then its pictures are made again on the loop). */
static void expected_size(const struct app *app, const struct config *cfg, int *width,
			  int *height)
{
	bool turned = (cfg->display.rotate - app->cfg.display.rotate) % 180 != 0;

	*width = turned ? app->screen.render.height : app->screen.render.width;
	*height = turned ? app->screen.render.width : app->screen.render.height;
}

/* Reads the file and starts applying it: CONTROL_LATER while a worker makes the new picture
 * (then reload_done finishes it), else 0 with the reply. The waiting clients get it either way. */
static int reload_begin(struct app *app, const struct control_ticket *waiting, int nwaiting,
			char *reply, size_t len)
{
	struct reload_job *r = calloc(1, sizeof(*r));
	struct pictures_job *p;

	notify_reloading();
	if (!r) {
		if (reply)
			snprintf(reply, len, "error: out of memory");
		for (int i = 0; i < nwaiting; i++)
			control_answer(&app->service.control, waiting[i], "error: out of memory");
		notify_send("READY=1");
		return 0;
	}
	*r = (struct reload_job){ .job = { .run = reload_run, .done = reload_done }, .app = app,
				  .pic = { .cfg = app->cfg }, .nwaiting = nwaiting };
	p = &r->pic;
	if (nwaiting)
		memcpy(r->waiting, waiting, (size_t)nwaiting * sizeof(waiting[0]));
	p->ret = config_load(&p->cfg, app->opt.config_path, p->err, sizeof(p->err),
			     app_warn_config, NULL);
	if (p->ret == -ENOENT && app->opt.config_given)
		snprintf(p->err, sizeof(p->err), "%s: %s", app->opt.config_path, strerror(ENOENT));
	else if (p->ret == -ENOENT)
		p->ret = 0;
	if (p->ret == 0) {
		reload_file_id(p->cfg.splash.image, &r->splash_id);
		r->changes = reload_changes(&app->cfg, &p->cfg, &app->service.splash_id,
					    &r->splash_id);
		reload_file_id(p->cfg.water.obstacles, &r->walls_id);
		r->changes |= walls_changed(app, r) ? RELOAD_WALLS : 0;
	}
	if (p->ret == 0 && (r->changes & (RELOAD_SPLASH | RELOAD_WALLS | RELOAD_DISPLAY))) {
		p->made.new_splash = r->changes & RELOAD_SPLASH;
		/* walls running now are not dropped for a file that fails anew */
		p->made.new_walls = (r->changes & RELOAD_WALLS) || app->screen.walls.mask;
		expected_size(app, &p->cfg, &p->width, &p->height);
		if (worker_start(&app->service.reloads, &r->job) == 0)
			return CONTROL_LATER;
		reload_run(&r->job);	/* no thread to be had: make it here */
	}
	reload_finish(r, reply, len);
	return 0;
}

/* SIGHUP or "reload" (ticket then names the client): reads the config file again and applies
 * only what changed; the reply says what, or why the running configuration stays. While one is
 * being prepared, the next waits for it and reads the file afresh. */
static int request_reload(struct app *app, const struct control_ticket *ticket, char *reply,
			  size_t len)
{
	struct service *sv = &app->service;

	if (!worker_busy(&sv->reloads))
		return reload_begin(app, ticket, ticket ? 1 : 0, reply, len);
	sv->reload_again = true;
	if (!ticket)
		return 0;
	if (sv->reload_nwaiting == CONTROL_CLIENTS) {
		snprintf(reply, len, "error: busy");
		return 0;
	}
	sv->reload_waiting[sv->reload_nwaiting++] = *ticket;
	return CONTROL_LATER;
}

void service_reload(struct app *app)
{
	request_reload(app, NULL, NULL, 0);
}

/* A screenshot being written: the frame copied on the loop, encoded and saved by a worker. */
struct shot_job {
	struct worker_job job;
	struct app *app;
	struct control_ticket ticket;
	struct image img;
	char path[CONTROL_LINE_MAX];
	int ret;
};

static void shot_run(struct worker_job *job)
{
	struct shot_job *s = (struct shot_job *)job;

	s->ret = shot_write(&s->img, s->path, false);
}

static void shot_done(struct worker_job *job)
{
	struct shot_job *s = (struct shot_job *)job;
	char reply[CONTROL_REPLY_MAX] = "ok";

	if (s->ret < 0) {
		log_warn("screenshot %s: %s", s->path, shot_strerror(s->ret));
		snprintf(reply, sizeof(reply), "error: cannot write %.200s: %s", s->path,
			 shot_strerror(s->ret));
	}
	if (!job->cancelled)
		control_answer(&s->app->service.control, s->ticket, reply);
	image_free(&s->img);
	free(s);
}

/* One at a time: a client asking while one is written hears "busy". */
static int start_screenshot(struct app *app, const char *path, struct control_ticket ticket,
			    char *reply, size_t len)
{
	struct shot_job *s;
	int ret;

	if (worker_busy(&app->service.shots)) {
		snprintf(reply, len, "error: busy (writing another screenshot)");
		return 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(reply, len, "error: out of memory");
		return 0;
	}
	*s = (struct shot_job){ .job = { .run = shot_run, .done = shot_done }, .app = app,
				.ticket = ticket };
	snprintf(s->path, sizeof(s->path), "%s", path);
	ret = screen_capture(&app->screen, &s->img);
	if (ret == 0 && (ret = worker_start(&app->service.shots, &s->job)) == 0)
		return CONTROL_LATER;
	if (ret == -EAGAIN || ret == -EBADF) {
		/* encoding on the loop would hold the frames up (140 ms at 1080p): no client may */
		log_warn("screenshot %s: no thread to write it (%s); refused", path, strerror(-ret));
		snprintf(reply, len, "error: screenshot refused: no thread to write it (%s)",
			 strerror(-ret));
	} else {
		snprintf(reply, len, "error: cannot write %.200s: %s", path, strerror(-ret));
	}
	image_free(&s->img);
	free(s);
	return 0;
}

static void status_line(const struct app *app, char *reply, size_t len)
{
	const struct pace *p = &app->pace;
	const struct screen *s = &app->screen;

	snprintf(reply, len, "ok fps=%.1f target=%d moving=%s contacts=%d devices=%d config=%s "
		 "size=%dx%d paused=%s rain=%s blanked=%s engine=%s cell=%d display=%s "
		 "frames=%lu flips=%lu screensaver=%s",
		 p->armed ? p->fps : 0.0, p->set.fps, p->armed ? "yes" : "no",
		 app->touch.contacts, input_count(app->touch.input), app->opt.config_path,
		 s->render.width, s->render.height, p->paused ? "yes" : "no",
		 s->rain.rate > 0 ? "on" : "off", p->idle.blanked ? "yes" : "no",
		 s->water.engine->name, s->water.cell, s->display.ops->name, s->frames,
		 s->display.flips, saver_state_name(p->saver.state));
}

/* The saver's events: the screen taken (and the input devices, so that the touch that wakes
 * it never reaches the app), the water calmed, the screen given back; watchers told. */
static void on_saver(void *ctx, unsigned events)
{
	struct app *app = ctx;

	if (events & SAVER_SHOW) {
		if (screen_show(&app->screen, &app->cfg) < 0) {
			pace_saver_failed(&app->pace);
			return;
		}
		touch_grab(&app->touch, true);
		log_info("screensaver: shown");
		control_broadcast(&app->service.control, "event shown");
	}
	if (events & SAVER_FADE)
		screen_fade(&app->screen);
	if (events & SAVER_UNFADE)
		screen_apply_look(&app->screen, &app->cfg);
	if (events & SAVER_HIDE) {
		screen_hide(&app->screen, &app->cfg);
		touch_grab(&app->touch, false);
		pace_arm_frames(&app->pace, false);
		log_info("screensaver: hidden");
		control_broadcast(&app->service.control, "event hidden");
	}
	pace_wake(&app->pace);
}

/* show and hide: only in idle mode. */
static void show_or_hide(struct app *app, bool show, char *reply, size_t len)
{
	if (app->pace.saver.mode != SAVER_IDLE) {
		snprintf(reply, len, "error: screensaver.mode is \"always\": always shown");
		return;
	}
	pace_saver_command(&app->pace, show);
	snprintf(reply, len, "ok %s", saver_state_name(app->pace.saver.state));
}

/* The stones of cmd's trail that *work allows, from where the last call left off (progress:
 * the steps of its line done); true once it is whole. */
static bool trail_part(struct app *app, struct control_command *cmd, long *work)
{
	const struct config *cfg = &app->cfg;
	struct water_trail t = { cmd->x, cmd->y, cmd->x2, cmd->y2, cfg->stone.size,
				 cfg->input.trail_weight, cfg->input.trail_spacing, cmd->progress,
				 false };

	*work -= screen_trail_part(&app->screen, &t, *work);
	cmd->progress = t.step;
	return t.done;
}

static int on_command(void *ctx, struct control_command *cmd, struct control_ticket ticket,
		      long *work, char *reply, size_t len)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;

	switch (cmd->type) {
	case CONTROL_DROP:
		if (app->screen.standby)
			break;		/* hidden: the water stays calm for the next show */
		pace_activity(&app->pace);
		*work -= screen_drop(&app->screen, cmd->x, cmd->y,
				     cmd->size ? cmd->size : cfg->stone.size,
				     cmd->weight ? cmd->weight : cfg->stone.weight);
		break;
	case CONTROL_TRAIL:
		if (app->screen.standby)
			break;
		pace_activity(&app->pace);
		if (!trail_part(app, cmd, work)) {
			pace_wake(&app->pace);
			return CONTROL_MORE;
		}
		break;
	case CONTROL_RAIN:
		pace_set_rain(&app->pace, cmd->on);
		break;
	case CONTROL_PAUSE:
	case CONTROL_RESUME:
		pace_pause(&app->pace, cmd->type == CONTROL_PAUSE);
		break;
	case CONTROL_SCREENSHOT:
		return start_screenshot(app, cmd->path, ticket, reply, len);
	case CONTROL_RELOAD:
		return request_reload(app, &ticket, reply, len);
	case CONTROL_STATUS:
		status_line(app, reply, len);
		return 0;
	case CONTROL_SHOW:
	case CONTROL_HIDE:
		show_or_hide(app, cmd->type == CONTROL_SHOW, reply, len);
		return 0;
	case CONTROL_WATCH:
		break;		/* control.c makes the client a watcher */
	}
	pace_wake(&app->pace);
	snprintf(reply, len, "ok");
	return 0;
}

/* Before the command line is read: --send's client needs the control part too. */
void service_init(struct service *sv, struct app *app)
{
	*sv = (struct service){ .watchdog.fd = -1 };
	control_init(&sv->control, &app->loop, &app->work, on_command, app);
	pace_on_saver(&app->pace, on_saver, app);
}

/* The parts of the loop that make it a service: watchdog, workers, control socket. */
int service_open(struct app *app)
{
	const struct config *cfg = &app->cfg;
	struct service *sv = &app->service;
	uint64_t half = notify_watchdog_usec() / 2;
	struct itimerspec its = { 0 };
	char why[512];
	int ret = 0;

	its.it_interval = (struct timespec){ (time_t)(half / 1000000), (long)(half % 1000000) * 1000 };
	its.it_value = its.it_interval;
	reload_file_id(cfg->splash.image, &sv->splash_id);
	reload_file_id(cfg->water.obstacles, &sv->walls_id);
	if (half) {
		sv->watchdog = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
								    TFD_NONBLOCK | TFD_CLOEXEC),
						     on_watchdog, app };
		if (sv->watchdog.fd < 0 || timerfd_settime(sv->watchdog.fd, 0, &its, NULL) < 0)
			return -errno;
		ret = loop_add(&app->loop, &sv->watchdog);
		log_debug("watchdog: WATCHDOG=1 every %llu ms", (unsigned long long)half / 1000);
	}
	if (ret < 0)
		return ret;
	if (worker_open(&sv->shots, &app->loop) < 0 || worker_open(&sv->reloads, &app->loop) < 0)
		log_warn("no worker threads: pictures are made on the loop, screenshots refused");
	ret = cfg->control.socket[0] ? control_listen(&sv->control, cfg->control.socket) : 0;
	if (ret == 0)
		return 0;
	control_why(ret, cfg->control.socket, why, sizeof(why));
	if (ret == -EADDRINUSE) {
		/* its socket is the running one's way in: not ours to take */
		log_error("%s", why);
		return ret;
	}
	log_warn("%s; running without it", why);
	return 0;
}

/* On the way out in idle mode: the application's screen back as it was and, if fbripple was
 * shown, the watchers told so before the socket closes. */
void service_stand_down(struct app *app)
{
	bool shown = !app->screen.standby;

	if (app->pace.saver.mode != SAVER_IDLE || !display_is_open(&app->screen.display))
		return;
	screen_hide(&app->screen, &app->cfg);
	if (shown)
		control_broadcast(&app->service.control, "event hidden");
}

void service_close(struct app *app)
{
	struct service *sv = &app->service;

	worker_close(&sv->shots);
	worker_close(&sv->reloads);
	control_close(&sv->control);
	if (sv->watchdog.fd >= 0)
		close(sv->watchdog.fd);
	sv->watchdog.fd = -1;
}
