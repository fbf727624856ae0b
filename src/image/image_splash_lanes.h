/* image_splash_lanes.h - the floor's rows FLOOR_N pixels at a time, in GCC's generic vectors.
 * image_splash.c includes it once per width, with FLOOR_N and FLOOR_TARGET (the instruction
 * set the width needs) defined; it defines floor_pixelsN() and floor_rowN(). No include guard:
 * each inclusion is another width. */

#define FLOOR_CAT_(a, b) a##b
#define FLOOR_CAT(a, b) FLOOR_CAT_(a, b)
#define FLOOR_NAME(name) FLOOR_CAT(name, FLOOR_N)

/* The helpers' names below stand for this width's (vload: vload8), undefined at the end. */
#define floor_v FLOOR_NAME(floor_v)
#define floor_vi FLOOR_NAME(floor_vi)
#define vload FLOOR_NAME(vload)
#define vsplat FLOOR_NAME(vsplat)
#define vpick FLOOR_NAME(vpick)
#define vclamp FLOOR_NAME(vclamp)
#define vcaustic FLOOR_NAME(vcaustic)
#define vchannel FLOOR_NAME(vchannel)

typedef float floor_v __attribute__((vector_size(FLOOR_N * sizeof(float))));
typedef int32_t floor_vi __attribute__((vector_size(FLOOR_N * sizeof(int32_t))));

FLOOR_TARGET static inline floor_v vload(const float *p)
{
	floor_v v;

	memcpy(&v, p, sizeof(v));
	return v;
}

FLOOR_TARGET static inline floor_v vsplat(float f)
{
	return (floor_v){ 0 } + f;
}

/* where m (-1 or 0 per lane): a, else b */
FLOOR_TARGET static inline floor_v vpick(floor_vi m, floor_v a, floor_v b)
{
	return (floor_v)((m & (floor_vi)a) | (~m & (floor_vi)b));
}

FLOOR_TARGET static inline floor_v vclamp(floor_v v, float lo, float hi)
{
	v = vpick(v < lo, vsplat(lo), v);
	return vpick(v > hi, vsplat(hi), v);
}

FLOOR_TARGET static inline floor_v vcaustic(const struct floor_cols *fc,
					    const struct splash_axis *cy, int x, int first)
{
	floor_v s = vsplat(0.0f), c;

	for (int i = first; i < first + 3; i++)
		s += vload(fc->s[i] + x) * cy->c[i] + vload(fc->c[i] + x) * cy->s[i];
	c = 1.0f - (floor_v)((floor_vi)s & 0x7fffffff) * (1.0f / 3.0f);
	c *= c;
	c *= c;
	return c * c;
}

/* image_channel() of FLOOR_N values, shifted into place. */
FLOOR_TARGET static inline floor_vi vchannel(floor_v v, int shift)
{
	return __builtin_convertvector(vclamp(v, 0.0f, 255.0f) + 0.5f, floor_vi) << shift;
}

/* floor_pixel() of pixels x to x + FLOOR_N - 1, all in row's tile. Inlined into each row loop
 * (the 8-lane one's too), which then keeps the row's and tile's terms in registers. */
FLOOR_TARGET static inline __attribute__((always_inline)) void
FLOOR_NAME(floor_pixels)(const struct floor_row *row, const struct floor_cols *fc, int x,
			 uint32_t *out)
{
	const struct tile_look *tl = &row->tl;
	floor_v t = vclamp(row->t_y + vload(fc->f2 + x), 0.0f, 1.0f);
	floor_v vig = 1.0f - 0.35f * (vload(fc->v2 + x) + row->vy);
	floor_v lit = row->lit_v + vload(fc->near + x) - vload(fc->far + x);
	floor_vi grout = (floor_vi){ 0 } - (int32_t)row->grout, m;
	floor_v c[3], ca, i;
	floor_vi p = (floor_vi){ 0 } + (int32_t)0xff000000u;

	memcpy(&m, fc->in + x, sizeof(m));
	grout |= m;
	t = t * t * (3.0f - 2.0f * t);
	for (int k = 0; k < 3; k++) {
		floor_v d = (deep[k] + (shallow[k] - deep[k]) * t) * tl->dim[k];
		floor_v lit_k = k == 0 ? d * tl->shade + 0.06f * lit
			      : k == 1 ? (d + tl->tint) * tl->shade + 0.07f * lit
				       : d * tl->shade + 0.07f * lit;

		c[k] = vpick(grout, d + (grout_c[k] - d) * 0.42f, lit_k);
	}
	ca = 0.65f * vcaustic(fc, row->ay, x, 0) + 0.35f * vcaustic(fc, row->ay, x, 3);
	i = ca * (0.30f + 0.45f * t);
	p |= vchannel((c[0] * vig + i * 0.55f) * 255.0f, 16);
	p |= vchannel((c[1] * vig + i * 0.90f) * 255.0f, 8);
	p |= vchannel((c[2] * vig + i * 0.95f) * 255.0f, 0);
	memcpy(out + x, &p, sizeof(p));
}

/* The pool floor along one row: tile by tile, FLOOR_N pixels at a time, then 4 at a time
 * where FLOOR_N is more, the last few one by one. */
FLOOR_TARGET static void FLOOR_NAME(floor_row)(const struct splash *sp,
					       const struct splash_axis *ax,
					       const struct floor_cols *fc,
					       const struct splash_axis *ay, uint32_t *out)
{
	struct floor_row row = floor_row_of(sp, ay);

	for (int x = 0, end; x < sp->w; x = end) {
		end = tile_end(sp, ax, x);
		tile_look(&row.tl, ax[x].tile, ay->tile);
		for (; x + FLOOR_N <= end; x += FLOOR_N)
			FLOOR_NAME(floor_pixels)(&row, fc, x, out);
#if FLOOR_N > 4
		for (; x + 4 <= end; x += 4)
			floor_pixels4(&row, fc, x, out);
#endif
		for (; x < end; x++)
			out[x] = floor_pixel(&row, &ax[x]);
	}
}

#undef floor_v
#undef floor_vi
#undef vload
#undef vsplat
#undef vpick
#undef vclamp
#undef vcaustic
#undef vchannel
#undef FLOOR_NAME
#undef FLOOR_CAT
#undef FLOOR_CAT_
#undef FLOOR_N
#undef FLOOR_TARGET
