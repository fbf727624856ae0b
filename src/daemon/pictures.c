/* pictures.c - the splash and the walls a reload or an adoption needs, made off the loop by a
 * worker's thread (or on it, with no thread to be had), and freed if nobody took them. */
#include "app.h"

void pictures_make(struct pictures_job *p)
{
	p->ret = screen_make_pictures(&p->cfg, p->width, p->height, &p->made, p->err,
				      sizeof(p->err));
}

void pictures_remake(struct pictures_job *p, bool splash, bool walls)
{
	if (splash)
		p->ret = screen_load_splash(&p->cfg, p->width, p->height, &p->made.splash, p->err,
					    sizeof(p->err));
	if (p->ret == 0 && walls)
		p->ret = walls_load(&p->made.walls, p->cfg.water.obstacles, p->cfg.splash.scale,
				    p->width, p->height, p->err, sizeof(p->err));
}

void pictures_free(struct pictures_job *p)
{
	image_free(&p->made.splash);
	walls_free(&p->made.walls);
}
