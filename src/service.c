/* service.c - what makes it a service: reload, idle rain and blanking, watchdog, control. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "notify.h"

static void arm_idle(struct app *app)
{
	int64_t next = idle_next(&app->idle);
	struct itimerspec its = { 0 };

	if (app->idle_timer.fd < 0)
		return;
	if (next >= 0)
		its.it_value = (struct timespec){ next / 1000, next % 1000 * 1000000 + 1 };
	timerfd_settime(app->idle_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void apply_idle(struct app *app, unsigned events)
{
	if (events & (IDLE_BLANK | IDLE_UNBLANK))
		screen_blank(app, events & IDLE_BLANK);
	if (events & IDLE_RAIN_START)
		log_info("no input for rain.idle_after: rain starts");
	daemon_wake(app);
	arm_idle(app);
}

static void on_idle(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		apply_idle(app, idle_check(&app->idle, daemon_now_ms()));
}

/* Input happened (a touch, a press, a control-socket drop): stops idle rain, wakes a blank
 * screen. True when it only woke the screen: a touch then drops no stone. */
bool service_activity(struct app *app)
{
	unsigned events = idle_activity(&app->idle, daemon_now_ms());

	apply_idle(app, events);
	return events & IDLE_UNBLANK;
}

static void on_watchdog(struct loop_source *src, uint32_t events)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		notify_send("WATCHDOG=1");
}

/* Applies what changed and clears from *changes what it could not; on an error err says why
 * and nothing changed. */
static int apply_config(struct app *app, const struct config *new, unsigned *changes,
			char *err, size_t len)
{
	struct config adopted = *new, *cfg = &adopted;
	int ret = 0;

	if (*changes & RELOAD_RESTART) {
		log_warn("display.vt and display.double_buffer take effect when fbripple restarts");
		adopted.display.vt = app->cfg.display.vt;
		adopted.display.double_buffer = app->cfg.display.double_buffer;
	}

	if (*changes & (RELOAD_DISPLAY | RELOAD_GRID))
		ret = screen_reopen(app, cfg, err, len);
	else if (*changes & RELOAD_SPLASH)
		ret = screen_reload_splash(app, cfg, err, len);
	if (ret < 0)
		return ret;
	if (*changes & (RELOAD_DISPLAY | RELOAD_GRID))
		screen_redraw(app);
	if ((*changes & RELOAD_CONTROL) &&
	    (ret = control_listen(&app->control, cfg->control.socket)) < 0) {
		log_warn("control socket %s: %s; keeping %s", cfg->control.socket,
			 strerror(-ret), app->control.path[0] ? app->control.path : "none");
		snprintf(adopted.control.socket, sizeof(adopted.control.socket), "%s",
			 app->control.path);
		*changes &= ~RELOAD_CONTROL;
	}
	if ((*changes & RELOAD_LOG) && !app->opt.verbose)
		log_set_level(cfg->log.level);
	if (*changes & RELOAD_RAIN)
		app->rain_on = cfg->rain.enabled;
	if (*changes & RELOAD_IDLE)
		idle_configure(&app->idle, cfg->rain.idle_after, cfg->screensaver.blank_after);
	if (*changes & RELOAD_FPS)
		daemon_arm_timer(app, false);	/* wake re-arms it with the new period */
	screen_apply_look(app, cfg);
	if (*changes & (RELOAD_SPLASH | RELOAD_WATER))
		screen_redraw(app);	/* the new look at once, also on paused water */
	memcpy(&app->cfg, cfg, sizeof(*cfg));
	if ((*changes & (RELOAD_DISPLAY | RELOAD_INPUT)) && app->loop.epfd >= 0)
		daemon_open_input(app);
	daemon_wake(app);
	arm_idle(app);
	return 0;
}

/* SIGHUP or "reload": reads the config file again and applies only what changed. 0 with the
 * changes in msg, or -errno with msg saying why the running configuration stays. */
int service_reload(struct app *app, char *msg, size_t len)
{
	struct config cfg = app->cfg;
	struct reload_file_id splash_id;
	char err[512] = "", what[256];
	unsigned changes = 0;
	int ret;

	notify_reloading();
	ret = config_load(&cfg, app->opt.config_path, err, sizeof(err), app_warn_config, NULL);
	if (ret == -ENOENT && app->opt.config_given)
		snprintf(err, sizeof(err), "%s: %s", app->opt.config_path, strerror(ENOENT));
	else if (ret == -ENOENT)
		ret = 0;
	if (ret == 0) {
		reload_file_id(cfg.splash.image, &splash_id);
		changes = reload_changes(&app->cfg, &cfg, &app->splash_id, &splash_id);
		ret = apply_config(app, &cfg, &changes, err, sizeof(err));
	}
	if (ret < 0) {
		log_error("reload refused, the running configuration stays: %s", err);
		notify_sendf("READY=1\nSTATUS=reload refused: %s", err);
		snprintf(msg, len, "%s", err);
		return ret;
	}
	app->splash_id = splash_id;
	reload_describe(changes, what, sizeof(what));
	log_info("reloaded %s: changed %s", app->opt.config_path, what);
	notify_sendf("READY=1\nSTATUS=running; last reload changed %s", what);
	snprintf(msg, len, "%s", what);
	return 0;
}

static void status_line(const struct app *app, char *reply, size_t len)
{
	snprintf(reply, len, "ok fps=%.1f target=%d moving=%s contacts=%d devices=%d config=%s "
		 "size=%dx%d paused=%s rain=%s blanked=%s", app->timer_armed ? app->fps : 0.0,
		 app->cfg.display.fps, app->timer_armed ? "yes" : "no", app->input_contacts,
		 input_count(app->input),
		 app->opt.config_path, app->render.width, app->render.height,
		 app->paused ? "yes" : "no", app->rain.rate > 0 ? "on" : "off",
		 app->idle.blanked ? "yes" : "no");
}

void service_on_command(void *ctx, const struct control_command *cmd, char *reply, size_t len)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;
	char msg[400];
	int ret;

	switch (cmd->type) {
	case CONTROL_DROP:
		service_activity(app);
		water_drop(&app->water, cmd->x, cmd->y, cmd->size ? cmd->size : cfg->stone.size,
			   cmd->weight ? cmd->weight : cfg->stone.weight);
		break;
	case CONTROL_TRAIL:
		service_activity(app);
		water_trail(&app->water, cmd->x, cmd->y, cmd->x2, cmd->y2, cfg->stone.size,
			    cfg->input.trail_weight, cfg->input.trail_spacing);
		break;
	case CONTROL_RAIN:
		app->rain_on = cmd->on;
		app->idle.raining = app->idle.raining && cmd->on;
		break;
	case CONTROL_PAUSE:
	case CONTROL_RESUME:
		app->paused = cmd->type == CONTROL_PAUSE;
		break;
	case CONTROL_SCREENSHOT:
		ret = screen_write_png(app, cmd->path);
		if (ret < 0) {
			snprintf(reply, len, "error: cannot write %.200s: %s", cmd->path,
				 ret == -EINVAL ? "not a regular file" : strerror(-ret));
			return;
		}
		break;
	case CONTROL_RELOAD:
		snprintf(reply, len, service_reload(app, msg, sizeof(msg)) < 0 ? "error: %s"
									   : "ok changed %s", msg);
		return;
	case CONTROL_STATUS:
		status_line(app, reply, len);
		return;
	}
	daemon_wake(app);
	snprintf(reply, len, "ok");
}

/* The parts of the loop that make it a service: idle timer, watchdog, control socket. */
int service_open(struct app *app)
{
	const struct config *cfg = &app->cfg;
	uint64_t half = notify_watchdog_usec() / 2;
	struct itimerspec its = { 0 };
	int ret;

	its.it_interval = (struct timespec){ (time_t)(half / 1000000), (long)(half % 1000000) * 1000 };
	its.it_value = its.it_interval;
	app->rain_on = cfg->rain.enabled;
	reload_file_id(cfg->splash.image, &app->splash_id);
	idle_init(&app->idle, cfg->rain.idle_after, cfg->screensaver.blank_after, daemon_now_ms());
	app->idle_timer = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							       TFD_NONBLOCK | TFD_CLOEXEC),
						on_idle, app };
	if (app->idle_timer.fd < 0)
		return -errno;
	ret = loop_add(&app->loop, &app->idle_timer);
	if (ret == 0 && half) {
		app->watchdog = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
								     TFD_NONBLOCK | TFD_CLOEXEC),
						      on_watchdog, app };
		if (app->watchdog.fd < 0 || timerfd_settime(app->watchdog.fd, 0, &its, NULL) < 0)
			return -errno;
		ret = loop_add(&app->loop, &app->watchdog);
		log_debug("watchdog: WATCHDOG=1 every %llu ms", (unsigned long long)half / 1000);
	}
	if (ret < 0)
		return ret;
	arm_idle(app);
	if (cfg->control.socket[0] && (ret = control_listen(&app->control, cfg->control.socket)) < 0)
		log_warn("control socket %s: %s; running without it", cfg->control.socket,
			 strerror(-ret));
	return 0;
}

void service_close(struct app *app)
{
	control_close(&app->control);
	if (app->idle.blanked)
		fb_blank(&app->fb, false);
	if (app->idle_timer.fd >= 0)
		close(app->idle_timer.fd);
	if (app->watchdog.fd >= 0)
		close(app->watchdog.fd);
}
