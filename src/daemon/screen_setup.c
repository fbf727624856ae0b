/* screen_setup.c - what the screen is made of: the grid, the splash and the walls, at start and
 * anew on a reload or an adoption (pictures.c runs screen_make_pictures off the loop). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "screen_internal.h"
#include "image/image.h"
#include "water/water_engine.h"

/* No picture file: "", or "@screen", the app's frame, read each time fbripple shows itself. */
static bool splash_is_builtin(const struct config *cfg)
{
	return !cfg->splash.image[0] || strcmp(cfg->splash.image, SCREEN_SPLASH_APP) == 0;
}

/* The configured splash scaled to the screen (the built-in one for ""); 0 or -errno with err
 * saying why. */
static int load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t errlen)
{
	struct image src;
	int ret;

	if (splash_is_builtin(cfg))
		return image_builtin(out, width, height);
	ret = image_load(&src, cfg->splash.image, err, errlen);
	if (ret < 0)
		return ret;
	if (src.width == width && src.height == height) {
		image_flatten(&src, cfg->splash.background);	/* no second copy to scale into */
		*out = src;
		return 0;
	}
	ret = image_scale(out, &src, width, height, cfg->splash.scale, cfg->splash.background);
	image_free(&src);
	if (ret < 0)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

/* The configured splash, or the built-in one when it cannot be loaded, for want of memory
 * too: the built-in one is the screen's size, a picture up to 16 megapixels. */
static int make_splash(const struct config *cfg, int width, int height, struct image *out)
{
	char err[256];
	int ret = load_splash(cfg, width, height, out, err, sizeof(err));

	if (ret < 0 && splash_is_builtin(cfg))
		return ret;
	if (ret < 0) {
		log_warn("splash %s: %s; using the built-in splash", cfg->splash.image, err);
		return image_builtin(out, width, height);
	}
	return 0;
}

/* water.cell, "auto" resolved for a display of mode m: the one cell both the water and the
 * renderer are made with. */
int screen_cell_for(const struct config *cfg, const struct display_mode *m)
{
	return cfg->water.cell ? cfg->water.cell : water_cell_auto(m->width, m->height);
}

static int cell_for(const struct display *d, const struct config *cfg)
{
	return screen_cell_for(cfg, &d->mode);
}

/* A renderer for the display at cell, turned by display.rotate on top of the panel's own
 * rotation, and a calm water on its grid when new_water. On failure neither is left. */
static int make_grid(const struct display *d, const struct config *cfg, int cell,
		     struct render *r, struct water *w, bool new_water)
{
	struct water_tuning tuning = config_water_tuning(cfg);
	int rotate = (cfg->display.rotate + d->mode.rotate) % 360;
	int ret = render_init(r, d->mode.width, d->mode.height, rotate, cell, &d->mode.fmt);

	if (ret == 0 && new_water) {
		ret = water_open(w, config_water_engine(cfg), r->width, r->height,
				 cell, &tuning);
		if (ret < 0)
			render_free(r);
	}
	return ret;
}

/* water.obstacles at start: a mask that does not load leaves the water without walls. */
static void start_walls(struct screen *s, const struct config *cfg)
{
	char err[512];
	int ret = walls_load(&s->walls, cfg->water.obstacles, cfg->splash.scale, s->render.width,
			     s->render.height, err, sizeof(err));

	if (ret == 0 && (ret = walls_apply(&s->walls, &s->water)) < 0)
		snprintf(err, sizeof(err), "obstacles %.200s: %s", cfg->water.obstacles,
			 strerror(-ret));
	if (ret < 0) {
		log_warn("%s; running without walls", err);
		walls_free(&s->walls);
	}
}

/* What the water and the renderer read from the configuration at every step and frame. */
void screen_apply_look(struct screen *s, const struct config *cfg)
{
	struct render_light light = { cfg->water.light, cfg->water.light_direction,
				      cfg->water.specular };

	s->water.tuning = config_water_tuning(cfg);
	s->water.shape = cfg->stone.shape;
	render_set_light(&s->render, &light);
	if (render_set_tint(&s->render, cfg->water.tint) < 0)
		log_warn("water.tint: %s; drawing without it", strerror(ENOMEM));
}

/* The water, the renderer and the picture for the display just opened. */
int screen_setup(struct screen *s, const struct config *cfg)
{
	int cell = cell_for(&s->display, cfg);
	struct image splash;
	int ret;

	ret = make_grid(&s->display, cfg, cell, &s->render, &s->water, true);
	if (ret == 0)
		screen_start_threads(s, cfg);
	if (ret == 0)
		ret = make_splash(cfg, s->render.width, s->render.height, &splash);
	if (ret < 0) {
		log_error("%s", strerror(-ret));
		return ret;
	}
	render_take_splash(&s->render, &splash);
	image_free(&splash);
	start_walls(s, cfg);
	screen_apply_look(s, cfg);
	log_info("water: %s, %dx%d cells of %d pixels", s->water.engine->name, s->water.width,
		 s->water.height, cell);
	return 0;
}

void screen_start_threads(struct screen *s, const struct config *cfg)
{
	int n = cfg->display.threads ? cfg->display.threads : pool_threads_auto(), ret;

	if (s->pool.threads == n)
		return;
	pool_free(&s->pool);
	ret = pool_init(&s->pool, n);
	if (ret < 0) {
		log_warn("display.threads: %d threads: %s; one thread steps and draws", n,
			 strerror(-ret));
		pool_init(&s->pool, 1);
	}
	log_info("threads: %d step and draw", s->pool.threads);
}

/* Everything a new display, rotation or cell brings, made before the old goes. */
struct remake {
	struct display display;
	struct render render;
	struct water water;
	struct image splash;
	struct walls walls;
	bool new_display, new_grid;
};

static void remake_free(struct remake *m)
{
	walls_free(&m->walls);
	image_free(&m->splash);
	water_free(&m->water);
	render_free(&m->render);
	if (m->new_display)
		display_close(&m->display, false);
}

/* The pictures for m's screen: the ones made off the loop when they fit it, else made here. */
static int remake_pictures(struct remake *m, const struct config *cfg,
			   struct screen_pictures *made, char *why, size_t len)
{
	int w = m->render.width, h = m->render.height, ret;
	struct screen_pictures here = { .new_splash = made->new_splash,
					.new_walls = made->new_walls };

	if (!made->splash.pixels || made->splash.width != w || made->splash.height != h) {
		ret = screen_make_pictures(cfg, w, h, &here, why, len);
		if (ret < 0)
			return ret;
		made = &here;
	}
	m->splash = made->splash;
	m->walls = made->walls;
	made->splash = (struct image){ 0 };
	made->walls = (struct walls){ 0 };
	return 0;
}

static int remake(struct screen *s, struct remake *m, const struct display_request *req,
		  const struct config *cfg, struct screen_pictures *made, char *why, size_t len)
{
	const struct display *d = req || m->new_display ? &m->display : &s->display;
	int cell, ret = 0;

	if (req) {
		ret = screen_open_display(&m->display, req);
		m->new_display = ret == 0;
	}
	if (ret < 0)
		return ret;
	cell = cell_for(d, cfg);
	ret = make_grid(d, cfg, cell, &m->render, NULL, false);
	if (ret < 0)
		return ret;
	m->new_grid = m->render.width != s->water.screen_width ||
		      m->render.height != s->water.screen_height || cell != s->water.cell ||
		      config_water_engine(cfg) != s->water.engine;
	if (m->new_grid) {
		struct water_tuning tuning = config_water_tuning(cfg);

		ret = water_open(&m->water, config_water_engine(cfg), m->render.width, m->render.height,
				 cell, &tuning);
	}
	if (ret == 0)
		ret = remake_pictures(m, cfg, made, why, len);
	if (ret == 0 && m->new_grid)
		ret = walls_apply(&m->walls, &m->water);
	return ret;
}

/* screen_reopen, m->display opened already where m->new_display says so. */
static int reopen(struct screen *s, struct remake *m, const struct display_request *req,
		  const struct config *cfg, struct screen_pictures *pictures, char *err,
		  size_t len)
{
	char why[512] = "";
	int ret = remake(s, m, req, cfg, pictures, why, sizeof(why));

	if (ret < 0) {
		bool opened = m->new_display;

		remake_free(m);
		/* a display opened on the same card took the screen, and its close put the
		 * console's framebuffer there: ours goes back on it, with the frame drawn, as calm
		 * or paused water presents none (hidden, the new one took nothing) */
		if (opened && req && !s->away && !req->hidden) {
			display_acquire(&s->display);
			if (s->blanked)
				screen_keep_blank(s);
			else
				screen_redraw(s);
		}
		if (why[0])
			snprintf(err, len, "%s", why);
		else
			snprintf(err, len, "display %s: %s", req ? req->device : s->display.path,
				 strerror(-ret));
		return ret;
	}
	if (m->new_display) {
		/* before its descriptor closes: a dup of it lives on */
		screen_unwatch_display(s);
		display_hand_over(&s->display, &m->display);
		display_close(&s->display, false);
		s->display = m->display;
		display_share(&s->display, s->shared);	/* opened hidden: as it is shown now */
		screen_guard_crashes(s);
		screen_watch_display(s);
		/* the frame kept for a crash, as this display has it */
		if (!s->standby)
			screen_guard_app_frame(s);
		screen_guard_new_display(s);
	}
	render_take_splash(&m->render, &m->splash);
	image_free(&m->splash);
	render_free(&s->render);
	s->render = m->render;
	if (m->new_grid) {
		water_free(&s->water);
		s->water = m->water;	/* a new grid: the old waves cannot carry over */
	}
	walls_free(&s->walls);
	s->walls = m->walls;
	if (!m->new_grid && (ret = walls_apply(&s->walls, &s->water)) < 0)
		log_warn("walls: %s; the water keeps the ones it had", strerror(-ret));
	screen_apply_look(s, cfg);
	return 0;
}

/* A new display device (req; NULL: the same one), rotation or cell size: the new one is set up
 * completely before the old one goes, so a failure leaves everything as it was. The waves
 * survive unless the grid changes; then the water starts calm, the splash on screen all along. */
int screen_reopen(struct screen *s, const struct display_request *req,
		  const struct config *cfg, struct screen_pictures *pictures, char *err,
		  size_t len)
{
	struct remake m = { 0 };

	return reopen(s, &m, req, cfg, pictures, err, len);
}

/* A new water.cell or engine: a new grid (and renderer for a new cell), the picture carried
 * over (it has not changed), the water calm. Nothing is decoded; on a failure everything
 * stays as it was. */
int screen_regrid(struct screen *s, const struct config *cfg, char *err, size_t len)
{
	const struct water_engine *engine = config_water_engine(cfg);
	int cell = cell_for(&s->display, cfg), ret = 0;
	bool new_cell = cell != s->render.cell;
	struct render render = s->render;
	struct water water;
	struct water_tuning tuning = config_water_tuning(cfg);

	if (!new_cell && engine == s->water.engine)
		return 0;
	if (new_cell)
		ret = render_init(&render, s->display.mode.width, s->display.mode.height,
				  s->render.rotate, cell, &s->display.mode.fmt);
	if (ret == 0) {
		ret = water_open(&water, engine, render.width, render.height, cell, &tuning);
		if (ret == 0 && (ret = walls_apply(&s->walls, &water)) < 0)
			water_free(&water);
		if (ret < 0 && new_cell)
			render_free(&render);
	}
	if (ret < 0) {
		snprintf(err, len, "water.cell %d, engine %s: %s", cell, engine->name,
			 strerror(-ret));
		return ret;
	}
	if (new_cell) {
		render_copy_picture(&render, &s->render);
		render_free(&s->render);
		s->render = render;
	}
	water_free(&s->water);
	s->water = water;
	return 0;
}

/* The picture for a reload, decoded and scaled to width x height: touches nothing of the
 * screen, so a worker thread runs it while the old picture stays on screen. */
int screen_load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t len)
{
	char why[256];
	int ret = load_splash(cfg, width, height, out, why, sizeof(why));

	if (ret < 0)
		snprintf(err, len, "splash %.200s: %.200s", cfg->splash.image, why);
	return ret;
}

int screen_make_pictures(const struct config *cfg, int width, int height,
			 struct screen_pictures *p, char *err, size_t len)
{
	int ret = p->new_splash ? screen_load_splash(cfg, width, height, &p->splash, err, len)
				: make_splash(cfg, width, height, &p->splash);

	if (ret < 0)
		return ret;
	ret = walls_load(&p->walls, cfg->water.obstacles, cfg->splash.scale, width, height, err,
			 len);
	if (ret < 0 && !p->new_walls) {
		log_warn("%s; running without walls", err);
		return 0;
	}
	if (ret < 0)
		image_free(&p->splash);
	return ret;
}

/* Swaps in a picture screen_load_splash made, converted to the display's pixel format. */
int screen_reload_splash(struct screen *s, const struct image *splash, char *err, size_t len)
{
	int ret = render_set_splash(&s->render, splash);

	if (ret < 0)
		snprintf(err, len, "splash: %s", ret == -EINVAL ? "made for another screen size"
								 : strerror(-ret));
	return ret;
}

/* Swaps in the walls walls_load made for the screen as it is (walls is left empty). */
int screen_reload_walls(struct screen *s, struct walls *walls, char *err, size_t len)
{
	int ret = walls_apply(walls, &s->water);

	if (ret < 0) {
		snprintf(err, len, "walls: %s", strerror(-ret));
		return ret;
	}
	walls_free(&s->walls);
	s->walls = *walls;
	*walls = (struct walls){ 0 };
	return 0;
}

/* Said once, until our VT returns: the mode on screen is left to the program that set it. */
static void adopt_refused(struct screen *s, const char *why)
{
	s->mode_foreign = true;
	log_warn("%s: another program set a mode the driver keeps, and fbripple cannot draw in it "
		 "(%s); drawing nothing until fbripple's VT is in front again", s->display.path,
		 why);
}

int screen_adopt_open(struct screen *s, const struct display_request *req, struct display *d)
{
	int ret;

	if (!s->mode_lost || s->mode_foreign || s->away)
		return -ECANCELED;
	ret = screen_open_display(d, req);
	if (ret < 0)
		adopt_refused(s, strerror(-ret));
	return ret;
}

void screen_picture_size(const struct display *d, const struct config *cfg, int *width,
			 int *height)
{
	bool turned = (cfg->display.rotate + d->mode.rotate) % 180 != 0;

	*width = turned ? d->mode.height : d->mode.width;
	*height = turned ? d->mode.width : d->mode.height;
}

void screen_adopt_mode(struct screen *s, struct display *d, const struct config *cfg,
		       struct screen_pictures *made)
{
	struct remake m = { .display = *d, .new_display = true };
	const struct display_mode *mode = &s->display.mode;
	char err[512];

	*d = (struct display){ 0 };	/* the screen's now, or closed */
	if (!s->mode_lost || s->mode_foreign || s->away) {
		remake_free(&m);
		return;
	}
	if (reopen(s, &m, NULL, cfg, made, err, sizeof(err)) < 0) {
		adopt_refused(s, err);
		return;
	}
	s->mode_lost = false;
	log_warn("%s: another program set %dx%d %s, and the driver does not take fbripple's mode "
		 "back; drawing in it from now on", s->display.path, mode->width, mode->height,
		 mode->fmt.name);
	if (s->blanked)
		screen_keep_blank(s);
	else
		screen_redraw(s);
}
