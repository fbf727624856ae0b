/* seed_spring.h - a plain port of seed 004's springs and diffusion passes: the reference. */
#ifndef FBRIPPLE_SEED_SPRING_H
#define FBRIPPLE_SEED_SPRING_H

/* The seed's arrays over an nx x ny grid; kx, mx and Lx0 are the same for every node here. */
struct seed_spring {
	int nx, ny;
	float spread;		/* the seed's 0.025 */
	int passes;		/* the seed's 4 */
	float *Lx, *Lx0, *Wx, *kx, *mx, *lp, *rp;
};

int seed_spring_init(struct seed_spring *s, int nx, int ny, float k, float m);
void seed_spring_free(struct seed_spring *s);
void seed_spring_step(struct seed_spring *s);
/* The seed has no stone: this one sets the springs of a disc to -weight, at rest. */
void seed_spring_drop(struct seed_spring *s, int x, int y, int radius, int weight);

#endif
