/* seed_spring.c - seed 004 ported as written, to measure and check against; not in fbripple. */
#include <stdlib.h>

#include "seed_spring.h"

int seed_spring_init(struct seed_spring *s, int nx, int ny, float k, float m)
{
	size_t n = (size_t)nx * ny;
	float **arrays[] = { &s->Lx, &s->Lx0, &s->Wx, &s->kx, &s->mx, &s->lp, &s->rp };
	int ok = 1;

	s->nx = nx;
	s->ny = ny;
	s->spread = 0.025f;
	s->passes = 4;
	for (size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++)
		ok &= (*arrays[a] = calloc(n, sizeof(float))) != NULL;
	if (!ok)
		return -1;
	for (size_t i = 0; i < n; i++) {
		s->kx[i] = k;
		s->mx[i] = m;
	}
	return 0;
}

void seed_spring_free(struct seed_spring *s)
{
	free(s->Lx);
	free(s->Lx0);
	free(s->Wx);
	free(s->kx);
	free(s->mx);
	free(s->lp);
	free(s->rp);
}

void seed_spring_step(struct seed_spring *s)
{
	int nx = s->nx, ny = s->ny, n = nx * ny;
	float *Lx = s->Lx, *Lx0 = s->Lx0, *Wx = s->Wx, *kx = s->kx, *mx = s->mx;
	float *lp = s->lp, *rp = s->rp;
	float dt = 1;

	for (int i = 0; i < n; i++) {
		float x = Lx[i] - Lx0[i];
		float acceleration = -kx[i] * x - mx[i] * Wx[i];

		Lx[i] += Wx[i] * dt;
		Wx[i] += acceleration * dt;
	}

	float spread = s->spread;
	// do some passes where springs pull on their neighbours
	for (int iki = 0; iki < s->passes; iki++) { // 4
		for (int j = 0; j < ny; j++) {
			for (int k = 1; k < nx - 1; k++) {
				int i = k + j * nx;
				lp[i] = spread * (Lx[i] - Lx[i - 1]);
				Wx[i - 1] += lp[i];
				rp[i] = spread * (Lx[i] - Lx[i + 1]);
				Wx[i + 1] += rp[i];
			}
		}
		for (int j = 0; j < ny; j++) {
			for (int k = 1; k < nx - 1; k++) {
				int i = k + j * nx;
				Lx[i - 1] += lp[i];
				Lx[i + 1] += rp[i];
			}
		}
		// y
		for (int j = 1; j < ny - 1; j++) {
			for (int k = 0; k < nx; k++) {
				int i = k + j * nx;
				lp[i] = spread * (Lx[i] - Lx[i - nx]);
				Wx[i - nx] += lp[i];
				rp[i] = spread * (Lx[i] - Lx[i + nx]);
				Wx[i + nx] += rp[i];
			}
		}
		for (int j = 1; j < ny - 1; j++) {
			for (int k = 0; k < nx; k++) {
				int i = k + j * nx;
				Lx[i - nx] += lp[i];
				Lx[i + nx] += rp[i];
			}
		}
	}
}

void seed_spring_drop(struct seed_spring *s, int x, int y, int radius, int weight)
{
	for (int py = y - radius; py <= y + radius; py++)
		for (int px = x - radius; px <= x + radius; px++) {
			if (px < 0 || py < 0 || px >= s->nx || py >= s->ny ||
			    (px - x) * (px - x) + (py - y) * (py - y) >= radius * radius)
				continue;
			s->Lx[py * s->nx + px] = (float)-weight;
			s->Wx[py * s->nx + px] = 0;
		}
}
