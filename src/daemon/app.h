/* app.h - the running daemon, in parts: each part is written by its own file only.
 *
 * The daemon folder is the program around the water: the event loop (daemon.c), a mode another
 * program set taken on (adopt.c), reload and control
 * commands (service.c), input devices into stones (touch.c), the frame and idle timers
 * (pace.c), the pictures a reload or an adoption makes off the loop (pictures.c), what is shown
 * (screen.c; what it is made of, screen_setup.c; beside a kiosk application, the show and the
 * hide, screen_app.c; the three share screen_internal.h and together write struct screen),
 * what `systemctl status` says (status.c, which reads every part), the control socket,
 * sd_notify and idle timing. Calls go down that list, never up; every folder below src/ may be
 * included, main.c drives it.
 */
#ifndef FBRIPPLE_APP_H
#define FBRIPPLE_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "config/reload.h"
#include "daemon/control.h"
#include "daemon/idle.h"
#include "daemon/saver.h"
#include "display/display.h"
#include "display/vt.h"
#include "input/input.h"
#include "render/render.h"
#include "util/budget.h"
#include "util/log.h"
#include "util/loop.h"
#include "util/pool.h"
#include "util/worker.h"
#include "water/walls.h"
#include "water/water.h"

#define APP_MAX_DROPS 64
#define APP_STONE_WORK 100000	/* stone work (water_drop's) of one wake-up, control's commands
				 * and input's contacts together: 1.5 to 3 ms of stones; what is
				 * beyond goes on in the next wake-ups */
#define SCREEN_SPLASH_APP "@screen"	/* splash.image: the app's frame, read when shown */

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

/* screen.c, screen_setup.c, screen_app.c: the display and the VT under it, the water and the
 * picture it refracts. */
struct screen {
	struct display display;
	struct loop *loop;		/* where the display's events are read; NULL: none yet */
	struct loop_source events;	/* the display's event_fd there */
	struct vt vt;
	bool away;			/* switched to another VT (or waiting to get the display
					 * back): draw nothing */
	bool gone;			/* the display device went away: the daemon ends */
	bool blanked;			/* screensaver.blank_after: blank, also across VT switches */
	struct loop_source watch;	/* inotify on the display's device node */
	bool stripes;			/* FBRIPPLE_TEST_STRIPES: frame numbers in the edge rows */
	int full_pages;			/* pages still to draw whole */
	unsigned long frames;		/* frames drawn and presented */
	unsigned long mode_resets;	/* another program's mode replaced by ours */
	bool mode_lost;			/* another program's mode on screen, and the driver does
					 * not take ours back: nothing drawn until it is adopted
					 * (screen_adopt_mode) or our VT returns */
	bool mode_foreign;		/* that mode could not be adopted: said once, tried
					 * again when our VT returns */
	struct water water;
	struct render render;
	struct pool pool;		/* display.threads: steps and frames in bands of rows */
	struct walls walls;		/* water.obstacles at the screen's size */
	struct water_rain rain;		/* where and when drops fall; pace sets how many */
	bool standby;			/* screensaver.mode idle, hidden: the app's screen */
	struct image app_frame;		/* the app's frame read when shown, put back on hiding */
	const char *app_source;		/* where it was read from, or was to be */
	char card_fb[64];		/* on a DRM card: its fbdev emulation, where an fbdev
					 * application draws */
	int app_vt;			/* the app's VT, in front again on hiding; 0: none */
	bool shared;			/* shown on the app's own VT, not one of ours */
	int release_said;		/* the release's error logged last: not again until one
					 * succeeds (a VT switch each time, a hide each time) */
};

/* What pace.c reads from the configuration. */
struct pace_settings {
	int fps;
	int steps_per_second;
	bool rain;			/* rain.enabled */
	double rain_rate;
	int rain_size, rain_weight;
	int rain_idle_after, blank_after;	/* seconds; 0: never */
	enum saver_mode saver_mode;
	enum saver_wake saver_wake;
	int saver_after;
	double saver_fade;
};

/* pace.c's saver events (enum saver_event bits) go to the part that shows and hides. */
typedef void pace_saver_fn(void *ctx, unsigned events);

/* pace.c: when frames are drawn, and the rain and blanking that idleness brings. */
struct pace {
	struct screen *screen;		/* what it paces */
	struct pace_settings set;
	struct loop_source ticks, idle_timer;
	struct idle idle;
	struct saver saver;
	pace_saver_fn *on_saver;
	void *saver_ctx;
	bool rain_on, paused;
	bool armed;			/* the frame timer runs */
	long steps_due;			/* simulation steps owed, in 1/fps steps */
	int64_t fps_start_ms;
	int fps_frames;
	double fps;
};

/* touch.c: the input devices, and the stones their contacts drop. */
struct touch {
	struct pace *pace;
	struct screen *screen;
	const struct config *cfg;
	struct budget *work;		/* the stone work of a wake-up, shared with control's */
	struct input *input;		/* NULL: no input (--frames, or none available) */
	struct input_contact doing;	/* the contact whose trail goes on in a later wake-up */
	struct water_trail trail;	/* its stones; done when none goes on */
	int contacts;
	bool only_woke[INPUT_CONTACTS_MAX];	/* by contact id: its touch woke the screen, or
						 * came while hidden, and dropped no stone */
	int64_t drop_event_us;		/* event time of a touch's stone not drawn yet; 0: none */
};

/* service.c: reload, the control socket's commands, the watchdog. */
struct service {
	struct control control;
	struct loop_source watchdog;
	struct worker shots;		/* PNG screenshots, one at a time */
	struct worker reloads;		/* a reload's picture, decoded and scaled */
	bool reload_again;		/* asked for while one was being prepared */
	int reload_nwaiting;		/* clients waiting for that next reload's reply */
	struct control_ticket reload_waiting[CONTROL_CLIENTS];
	struct reload_file_id splash_id;	/* of the splash on screen, to see it change */
	struct reload_file_id walls_id;	/* of its file, to see it change */
	unsigned reloads_ended;	/* reloads taken or refused */
	char reload_said[600];		/* how the last one ended, for status.c; "": none yet */
};

/* status.c: the state last told to the service manager. */
struct status {
	struct loop_source timer;	/* a state held back, due */
	bool wanted;			/* a service manager listens */
	bool told, held;
	int state;
	unsigned reloads;
	int64_t sent_ms;
};

struct app {
	struct options opt;		/* main.c */
	struct config cfg;		/* main.c at start, service.c on reload */
	struct loop loop;		/* daemon.c */
	struct budget work;		/* main.c: a wake-up's stones, for control and touch */
	struct loop_source signals;	/* daemon.c */
	struct loop_source retake;	/* daemon.c: the display taken back after a VT switch */
	long test_frame_ms;		/* daemon.c: FBRIPPLE_TEST_FRAME_MS, slower frames */
	bool retaking;			/* daemon.c: back from a VT switch, the display held */
	bool quit;			/* daemon.c */
	struct screen screen;
	struct pace pace;
	struct touch touch;
	struct service service;
	struct worker adopts;		/* adopt.c: the pictures for a mode another program set */
	struct status status;
};

/* config_load's warnings go to the log. */
static inline void app_warn_config(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

/* screen.c */
void screen_init(struct screen *s);
void screen_open_console(struct screen *s, int vt);
int screen_open(struct screen *s, const struct display_request *req);
long screen_drop(struct screen *s, int x, int y, int size, int weight);
long screen_trail_part(struct screen *s, struct water_trail *t, long budget);
void screen_set_rain(struct screen *s, double rate, int size, int weight);
void screen_step(struct screen *s, int steps, double dt);
bool screen_calm(const struct screen *s);
bool screen_wants_frame(const struct screen *s);
void screen_draw(struct screen *s, bool full);
void screen_redraw(struct screen *s);
void screen_blank(struct screen *s, bool blank);
void screen_keep_blank(struct screen *s);
void screen_leave(struct screen *s);
int screen_return(struct screen *s);
int screen_retake(struct screen *s);
/* The display's events read on loop from now on. */
void screen_attach(struct screen *s, struct loop *loop);
int screen_capture(struct screen *s, struct image *img);
int screen_write_png(struct screen *s, const char *path);
void screen_release(struct screen *s);

/* screen_setup.c: the grid, the splash and the walls; a display, rotation, cell or mode taken
 * on anew. */
struct screen_pictures {
	struct image splash;
	struct walls walls;
	bool new_splash, new_walls;	/* the reload changed them (or the walls run now):
					 * one that cannot be made refuses it; else it falls
					 * back as at start */
};

int screen_setup(struct screen *s, const struct config *cfg);
void screen_apply_look(struct screen *s, const struct config *cfg);
/* display.threads: a pool of that many threads unless it has them already. */
void screen_start_threads(struct screen *s, const struct config *cfg);
/* pictures: the splash and walls a reload made off the loop for the screen it expected; taken
 * (and left empty) when the new screen has the splash's size, else made again here. */
int screen_reopen(struct screen *s, const struct display_request *req,
		  const struct config *cfg, struct screen_pictures *pictures, char *err,
		  size_t len);
int screen_regrid(struct screen *s, const struct config *cfg, char *err, size_t len);
int screen_load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t len);
/* The splash and the walls for a screen of width x height, into p (whose new_* say how to
 * take a failure); touches nothing else, so a worker thread may run it. 0, or -errno with p
 * left without them. */
int screen_make_pictures(const struct config *cfg, int width, int height,
			 struct screen_pictures *p, char *err, size_t len);
int screen_reload_splash(struct screen *s, const struct image *splash, char *err, size_t len);
int screen_reload_walls(struct screen *s, struct walls *walls, char *err, size_t len);
int screen_cell_for(const struct config *cfg, const struct display_mode *m);
/* The mode another program set, which the driver keeps, adopted as if the display were opened
 * anew in it: first opened, on the loop, into d (req: the display as opened now); -ECANCELED
 * where no mode is lost, else 0 or open's -errno (said once: nothing drawn until our VT
 * returns). Then, with pictures made at screen_picture_size, d taken (or closed) and the screen
 * drawn in it, said once; or why not, said once. */
int screen_adopt_open(struct screen *s, const struct display_request *req, struct display *d);
void screen_picture_size(const struct display *d, const struct config *cfg, int *width,
			 int *height);
void screen_adopt_mode(struct screen *s, struct display *d, const struct config *cfg,
		       struct screen_pictures *made);

/* screen_app.c: beside a kiosk application (screensaver.mode idle), shown and hidden. */
void screen_stand_by(struct screen *s);
int screen_show(struct screen *s, const struct config *cfg);
void screen_keep_app_frame(struct screen *s, const struct config *cfg);
void screen_fade(struct screen *s);
void screen_hide(struct screen *s, const struct config *cfg);

/* pictures.c: the pictures a job makes on a worker's thread for a screen of width x height,
 * from its own copy of the config; ret and err say how it went. */
struct pictures_job {
	struct config cfg;		/* as the job started (a reload's: as read anew) */
	int width, height;		/* of the pictures to make */
	struct screen_pictures made;
	int ret;
	char err[512];
};

/* The splash and the walls, as for a new screen (screen_make_pictures). */
void pictures_make(struct pictures_job *p);
/* Only what changed, for the screen as it is: the splash, then the walls; either failing
 * fails (a reload refused). */
void pictures_remake(struct pictures_job *p, bool splash, bool walls);
/* What was made and not taken. */
void pictures_free(struct pictures_job *p);

/* pace.c */
struct pace_settings pace_settings(const struct config *cfg);
void pace_init(struct pace *p, struct screen *screen);
void pace_start(struct pace *p, const struct pace_settings *set);
int pace_open(struct pace *p, struct loop *loop, loop_fn *on_tick, void *ctx);
void pace_configure(struct pace *p, const struct pace_settings *set);
int pace_take_steps(struct pace *p);
int pace_arm_frames(struct pace *p, bool on);
void pace_wake(struct pace *p);
void pace_frame_done(struct pace *p);
bool pace_activity(struct pace *p);
bool pace_touched(struct pace *p);
void pace_on_saver(struct pace *p, pace_saver_fn *fn, void *ctx);
void pace_saver_command(struct pace *p, bool show);
void pace_saver_failed(struct pace *p);
void pace_set_rain(struct pace *p, bool on);
void pace_pause(struct pace *p, bool paused);
void pace_close(struct pace *p);

/* touch.c */
void touch_init(struct touch *t, struct pace *pace, struct screen *screen,
		const struct config *cfg, struct budget *work);
void touch_options(const struct config *cfg, const struct options *opt,
		   const struct display_mode *mode, struct input_opts *o, const char **devices);
void touch_open(struct touch *t, const struct options *opt, struct loop *loop);
/* Whether a reload's changes (RELOAD_*) to cfg reach what touch_options gives the input. */
bool touch_reload_wanted(unsigned changes, const struct config *cfg);
/* What a contact does, its stones as far as the wake-up's budget goes: the input devices'
 * callback (ctx: the touch). false: the rest of its trail is due, and c comes again. */
bool touch_contact(void *ctx, const struct input_contact *c);
void touch_grab(struct touch *t, bool grab);
void touch_shown(struct touch *t);
void touch_close(struct touch *t);

/* status.c: STATUS= for the service manager when the state or the last reload changed since
 * it was last told; with also ("READY=1"), that line first and the status in any case. */
void status_tell(struct app *app, const char *also);
int status_open(struct status *st, struct loop *loop);
void status_close(struct status *st);

/* service.c */
void service_init(struct service *sv, struct app *app);
int service_open(struct app *app);
void service_stand_down(struct app *app);
void service_close(struct app *app);
void service_reload(struct app *app);
/* The display cfg names, to open on device, as the daemon runs now (beside an application or
 * not). */
struct display_request service_display_wanted(const struct app *app, const struct config *cfg,
					      const char *device);

/* adopt.c: after a frame that found another program's mode kept by the driver, the display
 * opened anew in it, its pictures made off the loop, then drawn in (screen_adopt_mode). */
void adopt_mode(struct app *app);
/* The worker it makes them on, for daemon.c; a job under way is dropped at close. */
void adopt_open(struct app *app);
void adopt_close(struct app *app);

/* daemon.c */
int daemon_block_signals(void);
void daemon_run_frames(struct app *app);
int daemon_run(struct app *app);
void daemon_close(struct app *app);

#endif
