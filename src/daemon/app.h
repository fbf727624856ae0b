/* app.h - the running daemon's state, shared by main (startup), screen (what is shown),
 * daemon (the event loop) and service (reload, idle, control socket, systemd). */
#ifndef FBRIPPLE_APP_H
#define FBRIPPLE_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "control.h"
#include "display/fb.h"
#include "idle.h"
#include "input/input.h"
#include "util/log.h"
#include "util/loop.h"
#include "util/pool.h"
#include "config/reload.h"
#include "render/render.h"
#include "display/vt.h"
#include "water/walls.h"
#include "water/water.h"
#include "util/worker.h"

#define APP_MAX_DROPS 64

struct options {
	const char *config_path;
	bool config_given;
	bool check_config;
	const char *fbdev_file;
	int width, height;
	const char *format;
	size_t stride;
	long frames;			/* < 0: run until a signal */
	const char *screenshot;
	int drops[APP_MAX_DROPS][2];
	int ndrops;
	bool verbose;
	bool list_devices;
	const char *send;		/* a control command to send instead of running */
};

struct app {
	struct options opt;
	struct config cfg;
	struct fb fb;
	struct vt vt;
	bool vt_away;			/* switched to another VT: draw nothing */
	int full_pages;			/* pages still to draw whole */
	struct water water;
	struct render render;
	struct pool pool;		/* display.threads: steps and frames in bands of rows */
	struct water_rain rain;
	struct loop loop;
	struct loop_source signals, ticks;
	struct loop_source watchdog, idle_timer;
	struct control control;
	struct worker shots;		/* PNG screenshots, one at a time */
	struct worker reloads;		/* a reload's picture, decoded and scaled */
	bool reload_again;		/* asked for while one was being prepared */
	int reload_nwaiting;		/* clients waiting for that next reload's reply */
	struct control_ticket reload_waiting[CONTROL_CLIENTS];
	struct idle idle;
	struct reload_file_id splash_id;	/* of the splash on screen, to see it change */
	struct walls walls;		/* water.obstacles at the screen's size */
	struct reload_file_id walls_id;	/* of its file, to see it change */
	bool paused, rain_on;
	struct input *input;		/* NULL: no input (--frames, or none available) */
	int input_contacts;
	int64_t drop_event_us;		/* event time of a touch's stone not drawn yet; 0: none */
	long test_frame_ms;		/* FBRIPPLE_TEST_FRAME_MS: slower frames, for tests */
	long steps_due;			/* simulation steps owed, in 1/fps steps */
	int64_t fps_start_ms;
	int fps_frames;
	double fps;
	bool timer_armed;
	bool quit;
};

/* config_load's warnings go to the log. */
static inline void app_warn_config(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

/* screen.c */
void screen_open_console(struct app *app);
int screen_open_display(struct app *app);
int screen_setup_scene(struct app *app);
void screen_apply_look(struct app *app, const struct config *cfg);
int screen_regrid(struct app *app, const struct config *cfg, char *err, size_t len);
int screen_list(struct app *app);
void screen_draw(struct app *app, bool full);
/* display.threads: a pool of that many threads unless it has them already. */
void screen_start_threads(struct app *app, const struct config *cfg);
void screen_redraw(struct app *app);
int screen_reopen(struct app *app, const struct config *cfg, char *err, size_t len);
int screen_load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t len);
int screen_reload_splash(struct app *app, const struct image *splash, char *err, size_t len);
int screen_reload_walls(struct app *app, struct walls *walls, char *err, size_t len);
void screen_blank(struct app *app, bool blank);
int screen_capture(struct app *app, struct image *img);
int screen_write_png(struct app *app, const char *path);
void screen_release(struct app *app);

/* daemon.c */
int daemon_block_signals(void);
void daemon_run_frames(struct app *app);
int daemon_run(struct app *app);
void daemon_close(struct app *app);

/* pace.c */
int64_t pace_now_ms(void);
int pace_arm_frames(struct app *app, bool on);
void pace_wake(struct app *app);
void pace_frame_done(struct app *app);
bool pace_activity(struct app *app);
void pace_arm_idle(struct app *app);
int pace_open_idle(struct app *app);
void pace_close_idle(struct app *app);

/* touch.c */
void touch_options(const struct app *app, struct input_opts *o, const char **devices);
void touch_open(struct app *app);

/* service.c */
int service_open(struct app *app);
void service_close(struct app *app);
void service_reload(struct app *app);
int service_on_command(void *ctx, const struct control_command *cmd,
		       struct control_ticket ticket, char *reply, size_t len);

#endif
