/* screen.c - what is on the screen: the console, the framebuffer, the splash, every frame. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "image/image.h"
#include "image/pixfmt.h"
#include "image/shot.h"
#include "water/water_engine.h"

/* The VT under the framebuffer, in graphics mode and switching only when we agree. Without one
 * fbripple still runs; the console may then draw over the water. */
void screen_open_console(struct app *app)
{
	char err[256];
	int ret = vt_open(&app->vt, app->cfg.display.vt, err, sizeof(err));

	if (ret == 0 && (ret = vt_take(&app->vt, SIGUSR1, SIGUSR2)) < 0)
		snprintf(err, sizeof(err), "VT %d: %s", app->vt.num, strerror(-ret));
	if (ret == 0) {
		log_debug("drawing on VT %d", app->vt.num);
		return;
	}
	log_warn("%s; drawing without one, the console may show through", err);
	vt_restore(&app->vt);
}

/* Pages, and the crash guard that must know the mode and the console to put back. */
static void prepare_display(struct app *app)
{
	enum fb_buffering mode = app->cfg.display.double_buffer;

	if (fb_setup_pages(&app->fb, mode) == 2)
		log_info("%s: double buffered%s", app->fb.path,
			 app->fb.can_vsync ? ", vsync" : ", no vsync");
	else if (mode == FB_BUFFER_ON)
		log_warn("%s: cannot pan between two pages; single buffered", app->fb.path);
	else if (mode == FB_BUFFER_AUTO)
		log_info("%s: single buffered (the driver cannot pan)", app->fb.path);
	vt_guard_crashes(&app->vt, &app->fb);
}

/* Leaves the screen as found: cleared, in its old mode, the console in text mode so it
 * redraws itself. */
void screen_release(struct app *app)
{
	/* while another VT is in front the screen shows its console: not ours to clear */
	if (app->fb.map && !app->fb.is_file && !app->vt_away) {
		memset(app->fb.map, 0, app->fb.map_len);
		fb_flush(&app->fb);
	}
	fb_close(&app->fb);
	vt_guard_crashes(&app->vt, &app->fb);	/* nothing of the fb left for a crash to touch */
	vt_restore(&app->vt);
}

/* display.device, or the headless file the options describe. */
static int open_fb(struct app *app)
{
	const struct options *o = &app->opt;
	char err[256];
	struct pixfmt fmt;
	int ret;

	if (!o->fbdev_file) {
		ret = fb_open(&app->fb, app->cfg.display.device, err, sizeof(err));
		if (ret < 0)
			log_error("%s: %s", app->cfg.display.device, err);
		return ret;
	}
	if (pixfmt_by_name(&fmt, o->format) < 0) {
		log_error("unknown pixel format '%s'", o->format);
		return -EINVAL;
	}
	ret = fb_open_file(&app->fb, o->fbdev_file, o->width, o->height, &fmt,
			   o->stride ? o->stride : (size_t)o->width * fmt.bytes, err, sizeof(err));
	if (ret < 0)
		log_error("%s: %s", o->fbdev_file, err);
	return ret;
}

int screen_open_display(struct app *app)
{
	int ret = open_fb(app);

	if (ret == 0 && !app->fb.is_file)
		prepare_display(app);
	return ret;
}

/* --list-devices, the display's part: what the driver offers and what fbripple makes of it. */
int screen_list(struct app *app)
{
	struct fb *fb = &app->fb;
	int ret = open_fb(app);

	if (ret < 0)
		return ret;
	fb_setup_pages(fb, app->cfg.display.double_buffer);
	printf("display %s: %s\n", fb->path, fb->id);
	printf("  resolution %dx%d, virtual %ux%u, %d bpp %s, stride %zu bytes\n", fb->width,
	       fb->height, fb->var.xres_virtual, fb->var.yres_virtual, fb->fmt.bpp, fb->fmt.name,
	       fb->stride);
	if (fb->mode_changed && fb->saved.bits_per_pixel != fb->var.bits_per_pixel)
		printf("  switched from %u bpp, which fbripple cannot draw\n",
		       fb->saved.bits_per_pixel);
	printf("  pan: %s; vsync: %s; drawing: %s\n", fb->pages == 2 ? "yes" : "no",
	       fb->can_vsync ? "yes" : "no", fb->pages == 2 ? "double buffered" : "single buffer");
	fb_close(fb);
	return 0;
}

/* The configured splash scaled to the screen (the built-in one for ""); 0 or -errno with err
 * saying why. */
static int load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t errlen)
{
	struct image src;
	int ret;

	if (!cfg->splash.image[0])
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

/* The configured splash, or the built-in one when it cannot be loaded. */
static int make_splash(const struct config *cfg, int width, int height, struct image *out)
{
	char err[256];
	int ret = load_splash(cfg, width, height, out, err, sizeof(err));

	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		log_warn("splash %s: %s; using the built-in splash", cfg->splash.image, err);
		return image_builtin(out, width, height);
	}
	return 0;
}

/* water.cell, "auto" resolved for the screen. */
static int cell_for(const struct app *app, const struct config *cfg)
{
	return cfg->water.cell ? cfg->water.cell : water_cell_auto(app->fb.width, app->fb.height);
}

/* A calm water for cfg's engine on a screen of the render's size and cell. */
static int water_for(struct water *w, const struct config *cfg, const struct render *r)
{
	struct water_tuning tuning = config_water_tuning(cfg);

	return water_open(w, config_water_engine(cfg), r->width, r->height, r->cell, &tuning);
}

/* water.obstacles at start: a mask that does not load leaves the water without walls. */
static void start_walls(struct app *app, const struct config *cfg)
{
	char err[512];
	int ret = walls_load(&app->walls, cfg->water.obstacles, cfg->splash.scale,
			     app->render.width, app->render.height, err, sizeof(err));

	if (ret == 0 && (ret = walls_apply(&app->walls, &app->water)) < 0)
		snprintf(err, sizeof(err), "obstacles %.200s: %s", cfg->water.obstacles,
			 strerror(-ret));
	if (ret < 0) {
		log_warn("%s; running without walls", err);
		walls_free(&app->walls);
	}
}

/* What the water and the renderer read from the configuration at every step and frame. */
void screen_apply_look(struct app *app, const struct config *cfg)
{
	struct render_light light = { cfg->water.light, cfg->water.light_direction,
				      cfg->water.specular };

	app->water.tuning = config_water_tuning(cfg);
	app->water.shape = cfg->stone.shape;
	render_set_light(&app->render, &light);
	if (render_set_tint(&app->render, cfg->water.tint) < 0)
		log_warn("water.tint: %s; drawing without it", strerror(ENOMEM));
}

int screen_setup_scene(struct app *app)
{
	const struct config *cfg = &app->cfg;
	int cell = cell_for(app, cfg);
	struct image splash;
	int ret;

	ret = render_init(&app->render, app->fb.width, app->fb.height, cfg->display.rotate, cell,
			  &app->fb.fmt);
	if (ret == 0)
		ret = water_for(&app->water, cfg, &app->render);
	if (ret == 0)
		screen_start_threads(app, cfg);
	if (ret == 0)
		ret = make_splash(cfg, app->render.width, app->render.height, &splash);
	if (ret < 0) {
		log_error("%s", strerror(-ret));
		return ret;
	}
	render_take_splash(&app->render, &splash);
	image_free(&splash);
	start_walls(app, cfg);
	screen_apply_look(app, cfg);
	log_info("water: %s, %dx%d cells of %d pixels", app->water.engine->name, app->water.width,
		 app->water.height, cell);

	app->rain = (struct water_rain){ .rate = cfg->rain.enabled ? cfg->rain.rate : 0,
					 .size = cfg->rain.size, .weight = cfg->rain.weight,
					 .rng = (uint64_t)time(NULL) * 2654435761u | 1 };
	for (int i = 0; i < app->opt.ndrops; i++)
		water_drop(&app->water, app->opt.drops[i][0], app->opt.drops[i][1],
			   cfg->stone.size, cfg->stone.weight);
	return 0;
}

/* Draws the water into the page off screen and shows it. full: every row, on every page. */
void screen_draw(struct app *app, bool full)
{
	if (app->vt_away)
		return;
	if (full)
		app->full_pages = app->fb.pages;
	full = app->full_pages > 0;
	app->full_pages -= full;
	/* a new renderer (a reload's) or a new pool: scratch for its bands, made once */
	if (app->render.bands != app->pool.threads)
		render_set_bands(&app->render, app->pool.threads);
	render_frame_pool(&app->render, &app->water, fb_draw_pixels(&app->fb), app->fb.stride,
			  app->fb.page, full, &app->pool);
	fb_present(&app->fb);
}

void screen_start_threads(struct app *app, const struct config *cfg)
{
	int n = cfg->display.threads ? cfg->display.threads : pool_threads_auto(), ret;

	if (app->pool.threads == n)
		return;
	pool_free(&app->pool);
	ret = pool_init(&app->pool, n);
	if (ret < 0) {
		log_warn("display.threads: %d threads: %s; one thread steps and draws", n,
			 strerror(-ret));
		pool_init(&app->pool, 1);
	}
	log_info("threads: %d step and draw", app->pool.threads);
}

void screen_redraw(struct app *app)
{
	screen_draw(app, true);
	fb_flush(&app->fb);
}

/* A new display device, rotation or cell size: the new one is set up completely before the old
 * one goes, so a failure leaves everything as it was. The waves survive unless the grid
 * changes; then the water starts calm, the splash on screen all along. */
int screen_reopen(struct app *app, const struct config *cfg, char *err, size_t len)
{
	struct fb old_fb = app->fb;
	struct render old_render = app->render;
	struct config old_cfg = app->cfg;
	struct water water = { 0 };
	struct image splash = { 0 };
	struct walls walls = { 0 };
	bool rendered = false, resized = false;
	char why[512] = "";
	int ret = 0;

	app->cfg.display = cfg->display;
	app->cfg.splash = cfg->splash;
	if (!app->opt.fbdev_file && strcmp(cfg->display.device, old_cfg.display.device))
		ret = screen_open_display(app);
	if (ret == 0)
		ret = render_init(&app->render, app->fb.width, app->fb.height,
				  cfg->display.rotate, cell_for(app, cfg), &app->fb.fmt);
	rendered = ret == 0;
	resized = rendered && (app->render.width != app->water.screen_width ||
			       app->render.height != app->water.screen_height ||
			       app->render.cell != app->water.cell);
	if (resized)
		ret = water_for(&water, cfg, &app->render);
	if (ret == 0)
		ret = make_splash(cfg, app->render.width, app->render.height, &splash);
	if (ret == 0)
		ret = walls_load(&walls, cfg->water.obstacles, cfg->splash.scale, app->render.width,
				 app->render.height, why, sizeof(why));
	if (ret == 0 && resized)
		ret = walls_apply(&walls, &water);
	if (ret < 0) {
		walls_free(&walls);
		image_free(&splash);
		water_free(&water);
		if (rendered)
			render_free(&app->render);
		if (app->fb.map != old_fb.map)
			fb_close(&app->fb);
		app->fb = old_fb;
		app->render = old_render;
		app->cfg = old_cfg;
		vt_guard_crashes(&app->vt, &app->fb);
		if (why[0])
			snprintf(err, len, "%s", why);
		else
			snprintf(err, len, "display %s: %s", cfg->display.device, strerror(-ret));
		return ret;
	}
	render_take_splash(&app->render, &splash);
	image_free(&splash);
	render_free(&old_render);
	if (app->fb.map != old_fb.map) {
		fb_close(&old_fb);
		vt_guard_crashes(&app->vt, &app->fb);
	}
	if (resized) {
		water_free(&app->water);
		app->water = water;	/* a new grid: the old waves cannot carry over */
	}
	walls_free(&app->walls);
	app->walls = walls;
	if (!resized && (ret = walls_apply(&app->walls, &app->water)) < 0)
		log_warn("walls: %s; the water keeps the ones it had", strerror(-ret));
	screen_apply_look(app, cfg);
	return 0;
}

/* A new water.cell or engine: a new grid (and renderer for a new cell), the picture carried
 * over (it has not changed), the water calm. Nothing is decoded; on a failure everything
 * stays as it was. */
int screen_regrid(struct app *app, const struct config *cfg, char *err, size_t len)
{
	int cell = cell_for(app, cfg), ret = 0;
	bool new_cell = cell != app->render.cell;
	struct render render = app->render;
	struct water water;

	if (!new_cell && config_water_engine(cfg) == app->water.engine)
		return 0;
	if (new_cell)
		ret = render_init(&render, app->fb.width, app->fb.height, app->render.rotate, cell,
				  &app->fb.fmt);
	if (ret == 0) {
		ret = water_for(&water, cfg, &render);
		if (ret == 0 && (ret = walls_apply(&app->walls, &water)) < 0)
			water_free(&water);
		if (ret < 0 && new_cell)
			render_free(&render);
	}
	if (ret < 0) {
		snprintf(err, len, "water.cell %d, engine %s: %s", cell,
			 config_water_engine(cfg)->name, strerror(-ret));
		return ret;
	}
	if (new_cell) {
		render_copy_picture(&render, &app->render);
		render_free(&app->render);
		app->render = render;
	}
	water_free(&app->water);
	app->water = water;
	return 0;
}

/* The picture for a reload, decoded and scaled to width x height: touches nothing of the app,
 * so a worker thread runs it while the old picture stays on screen. */
int screen_load_splash(const struct config *cfg, int width, int height, struct image *out,
		       char *err, size_t len)
{
	char why[256];
	int ret = load_splash(cfg, width, height, out, why, sizeof(why));

	if (ret < 0)
		snprintf(err, len, "splash %.200s: %.200s", cfg->splash.image, why);
	return ret;
}

/* Swaps in a picture screen_load_splash made, converted to the display's pixel format. */
int screen_reload_splash(struct app *app, const struct image *splash, char *err, size_t len)
{
	int ret = render_set_splash(&app->render, splash);

	if (ret < 0)
		snprintf(err, len, "splash: %s", ret == -EINVAL ? "made for another screen size"
								 : strerror(-ret));
	return ret;
}

/* Swaps in the walls walls_load made for the screen as it is (walls is left empty). */
int screen_reload_walls(struct app *app, struct walls *walls, char *err, size_t len)
{
	int ret = walls_apply(walls, &app->water);

	if (ret < 0) {
		snprintf(err, len, "walls: %s", strerror(-ret));
		return ret;
	}
	walls_free(&app->walls);
	app->walls = *walls;
	*walls = (struct walls){ 0 };
	return 0;
}

/* The frame on screen as an image, for a screenshot: read from the mapping, no msync needed. */
int screen_capture(struct app *app, struct image *img)
{
	return fb_read_image(&app->fb, img);
}

/* --screenshot at the end of a run: the user's own path, replaced if it is there. */
int screen_write_png(struct app *app, const char *path)
{
	struct image img;
	int ret;

	fb_flush(&app->fb);	/* the file framebuffer on disk shows the same frame */
	ret = screen_capture(app, &img);
	if (ret == 0) {
		ret = shot_write(&img, path, true);
		image_free(&img);
	}
	if (ret < 0)
		log_error("screenshot %s: %s", path, shot_strerror(ret));
	return ret;
}

void screen_blank(struct app *app, bool blank)
{
	int ret;

	/* the display is another VT's while we are switched away: leave it alone */
	if (app->vt_away)
		return;
	ret = fb_blank(&app->fb, blank);
	if (ret < 0 && ret != -ENOTTY)
		log_warn("%s: FBIOBLANK: %s", app->fb.path, strerror(-ret));
	log_info(blank ? "no input for screensaver.blank_after: display blanked"
		       : "input: display unblanked");
	if (!blank)
		screen_redraw(app);
}
