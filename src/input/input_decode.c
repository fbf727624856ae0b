/* input_decode.c - one input device's events into contacts: classification, protocol A and B
 * multitouch, single touch, pointers, and mapping through calibration and rotation. */
#include "input_decode.h"

#include <errno.h>
#include <libevdev/libevdev.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double identity[6] = { 1, 0, 0, 0, 1, 0 };

/* ---- mapping ---- */

void input_map_init(struct input_map *m, int fb_width, int fb_height, int rotate,
		    const double *cal)
{
	bool sideways = rotate == 90 || rotate == 270;

	m->width = sideways ? fb_height : fb_width;
	m->height = sideways ? fb_width : fb_height;
	m->rotate = rotate;
	memcpy(m->cal, cal ? cal : identity, sizeof(m->cal));
}

static int to_pixel(double n, int size)
{
	double p = floor(n * size);

	if (!(p >= 0))		/* also NaN */
		return 0;
	return p >= size ? size - 1 : (int)p;
}

/* The picture is turned clockwise on the panel, so a logical point (lu, lv) shows at panel
 * point (1 - lv, lu) for 90 degrees; this is the inverse. */
void input_map_point(const struct input_map *m, double u, double v, int *x, int *y)
{
	const double *c = m->cal;
	double cu = c[0] * u + c[1] * v + c[2], cv = c[3] * u + c[4] * v + c[5];
	double lu = cu, lv = cv;

	if (m->rotate == 90) {
		lu = cv;
		lv = 1 - cu;
	} else if (m->rotate == 180) {
		lu = 1 - cu;
		lv = 1 - cv;
	} else if (m->rotate == 270) {
		lu = 1 - cv;
		lv = cu;
	}
	*x = to_pixel(lu, m->width);
	*y = to_pixel(lv, m->height);
}

int input_parse_matrix(const char *text, double cal[6])
{
	double m[6];
	char *end;
	const char *p = text;

	for (int i = 0; i < 6; i++) {
		m[i] = strtod(p, &end);
		if (end == p || !isfinite(m[i]))
			return -EINVAL;
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	memcpy(cal, m, sizeof(m));
	return 0;
}

int input_axes_parse(const char *name, enum input_axes *axes)
{
	for (int i = INPUT_AXES_AUTO; i <= INPUT_AXES_Z_RX; i++) {
		if (strcmp(name, input_axes_name((enum input_axes)i)) == 0) {
			*axes = (enum input_axes)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *input_axes_name(enum input_axes axes)
{
	static const char *const names[] = { "auto", "ABS_X ABS_Y", "ABS_Z ABS_RX" };

	return axes <= INPUT_AXES_Z_RX ? names[axes] : "?";
}

/* ---- the decoder ---- */

void input_decoder_init(struct input_decoder *d, enum input_class cls,
			const struct input_axis *ax, const struct input_axis *ay,
			const struct input_map *map, int min_move, int id_base,
			input_fn *fn, void *ctx)
{
	*d = (struct input_decoder){ .cls = cls, .ax = *ax, .ay = *ay, .map = map,
				     .min_move = min_move, .id_base = id_base, .fn = fn,
				     .ctx = ctx, .button = cls == INPUT_MT_A, .code_x = ABS_X,
				     .code_y = ABS_Y };
	for (int i = 0; i < INPUT_SLOTS; i++) {
		d->s[i] = (struct input_slot){ .id = -1, .tid = -1, .rx = -1, .ry = -1 };
		d->mt[i] = (struct input_slot){ .id = -1, .tid = -1 };
	}
	if (cls == INPUT_MOUSE) {
		d->s[0].x = d->s[0].rx = map->width / 2;
		d->s[0].y = d->s[0].ry = map->height / 2;
	}
}

static void emit(struct input_decoder *d, enum input_action a, int slot, int x, int y,
		 int fx, int fy)
{
	struct input_contact c = { a, d->id_base + slot, x, y, fx, fy, d->time_us };

	d->fn(d->ctx, &c);
}

/* In doubles: a device's range may be wider than an int holds. */
static double normalize(int v, const struct input_axis *a)
{
	double range = (double)a->max - a->min + 1;

	return ((double)v - a->min + 0.5) / (range > 0 ? range : 1);
}

static void logical(const struct input_decoder *d, const struct input_slot *s, int *x, int *y)
{
	if (d->cls == INPUT_MOUSE) {
		*x = s->x;
		*y = s->y;
		return;
	}
	input_map_point(d->map, normalize(s->x, &d->ax), normalize(s->y, &d->ay), x, y);
}

static bool moved(const struct input_decoder *d, const struct input_slot *s, int x, int y)
{
	long dx = x - s->rx, dy = y - s->ry;
	long min = d->min_move > 1 ? d->min_move : 1;

	return dx * dx + dy * dy >= min * min;
}

static void report(struct input_decoder *d, int i, enum input_action a, int x, int y)
{
	struct input_slot *s = &d->s[i];

	emit(d, a, i, x, y, s->rx, s->ry);
	s->rx = x;
	s->ry = y;
}

/* Reports what changed in slot i since the last frame. */
static void commit_slot(struct input_decoder *d, int i)
{
	struct input_slot *s = &d->s[i];
	bool want = s->id >= 0;
	int x, y;

	logical(d, s, &x, &y);
	if (s->down && (!want || s->fresh)) {
		/* a pen leaving range in its stroke (a flick) reports the axes zeroed, not where
		 * it was: the stroke ends where it was last seen */
		if (!s->fresh && !d->tool_left && (x != s->rx || y != s->ry))
			report(d, i, INPUT_MOVE, x, y);
		emit(d, INPUT_UP, i, s->rx, s->ry, s->rx, s->ry);
		s->down = false;
	}
	if (want && !s->down) {
		s->down = true;
		report(d, i, INPUT_DOWN, x, y);
	} else if (want && moved(d, s, x, y)) {
		report(d, i, INPUT_MOVE, x, y);
	} else if (!want && (d->cls == INPUT_MOUSE || d->cls == INPUT_TABLET) &&
		   (x != s->rx || y != s->ry)) {
		if (s->rx >= 0 && moved(d, s, x, y))
			report(d, i, INPUT_HOVER, x, y);
		else if (s->rx < 0)
			s->rx = x, s->ry = y;
	}
	s->fresh = false;
}

static void set_id(struct input_slot *s, int id)
{
	if (id >= 0 && s->down && id != s->id)
		s->fresh = true;
	s->id = id;
}

static void feed_mt_b(struct input_decoder *d, const struct input_event *ev)
{
	struct input_slot *s;

	if (ev->type != EV_ABS)
		return;
	if (ev->code == ABS_MT_SLOT) {
		d->slot = ev->value >= 0 && ev->value < INPUT_SLOTS ? ev->value : -1;
		return;
	}
	if (d->slot < 0)
		return;
	s = &d->s[d->slot];
	if (ev->code == ABS_MT_TRACKING_ID)
		set_id(s, ev->value);
	else if (ev->code == ABS_MT_POSITION_X)
		s->x = ev->value;
	else if (ev->code == ABS_MT_POSITION_Y)
		s->y = ev->value;
}

/* MT-A: the frame's next contact starts with nothing of the one before it in its place, no
 * tracking id either (a device may send ids for some contacts only). */
static void mt_a_next_contact(struct input_decoder *d)
{
	if (d->nmt < INPUT_SLOTS)
		d->mt[d->nmt] = (struct input_slot){ .id = -1, .tid = -1 };
}

static void feed_mt_a(struct input_decoder *d, const struct input_event *ev)
{
	struct input_slot *c = &d->mt[d->nmt];

	if (ev->type == EV_KEY && ev->code == BTN_TOUCH && ev->value != 2) {
		d->button = ev->value;
		d->has_button = true;
	}
	if (ev->type == EV_SYN && ev->code == SYN_MT_REPORT && d->nmt < INPUT_SLOTS) {
		if (c->fresh)
			d->nmt++;
		mt_a_next_contact(d);
		return;
	}
	if (ev->type != EV_ABS || d->nmt == INPUT_SLOTS)	/* contacts past the slots: ignored */
		return;
	if (ev->code == ABS_MT_POSITION_X)
		c->x = ev->value, c->fresh = true;
	else if (ev->code == ABS_MT_POSITION_Y)
		c->y = ev->value, c->fresh = true;
	else if (ev->code == ABS_MT_TRACKING_ID)
		c->id = ev->value;
}

static int find_slot(const struct input_decoder *d, int id, bool free_only)
{
	for (int i = 0; i < INPUT_SLOTS; i++) {
		if (!free_only && d->s[i].id == id)
			return i;
		if (free_only && d->s[i].id < 0 && !d->s[i].down)
			return i;
	}
	return -1;
}

static double distance2(const struct input_slot *a, const struct input_slot *b)
{
	double dx = (double)a->x - b->x, dy = (double)a->y - b->y;

	return dx * dx + dy * dy;
}

/* Contacts with a tracking id: pair[k] is the slot down with contact k's id. */
static void pair_by_id(const struct input_decoder *d, int n, int pair[INPUT_SLOTS],
		       bool taken[INPUT_SLOTS])
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < INPUT_SLOTS && d->mt[k].id >= 0 && pair[k] < 0; i++)
			if (d->s[i].id >= 0 && d->s[i].tid == d->mt[k].id && !taken[i])
				pair[k] = i, taken[i] = true;
}

/* Anonymous contacts, with the contacts down that came without an id: the nearest pair of a
 * contact down and a contact of this frame first, then the nearest of the rest, as mtdev
 * does. */
static void pair_by_distance(const struct input_decoder *d, int n, int pair[INPUT_SLOTS],
			     bool taken[INPUT_SLOTS])
{
	for (;;) {
		double best = INFINITY;
		int bi = -1, bk = -1;

		for (int i = 0; i < INPUT_SLOTS; i++) {
			bool anonymous = d->s[i].id >= 0 && d->s[i].tid < 0 && !taken[i];

			for (int k = 0; k < n && anonymous; k++) {
				double d2 = distance2(&d->s[i], &d->mt[k]);

				if (pair[k] < 0 && d->mt[k].id < 0 && d2 < best) {
					best = d2;
					bi = i;
					bk = k;
				}
			}
		}
		if (bi < 0)
			return;
		taken[bi] = true;
		pair[bk] = bi;
	}
}

/* Protocol A sends every contact in every frame: match them to the contacts down, by tracking
 * id those that have one, by distance those that came without (a device may send ids for
 * some contacts only: the two never pair). pair[k]: contact k's slot, or -1 for a new
 * contact. A contact down with no match is lifted where it was last seen. */
static void frame_mt_a(struct input_decoder *d)
{
	int n = d->button ? d->nmt : 0, pair[INPUT_SLOTS];
	bool kept[INPUT_SLOTS] = { false }, taken[INPUT_SLOTS] = { false };

	for (int k = 0; k < n; k++)
		pair[k] = -1;
	pair_by_id(d, n, pair, taken);
	pair_by_distance(d, n, pair, taken);
	for (int k = 0; k < n; k++) {
		if (pair[k] < 0)
			continue;
		kept[pair[k]] = true;
		d->s[pair[k]].x = d->mt[k].x;
		d->s[pair[k]].y = d->mt[k].y;
	}
	for (int i = 0; i < INPUT_SLOTS; i++)
		if (!kept[i])
			d->s[i].id = -1;
	for (int k = 0; k < n; k++) {
		int i = pair[k] >= 0 ? -1 : find_slot(d, -1, true);

		if (i >= 0)
			d->s[i] = (struct input_slot){ .id = i, .tid = d->mt[k].id,
						       .x = d->mt[k].x, .y = d->mt[k].y,
						       .rx = -1, .ry = -1 };
	}
}

/* The bit of a pointer button (every mouse button, the stylus buttons), or 0. */
static unsigned button_bit(unsigned code)
{
	if (code >= BTN_MOUSE && code <= BTN_TASK)
		return 1u << (code - BTN_MOUSE);
	if (code == BTN_STYLUS || code == BTN_STYLUS2 || code == BTN_STYLUS3)
		return 1u << (8 + (code == BTN_STYLUS2) + 2 * (code == BTN_STYLUS3));
	return 0;
}

/* Every press drops a stone: one while another button is held starts a new contact. Autorepeat
 * (value 2) is not a press. */
static void feed_button(struct input_decoder *d, unsigned code, int value)
{
	struct input_slot *s = &d->s[0];
	unsigned bit = button_bit(code);

	if (!bit || value == 2)
		return;
	if (value && !(d->buttons & bit)) {
		d->buttons |= bit;
		s->fresh = s->fresh || s->down;
		s->id = 0;
	} else if (!value) {
		d->buttons &= ~bit;
		s->id = d->buttons ? 0 : -1;
	}
}

static void feed_axis(struct input_decoder *d, unsigned code, int value)
{
	if (code == d->code_x)
		d->s[0].x = value, d->xy_moved = true;
	else if (code == d->code_y)
		d->s[0].y = value, d->xy_moved = true;
	else if (d->alt_x && code == d->alt_x)
		d->alt_vx = value, d->alt_moved = true;
	else if (d->alt_x && code == d->alt_y)
		d->alt_vy = value, d->alt_moved = true;
}

/* A pen's tool (tip, eraser, puck...) in or out of range; not a finger's. */
static bool pen_tool(unsigned code)
{
	return code >= BTN_TOOL_PEN && code <= BTN_TOOL_LENS && code != BTN_TOOL_FINGER;
}

static void feed_single(struct input_decoder *d, const struct input_event *ev)
{
	if (ev->type == EV_KEY && d->cls == INPUT_TOUCH && ev->code == BTN_TOUCH && ev->value != 2)
		set_id(&d->s[0], ev->value ? 0 : -1);
	else if (ev->type == EV_KEY && d->cls == INPUT_TOUCH && pen_tool(ev->code) && !ev->value) {
		set_id(&d->s[0], -1);	/* out of range: lifted too */
		d->tool_left = true;
	}
	else if (ev->type == EV_KEY && d->cls == INPUT_TABLET)
		feed_button(d, ev->code, ev->value);
	else if (ev->type == EV_ABS)
		feed_axis(d, ev->code, ev->value);
}

/* Past any screen, and far from overflowing int64 however many events a frame has. */
#define MOTION_MAX ((int64_t)1 << 40)

static int64_t add_motion(int64_t sum, int value)
{
	sum += value;
	return sum > MOTION_MAX ? MOTION_MAX : sum < -MOTION_MAX ? -MOTION_MAX : sum;
}

static int move_clamped(int v, int64_t delta, int size)
{
	int64_t r = v + delta;

	return r < 0 ? 0 : r >= size ? size - 1 : (int)r;
}

static void feed_mouse(struct input_decoder *d, const struct input_event *ev)
{
	if (ev->type == EV_KEY)
		feed_button(d, ev->code, ev->value);
	else if (ev->type == EV_REL && ev->code == REL_X)
		d->dx = add_motion(d->dx, ev->value);
	else if (ev->type == EV_REL && ev->code == REL_Y)
		d->dy = add_motion(d->dy, ev->value);
}

/* The watched pair moved and ABS_X/Y never did: the firmware reports on the other pair. */
static void switch_axes(struct input_decoder *d)
{
	if (!d->alt_x || !d->alt_moved || d->xy_moved)
		return;
	d->code_x = d->alt_x;
	d->code_y = d->alt_y;
	d->ax = d->alt_ax;
	d->ay = d->alt_ay;
	d->s[0].x = d->alt_vx;
	d->s[0].y = d->alt_vy;
	d->alt_x = d->alt_y = 0;
	d->axes_switched = true;
}

static void frame(struct input_decoder *d)
{
	if (d->cls == INPUT_MT_A && !(d->dropped && d->button))
		frame_mt_a(d);
	d->nmt = 0;
	mt_a_next_contact(d);		/* also of a frame skipped: the next one starts empty */
	d->dropped = false;
	if (d->cls == INPUT_MOUSE) {
		d->s[0].x = move_clamped(d->s[0].x, d->dx, d->map->width);
		d->s[0].y = move_clamped(d->s[0].y, d->dy, d->map->height);
		d->dx = d->dy = 0;
	}
	switch_axes(d);
	if (d->cls == INPUT_MOUSE || d->cls == INPUT_TABLET)
		commit_slot(d, 0);	/* one pointer, reported even while it only hovers */
	else
		for (int i = 0; i < INPUT_SLOTS; i++)
			if (d->s[i].id >= 0 || d->s[i].down)
				commit_slot(d, i);
	/* a contact held still sends only timestamps, and is someone's all the same */
	d->frames += d->frame || input_decoder_held(d);
	d->frame = d->tool_left = false;
}

/* Protocol A without BTN_TOUCH: the sync has nothing of it to replay, so a lift lost in the
 * drop would never come, and its contacts would stay down. They end where they were last
 * seen; the next frame, which resends every contact, starts those still down anew. */
static void end_unsynced(struct input_decoder *d)
{
	input_decoder_release(d);
	d->dropped = false;	/* no contact left to keep: the next frame is read */
}

/* An event a person made: not a timestamp or a serial number (EV_MSC: a pen in range sends
 * one with every report, lying still), nor a pen's distance, tilt or pressure alone, which
 * drift while it rests on a tablet (a contact held is counted apart). */
static bool by_hand(const struct input_event *ev)
{
	if (ev->type == EV_MSC)
		return false;
	return ev->type != EV_ABS ||
	       (ev->code != ABS_DISTANCE && ev->code != ABS_TILT_X && ev->code != ABS_TILT_Y &&
		ev->code != ABS_PRESSURE && ev->code != ABS_MISC);
}

void input_decoder_feed(struct input_decoder *d, const struct input_event *ev)
{
	if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
		d->time_us = (int64_t)ev->input_event_sec * 1000000 + ev->input_event_usec;
		frame(d);
		return;
	}
	if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
		/* libevdev resyncs slots, keys and axes but cannot restore a protocol A frame:
		 * drop the partial one, and keep the contacts unless the sync lifts BTN_TOUCH (a
		 * device without one cannot keep them: end_unsynced). */
		d->nmt = 0;
		mt_a_next_contact(d);
		d->dx = d->dy = 0;
		d->dropped = true;
		d->sync_due = true;
		if (d->cls == INPUT_MT_A && !d->has_button)
			end_unsynced(d);
		return;
	}
	d->frame = d->frame || by_hand(ev);
	switch (d->cls) {
	case INPUT_MT_B:
		feed_mt_b(d, ev);
		break;
	case INPUT_MT_A:
		feed_mt_a(d, ev);
		break;
	case INPUT_TOUCH:
	case INPUT_TABLET:
		feed_single(d, ev);
		break;
	case INPUT_MOUSE:
		feed_mouse(d, ev);
		break;
	case INPUT_IGNORED:
		break;
	}
}

/* A contact that ended while events were dropped: the kernel kept where it ended, and libevdev
 * read that, but the sync replays only its end (the slot's tracking id going to -1). A contact
 * that ended and was replaced by a new one in the same slot holds the new one's position: it
 * ends where it was last seen. libevdev sets a slot's id to -1 as it returns the end, so the
 * ids the kernel has are read before the first event of the sync. */
void input_decoder_feed_sync(struct input_decoder *d, const struct libevdev *dev,
			     const struct input_event *ev)
{
	int i = d->slot;

	if (d->sync_due && d->cls == INPUT_MT_B)
		for (int k = 0; k < INPUT_SLOTS; k++)
			d->sync_id[k] = libevdev_get_slot_value(dev, (unsigned)k, ABS_MT_TRACKING_ID);
	d->sync_due = false;
	if (d->cls == INPUT_MT_B && ev->type == EV_ABS && ev->code == ABS_MT_TRACKING_ID &&
	    ev->value == -1 && i >= 0 && d->sync_id[i] == -1) {
		d->s[i].x = libevdev_get_slot_value(dev, (unsigned)i, ABS_MT_POSITION_X);
		d->s[i].y = libevdev_get_slot_value(dev, (unsigned)i, ABS_MT_POSITION_Y);
	}
	input_decoder_feed(d, ev);
}

void input_decoder_set_axes(struct input_decoder *d, unsigned code_x, unsigned code_y,
			    const struct input_axis *ax, const struct input_axis *ay)
{
	d->code_x = code_x;
	d->code_y = code_y;
	d->ax = *ax;
	d->ay = *ay;
	d->alt_x = d->alt_y = 0;
}

void input_decoder_watch_axes(struct input_decoder *d, unsigned code_x, unsigned code_y,
			      const struct input_axis *ax, const struct input_axis *ay)
{
	d->alt_x = code_x;
	d->alt_y = code_y;
	d->alt_ax = *ax;
	d->alt_ay = *ay;
}

void input_decoder_seed(struct input_decoder *d, const struct libevdev *dev)
{
	int slot, slots;

	switch (d->cls) {
	case INPUT_MT_B:
		slot = libevdev_get_current_slot(dev);
		d->slot = slot >= 0 && slot < INPUT_SLOTS ? slot : -1;
		slots = libevdev_get_num_slots(dev);
		for (int i = 0; i < INPUT_SLOTS && i < slots; i++) {
			d->s[i].x = libevdev_get_slot_value(dev, i, ABS_MT_POSITION_X);
			d->s[i].y = libevdev_get_slot_value(dev, i, ABS_MT_POSITION_Y);
		}
		break;
	case INPUT_TOUCH:
	case INPUT_TABLET:
		d->s[0].x = libevdev_get_event_value(dev, EV_ABS, d->code_x);
		d->s[0].y = libevdev_get_event_value(dev, EV_ABS, d->code_y);
		d->alt_vx = d->alt_x ? libevdev_get_event_value(dev, EV_ABS, d->alt_x) : 0;
		d->alt_vy = d->alt_x ? libevdev_get_event_value(dev, EV_ABS, d->alt_y) : 0;
		break;
	default:
		break;
	}
}

void input_decoder_activity(struct input_decoder *d)
{
	emit(d, INPUT_ACTIVITY, 0, 0, 0, 0, 0);
}

bool input_decoder_held(const struct input_decoder *d)
{
	for (int i = 0; i < INPUT_SLOTS; i++)
		if (d->s[i].down || d->s[i].id >= 0)
			return true;
	/* not protocol A's button: a device without BTN_TOUCH keeps it set for good, and its
	 * contacts are in the slots */
	return d->buttons;
}

void input_decoder_release(struct input_decoder *d)
{
	for (int i = 0; i < INPUT_SLOTS; i++) {
		struct input_slot *s = &d->s[i];

		if (s->down)
			emit(d, INPUT_UP, i, s->rx, s->ry, s->rx, s->ry);
		s->down = false;
		s->id = -1;
	}
}

/* ---- classification ---- */

const char *input_class_name(enum input_class cls)
{
	static const char *const names[] = {
		[INPUT_IGNORED] = "ignored",
		[INPUT_MT_B] = "multitouch (protocol B, slots)",
		[INPUT_MT_A] = "multitouch (protocol A)",
		[INPUT_TOUCH] = "touchscreen (single touch)",
		[INPUT_TABLET] = "absolute pointer (tablet)",
		[INPUT_MOUSE] = "mouse",
	};

	return cls <= INPUT_MOUSE ? names[cls] : "?";
}

static struct input_axis axis_of(const struct libevdev *dev, unsigned code)
{
	const struct input_absinfo *a = libevdev_get_abs_info(dev, code);

	return a ? (struct input_axis){ a->minimum, a->maximum } : (struct input_axis){ 0, 0 };
}

static bool key(const struct libevdev *dev, unsigned code)
{
	return libevdev_has_event_code(dev, EV_KEY, code);
}

static bool abs_pair(const struct libevdev *dev, unsigned x, unsigned y)
{
	return libevdev_has_event_code(dev, EV_ABS, x) && libevdev_has_event_code(dev, EV_ABS, y);
}

/* A stylus with absolute axes, on a display or beside it: libinput maps a tablet's whole area
 * onto the screen, and so do we. A touchpad that also reports a pen (BTN_TOOL_FINGER) stays a
 * touchpad. */
static bool is_pen(const struct libevdev *dev, bool mt)
{
	return key(dev, BTN_TOOL_PEN) && key(dev, BTN_TOUCH) && abs_pair(dev, ABS_X, ABS_Y) &&
	       !key(dev, BTN_TOOL_FINGER) && !mt;
}

static enum input_class classify_mt(const struct libevdev *dev, char *why, size_t len)
{
	bool slots = libevdev_has_event_code(dev, EV_ABS, ABS_MT_SLOT);
	bool only = !key(dev, BTN_TOUCH) && !abs_pair(dev, ABS_X, ABS_Y);

	snprintf(why, len, "ABS_MT_POSITION_X/Y %s%s%s", slots ? "with ABS_MT_SLOT" :
		 "without ABS_MT_SLOT (SYN_MT_REPORT)",
		 libevdev_has_property(dev, INPUT_PROP_DIRECT) ? ", INPUT_PROP_DIRECT" : "",
		 only ? ", MT-only (no BTN_TOUCH, no ABS_X/Y)" : "");
	return slots ? INPUT_MT_B : INPUT_MT_A;
}

static enum input_class classify_other(const struct libevdev *dev, char *why, size_t len)
{
	bool keyboard = key(dev, KEY_A) && key(dev, KEY_ENTER);

	if (abs_pair(dev, ABS_X, ABS_Y) && key(dev, BTN_LEFT)) {
		snprintf(why, len, "ABS_X/Y with BTN_LEFT, no BTN_TOUCH");
		return INPUT_TABLET;
	}
	if (libevdev_has_event_code(dev, EV_REL, REL_X) &&
	    libevdev_has_event_code(dev, EV_REL, REL_Y) && key(dev, BTN_LEFT)) {
		snprintf(why, len, "REL_X/Y with BTN_LEFT%s", keyboard ? " (also a keyboard)" : "");
		return INPUT_MOUSE;
	}
	if (keyboard)
		snprintf(why, len, "a keyboard: keys, no pointer axes");
	else if (abs_pair(dev, ABS_X, ABS_Y))
		snprintf(why, len, "ABS_X/Y without BTN_TOUCH or BTN_LEFT");
	else if (libevdev_has_event_code(dev, EV_REL, REL_X))
		snprintf(why, len, "REL_X/Y without BTN_LEFT");
	else
		snprintf(why, len, "no pointer axes (buttons or switches only)");
	return INPUT_IGNORED;
}

bool input_beside_screen(const struct libevdev *dev)
{
	return is_pen(dev, abs_pair(dev, ABS_MT_POSITION_X, ABS_MT_POSITION_Y)) &&
	       libevdev_has_property(dev, INPUT_PROP_POINTER) &&
	       !libevdev_has_property(dev, INPUT_PROP_DIRECT);
}

void input_map_device(struct input_map *m, const struct libevdev *dev, int fb_width,
		      int fb_height, int rotate, const double *cal)
{
	input_map_init(m, fb_width, fb_height, rotate, cal);
	if (input_beside_screen(dev))
		m->rotate = 0;	/* the logical size stays: the tablet spans the picture upright */
}

enum input_class input_classify(const struct libevdev *dev, char *why, size_t len,
				struct input_axis *ax, struct input_axis *ay)
{
	bool pointer = libevdev_has_property(dev, INPUT_PROP_POINTER) &&
		       !libevdev_has_property(dev, INPUT_PROP_DIRECT);
	bool mt = abs_pair(dev, ABS_MT_POSITION_X, ABS_MT_POSITION_Y);
	enum input_class cls;

	*ax = axis_of(dev, mt ? ABS_MT_POSITION_X : ABS_X);
	*ay = axis_of(dev, mt ? ABS_MT_POSITION_Y : ABS_Y);
	if (is_pen(dev, mt)) {
		snprintf(why, len, "a pen: BTN_TOOL_PEN with ABS_X/Y and BTN_TOUCH, %s "
			 "INPUT_PROP_DIRECT, mapped to the whole screen",
			 libevdev_has_property(dev, INPUT_PROP_DIRECT) ? "with" : "without");
		return INPUT_TOUCH;
	}
	if (pointer && (mt || key(dev, BTN_TOUCH))) {
		snprintf(why, len, "a touchpad: touch axes with INPUT_PROP_POINTER");
		return INPUT_IGNORED;
	}
	if (mt)
		return classify_mt(dev, why, len);
	if (abs_pair(dev, ABS_X, ABS_Y) && key(dev, BTN_TOUCH)) {
		snprintf(why, len, "ABS_X/Y with BTN_TOUCH, %s INPUT_PROP_DIRECT",
			 libevdev_has_property(dev, INPUT_PROP_DIRECT) ? "with" : "without");
		return INPUT_TOUCH;
	}
	cls = classify_other(dev, why, len);
	if (cls == INPUT_MOUSE)
		*ax = *ay = (struct input_axis){ 0, 0 };
	return cls;
}
