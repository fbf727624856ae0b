/* input.c - evdev devices through libevdev: classification, the read loop with SYN_DROPPED
 * resync, per-device contact decoding, coordinate mapping, and hotplug (udev or inotify). */
#include "input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libevdev/libevdev.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBUDEV
#include <libudev.h>
#endif

#define INPUT_DIR "/dev/input"
#define INPUT_PATTERNS_MAX 16
#define INPUT_ACTIVITY_MS 100	/* INPUT_ACTIVITY at most this often during a stream */

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

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
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

/* ---- the decoder ---- */

void input_decoder_init(struct input_decoder *d, enum input_class cls,
			const struct input_axis *ax, const struct input_axis *ay,
			const struct input_map *map, int min_move, int id_base,
			input_fn *fn, void *ctx)
{
	*d = (struct input_decoder){ .cls = cls, .ax = *ax, .ay = *ay, .map = map,
				     .min_move = min_move, .id_base = id_base, .fn = fn,
				     .ctx = ctx, .button = cls == INPUT_MT_A };
	for (int i = 0; i < INPUT_SLOTS; i++)
		d->s[i] = (struct input_slot){ .id = -1, .rx = -1, .ry = -1 };
	if (cls == INPUT_MOUSE) {
		d->s[0].x = d->s[0].rx = map->width / 2;
		d->s[0].y = d->s[0].ry = map->height / 2;
	}
}

static void emit(struct input_decoder *d, enum input_action a, int slot, int x, int y,
		 int fx, int fy)
{
	struct input_contact c = { a, d->id_base + slot, x, y, fx, fy };

	d->fn(d->ctx, &c);
}

static double normalize(int v, const struct input_axis *a)
{
	int range = a->max - a->min + 1;

	return (v - a->min + 0.5) / (range > 0 ? range : 1);
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
		if (!s->fresh && (x != s->rx || y != s->ry))
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

static void feed_mt_a(struct input_decoder *d, const struct input_event *ev)
{
	struct input_slot *c = &d->mt[d->nmt < INPUT_SLOTS ? d->nmt : INPUT_SLOTS - 1];

	if (ev->type == EV_KEY && ev->code == BTN_TOUCH && ev->value != 2)
		d->button = ev->value;
	if (ev->type == EV_SYN && ev->code == SYN_MT_REPORT) {
		if (c->fresh && d->nmt < INPUT_SLOTS)
			d->nmt++;
		d->mt[d->nmt < INPUT_SLOTS ? d->nmt : INPUT_SLOTS - 1].fresh = false;
		return;
	}
	if (ev->type != EV_ABS)
		return;
	if (ev->code == ABS_MT_POSITION_X)
		c->x = ev->value, c->fresh = true;
	else if (ev->code == ABS_MT_POSITION_Y)
		c->y = ev->value, c->fresh = true;
	else if (ev->code == ABS_MT_TRACKING_ID)
		c->id = ev->value, d->mt_has_id = true;
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

/* Protocol A sends every contact in every frame: match them to slots by tracking id when the
 * device has one, else by their order in the frame. */
static void frame_mt_a(struct input_decoder *d)
{
	int n = d->button ? d->nmt : 0;
	bool matched[INPUT_SLOTS] = { false };

	for (int i = 0; i < INPUT_SLOTS; i++) {
		int j = -1;

		for (int k = 0; k < n && d->mt_has_id && d->s[i].id >= 0; k++)
			if (d->mt[k].id == d->s[i].id)
				j = k;
		if (!d->mt_has_id)
			j = i < n ? i : -1;
		if (j < 0) {
			d->s[i].id = -1;
			continue;
		}
		matched[j] = true;
		d->s[i].id = d->mt_has_id ? d->mt[j].id : i;
		d->s[i].x = d->mt[j].x;
		d->s[i].y = d->mt[j].y;
	}
	for (int k = 0; k < n; k++) {
		int i = matched[k] ? -1 : find_slot(d, -1, true);

		if (i >= 0)
			d->s[i] = (struct input_slot){ .id = d->mt[k].id, .x = d->mt[k].x,
						       .y = d->mt[k].y, .rx = -1, .ry = -1 };
	}
	d->nmt = 0;
	d->mt[0].fresh = false;
}

static void feed_single(struct input_decoder *d, const struct input_event *ev)
{
	int button = d->cls == INPUT_TOUCH ? BTN_TOUCH : BTN_LEFT;

	if (ev->type == EV_KEY && ev->code == button && ev->value != 2)
		set_id(&d->s[0], ev->value ? 0 : -1);
	else if (ev->type == EV_ABS && ev->code == ABS_X)
		d->s[0].x = ev->value;
	else if (ev->type == EV_ABS && ev->code == ABS_Y)
		d->s[0].y = ev->value;
}

static void feed_mouse(struct input_decoder *d, const struct input_event *ev)
{
	if (ev->type == EV_KEY && ev->code == BTN_LEFT && ev->value != 2)
		set_id(&d->s[0], ev->value ? 0 : -1);
	else if (ev->type == EV_REL && ev->code == REL_X)
		d->dx += ev->value;
	else if (ev->type == EV_REL && ev->code == REL_Y)
		d->dy += ev->value;
}

static void frame(struct input_decoder *d)
{
	if (d->cls == INPUT_MT_A && !(d->dropped && d->button))
		frame_mt_a(d);
	d->nmt = 0;
	d->dropped = false;
	if (d->cls == INPUT_MOUSE) {
		d->s[0].x = clamp(d->s[0].x + d->dx, 0, d->map->width - 1);
		d->s[0].y = clamp(d->s[0].y + d->dy, 0, d->map->height - 1);
		d->dx = d->dy = 0;
	}
	for (int i = 0; i < INPUT_SLOTS; i++)
		if (d->s[i].id >= 0 || d->s[i].down || d->cls == INPUT_MOUSE ||
		    d->cls == INPUT_TABLET)
			commit_slot(d, i);
	d->frames += d->frame;
	d->frame = false;
}

void input_decoder_feed(struct input_decoder *d, const struct input_event *ev)
{
	if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
		frame(d);
		return;
	}
	if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
		/* libevdev resyncs slots, keys and axes but cannot restore a protocol A frame:
		 * drop the partial one, and keep the contacts unless the sync lifts BTN_TOUCH. */
		d->nmt = 0;
		d->mt[0].fresh = false;
		d->dx = d->dy = 0;
		d->dropped = true;
		return;
	}
	d->frame = true;
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

enum input_class input_classify(const struct libevdev *dev, char *why, size_t len,
				struct input_axis *ax, struct input_axis *ay)
{
	bool pointer = libevdev_has_property(dev, INPUT_PROP_POINTER) &&
		       !libevdev_has_property(dev, INPUT_PROP_DIRECT);
	bool mt = abs_pair(dev, ABS_MT_POSITION_X, ABS_MT_POSITION_Y);
	enum input_class cls;

	*ax = axis_of(dev, mt ? ABS_MT_POSITION_X : ABS_X);
	*ay = axis_of(dev, mt ? ABS_MT_POSITION_Y : ABS_Y);
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

/* ---- devices ---- */

struct input_device {
	struct loop_source src;
	struct input *in;
	struct libevdev *evdev;		/* NULL: a free entry */
	char path[INPUT_PATH_MAX];
	struct input_map map;
	struct input_decoder dec;
};

struct input {
	struct input_opts opts;
	char *patterns[INPUT_PATTERNS_MAX];
	int npatterns;
	struct loop *loop;
	struct loop_source watch;	/* inotify or udev monitor */
	int dir_wd;			/* inotify watch on /dev/input, or -1 while it is missing */
	struct input_device dev[INPUT_DEVICES_MAX];
	long activity_ms;		/* when INPUT_ACTIVITY was last reported */
	char retry[INPUT_DEVICES_MAX][INPUT_PATH_MAX];	/* nodes we may not open yet */
	input_fn *fn;
	input_note_fn *note;
	void *ctx;
#ifdef HAVE_LIBUDEV
	struct udev *udev;
	struct udev_monitor *mon;
#endif
};

__attribute__((format(printf, 3, 4)))
static void note(const struct input *in, enum log_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!in->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	in->note(in->ctx, level, msg);
}

static bool is_event_node(const char *name)
{
	return strncmp(name, "event", 5) == 0 && name[5] >= '0' && name[5] <= '9';
}

/* With input.devices set, a device is used only if its path or its name matches an entry. */
static bool wanted(const struct input_opts *o, const char *path, const char *name)
{
	if (!o->devices || o->ndevices == 0)
		return !o->only_listed;
	for (int i = 0; i < o->ndevices; i++) {
		const char *p = o->devices[i];

		if (fnmatch(p, p[0] == '/' ? path : name, 0) == 0)
			return true;
	}
	return false;
}

#ifdef HAVE_LIBUDEV
static bool udev_matrix(struct udev *udev, int fd, double cal[6])
{
	struct udev_device *ud;
	struct stat st;
	const char *prop;
	bool ok = false;

	if (!udev || fstat(fd, &st) < 0)
		return false;
	ud = udev_device_new_from_devnum(udev, 'c', st.st_rdev);
	if (!ud)
		return false;
	prop = udev_device_get_property_value(ud, "LIBINPUT_CALIBRATION_MATRIX");
	ok = prop && input_parse_matrix(prop, cal) == 0;
	udev_device_unref(ud);
	return ok;
}
#endif

/* The calibration for a device: the config's, else its udev property, else identity. */
static const char *device_matrix(const struct input *in, int fd, double cal[6])
{
	(void)fd;
	if (in && in->opts.has_cal) {
		memcpy(cal, in->opts.cal, sizeof(in->opts.cal));
		return "input.calibration";
	}
#ifdef HAVE_LIBUDEV
	if (in && udev_matrix(in->udev, fd, cal))
		return "LIBINPUT_CALIBRATION_MATRIX";
#endif
	memcpy(cal, identity, sizeof(identity));
	return "identity";
}

static struct input_device *device_by_path(struct input *in, const char *path)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (in->dev[i].evdev && strcmp(in->dev[i].path, path) == 0)
			return &in->dev[i];
	return NULL;
}

static void device_close(struct input_device *d, const char *why)
{
	struct input *in = d->in;

	note(in, LOG_LEVEL_INFO, "%s: \"%s\" %s", d->path, libevdev_get_name(d->evdev), why);
	input_decoder_release(&d->dec);
	loop_remove(in->loop, &d->src);
	libevdev_free(d->evdev);
	close(d->src.fd);
	d->evdev = NULL;
	d->src.fd = -1;
}

/* A contact that ended while events were dropped: libevdev's state holds where it ended, but
 * the sync replays only its end (the slot's tracking id going to -1). */
static void feed_sync(struct input_device *d, const struct input_event *ev)
{
	struct input_decoder *dec = &d->dec;

	if (dec->cls == INPUT_MT_B && ev->type == EV_ABS && ev->code == ABS_MT_TRACKING_ID &&
	    ev->value == -1 && dec->slot >= 0 &&
	    libevdev_get_slot_value(d->evdev, (unsigned)dec->slot, ABS_MT_TRACKING_ID) == -1) {
		dec->s[dec->slot].x = libevdev_get_slot_value(d->evdev, (unsigned)dec->slot,
							      ABS_MT_POSITION_X);
		dec->s[dec->slot].y = libevdev_get_slot_value(d->evdev, (unsigned)dec->slot,
							      ABS_MT_POSITION_Y);
	}
	input_decoder_feed(dec, ev);
}

/* The first activity after a quiet spell at once, then at most every INPUT_ACTIVITY_MS: a
 * flood of events must not become a flood of wake-ups for the caller. */
static bool activity_due(struct input *in)
{
	struct timespec ts;
	long now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
	if (in->activity_ms && now - in->activity_ms < INPUT_ACTIVITY_MS)
		return false;
	in->activity_ms = now;
	return true;
}

static void feed_all(struct input_device *d)
{
	struct input_event ev;
	int rc;

	do {
		rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_NORMAL, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SUCCESS)
			input_decoder_feed(&d->dec, &ev);
		if (rc != LIBEVDEV_READ_STATUS_SYNC)
			continue;
		input_decoder_feed(&d->dec, &ev);	/* the SYN_DROPPED */
		note(d->in, LOG_LEVEL_DEBUG, "%s: events dropped; resyncing", d->path);
		while (rc == LIBEVDEV_READ_STATUS_SYNC) {
			rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_SYNC, &ev);
			if (rc == LIBEVDEV_READ_STATUS_SYNC)
				feed_sync(d, &ev);
		}
		if (rc == -EAGAIN)
			rc = LIBEVDEV_READ_STATUS_SUCCESS;
	} while (rc == LIBEVDEV_READ_STATUS_SUCCESS);
	if (d->dec.frames && activity_due(d->in))
		emit(&d->dec, INPUT_ACTIVITY, 0, 0, 0, 0, 0);
	d->dec.frames = 0;
	if (rc != -EAGAIN)
		device_close(d, rc == -ENODEV ? "went away" : "failed; closed");
}

static void on_device(struct loop_source *src, uint32_t events)
{
	struct input_device *d = src->ctx;

	if (!d->evdev)
		return;		/* closed earlier in this batch */
	feed_all(d);
	if (d->evdev && (events & (EPOLLHUP | EPOLLERR)))
		device_close(d, "went away");
}

static void retry_later(struct input *in, const char *path)
{
	int free_at = -1;

	for (int i = 0; i < INPUT_DEVICES_MAX; i++) {
		if (strcmp(in->retry[i], path) == 0)
			return;
		if (!in->retry[i][0] && free_at < 0)
			free_at = i;
	}
	if (free_at >= 0)
		snprintf(in->retry[free_at], INPUT_PATH_MAX, "%s", path);
}

static void retry_forget(struct input *in, const char *path)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (strcmp(in->retry[i], path) == 0)
			in->retry[i][0] = '\0';
}

static struct input_device *free_entry(struct input *in)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (!in->dev[i].evdev)
			return &in->dev[i];
	return NULL;
}

/* Opens fd's device into d if it is one we use; 0, 1 if ignored, or -errno. */
static int device_setup(struct input *in, struct input_device *d, int fd, const char *path)
{
	struct input_axis ax, ay;
	enum input_class cls;
	char why[160];
	double cal[6];
	const char *from;
	int rc = libevdev_new_from_fd(fd, &d->evdev);

	if (rc < 0)
		return rc;
	cls = input_classify(d->evdev, why, sizeof(why), &ax, &ay);
	if (cls == INPUT_IGNORED || !wanted(&in->opts, path, libevdev_get_name(d->evdev))) {
		note(in, LOG_LEVEL_DEBUG, "%s: \"%s\" ignored: %s", path,
		     libevdev_get_name(d->evdev), cls == INPUT_IGNORED ? why : "not in input.devices");
		return 1;
	}
	if (in->opts.grab && (rc = libevdev_grab(d->evdev, LIBEVDEV_GRAB)) < 0)
		note(in, LOG_LEVEL_WARNING, "%s: cannot grab: %s", path, strerror(-rc));
	from = device_matrix(in, fd, cal);
	input_map_init(&d->map, in->opts.fb_width, in->opts.fb_height, in->opts.rotate, cal);
	input_decoder_init(&d->dec, cls, &ax, &ay, &d->map, in->opts.min_move,
			   (int)(d - in->dev) * INPUT_SLOTS, in->fn, in->ctx);
	if (cls == INPUT_MT_B)
		d->dec.slot = libevdev_get_current_slot(d->evdev);
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->src = (struct loop_source){ fd, on_device, d };
	rc = loop_add(in->loop, &d->src);
	if (rc == 0)
		note(in, LOG_LEVEL_INFO, "%s: \"%s\": %s (%s); calibration: %s", path,
		     libevdev_get_name(d->evdev), input_class_name(cls), why, from);
	return rc;
}

/* Opens path if it is a device we use. 0 or -errno (-EACCES: retried on a change). */
static int device_add(struct input *in, const char *path)
{
	struct input_device *d;
	int fd, rc;

	if (device_by_path(in, path))
		return 0;
	d = free_entry(in);
	if (!d)
		return -EMFILE;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -EACCES || rc == -EPERM)
			retry_later(in, path);
		return rc;
	}
	retry_forget(in, path);
	d->in = in;
	rc = device_setup(in, d, fd, path);
	if (rc != 0) {
		libevdev_free(d->evdev);
		d->evdev = NULL;
		close(fd);
	}
	return rc < 0 ? rc : 0;
}

static void device_add_noted(struct input *in, const char *path)
{
	int rc = device_add(in, path);

	if (rc == -EACCES || rc == -EPERM)
		note(in, LOG_LEVEL_WARNING, "%s: %s; retrying when its permissions change", path,
		     strerror(-rc));
	else if (rc < 0 && rc != -ENOENT && rc != -ENODEV)
		note(in, LOG_LEVEL_WARNING, "%s: %s", path, strerror(-rc));
}

static int scan_filter(const struct dirent *e)
{
	return is_event_node(e->d_name);
}

static int scan_compare(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 5) - atoi((*b)->d_name + 5);
}

/* Calls fn for every /dev/input/eventN, in numeric order. */
static int scan(void (*fn)(void *ctx, const char *path), void *ctx)
{
	struct dirent **list;
	char path[INPUT_PATH_MAX];
	int n = scandir(INPUT_DIR, &list, scan_filter, scan_compare);

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), INPUT_DIR "/%.32s", list[i]->d_name);
		fn(ctx, path);
		free(list[i]);
	}
	free(list);
	return 0;
}

static void scan_add(void *ctx, const char *path)
{
	device_add_noted(ctx, path);
}

/* ---- hotplug ---- */

static void node_removed(struct input *in, const char *path)
{
	struct input_device *d = device_by_path(in, path);

	retry_forget(in, path);
	if (d)
		device_close(d, "unplugged");
}

static void node_changed(struct input *in, const char *path)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (strcmp(in->retry[i], path) == 0)
			device_add_noted(in, path);
}

static int watch_dir(struct input *in)
{
	in->dir_wd = inotify_add_watch(in->watch.fd, INPUT_DIR,
				       IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO);
	if (in->dir_wd >= 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	/* no input device yet: wait for the directory */
	return inotify_add_watch(in->watch.fd, "/dev", IN_CREATE | IN_ONLYDIR) < 0 ? -errno : 0;
}

static void inotify_event(struct input *in, const struct inotify_event *e)
{
	char path[INPUT_PATH_MAX];

	if (e->wd != in->dir_wd) {
		if ((e->mask & IN_CREATE) && strcmp(e->name, "input") == 0 && watch_dir(in) == 0 &&
		    in->dir_wd >= 0)
			scan(scan_add, in);
		return;
	}
	if (!e->len || !is_event_node(e->name))
		return;
	snprintf(path, sizeof(path), INPUT_DIR "/%.32s", e->name);
	if (e->mask & (IN_CREATE | IN_MOVED_TO))
		device_add_noted(in, path);
	else if (e->mask & IN_ATTRIB)
		node_changed(in, path);
	else if (e->mask & IN_DELETE)
		node_removed(in, path);
}

static void on_inotify(struct loop_source *src, uint32_t events)
{
	struct input *in = src->ctx;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	(void)events;
	while ((n = read(src->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			inotify_event(in, e);
			p += sizeof(*e) + e->len;
		}
	}
}

#ifdef HAVE_LIBUDEV
static void on_udev(struct loop_source *src, uint32_t events)
{
	struct input *in = src->ctx;
	struct udev_device *ud;

	(void)events;
	while ((ud = udev_monitor_receive_device(in->mon))) {
		const char *node = udev_device_get_devnode(ud), *action = udev_device_get_action(ud);
		const char *base = node ? strrchr(node, '/') : NULL;

		if (base && action && is_event_node(base + 1)) {
			if (strcmp(action, "add") == 0)
				device_add_noted(in, node);
			else if (strcmp(action, "remove") == 0)
				node_removed(in, node);
			else if (strcmp(action, "change") == 0)
				node_changed(in, node);
		}
		udev_device_unref(ud);
	}
}

/* A udev monitor sees nodes only after udevd has set their permissions; needs udevd. */
static int open_udev_monitor(struct input *in)
{
	if (!in->udev || access("/run/udev/control", F_OK) < 0)
		return -ENOENT;
	in->mon = udev_monitor_new_from_netlink(in->udev, "udev");
	if (!in->mon || udev_monitor_filter_add_match_subsystem_devtype(in->mon, "input", NULL) < 0 ||
	    udev_monitor_enable_receiving(in->mon) < 0)
		return -EIO;
	in->watch = (struct loop_source){ udev_monitor_get_fd(in->mon), on_udev, in };
	return 0;
}
#endif

static int open_watch(struct input *in)
{
	int rc;

#ifdef HAVE_LIBUDEV
	in->udev = udev_new();
	if (open_udev_monitor(in) == 0)
		return loop_add(in->loop, &in->watch);
	if (in->mon)
		udev_monitor_unref(in->mon);
	in->mon = NULL;
#endif
	in->watch = (struct loop_source){ inotify_init1(IN_NONBLOCK | IN_CLOEXEC), on_inotify, in };
	if (in->watch.fd < 0)
		return -errno;
	rc = watch_dir(in);
	return rc ? rc : loop_add(in->loop, &in->watch);
}

static int copy_patterns(struct input *in, const struct input_opts *o)
{
	for (int i = 0; i < in->npatterns; i++)
		free(in->patterns[i]);
	in->npatterns = 0;
	in->opts.devices = (const char *const *)in->patterns;
	in->opts.ndevices = 0;
	for (int i = 0; o->devices && i < o->ndevices && i < INPUT_PATTERNS_MAX; i++) {
		in->patterns[i] = strdup(o->devices[i]);
		if (!in->patterns[i])
			return -ENOMEM;
		in->opts.ndevices = ++in->npatterns;
	}
	return 0;
}

int input_open(struct input **out, const struct input_opts *opts, struct loop *loop,
	       input_fn *fn, input_note_fn *note_fn, void *ctx)
{
	struct input *in = calloc(1, sizeof(*in));
	int rc;

	*out = NULL;
	if (!in)
		return -ENOMEM;
	in->opts = *opts;
	in->loop = loop;
	in->fn = fn;
	in->note = note_fn;
	in->ctx = ctx;
	in->dir_wd = -1;
	in->watch.fd = -1;
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		in->dev[i].src.fd = -1;
	rc = copy_patterns(in, opts);
	if (rc == 0)
		rc = open_watch(in);
	if (rc < 0) {
		input_close(in);
		return rc;
	}
	*out = in;
	scan(scan_add, in);
	return 0;
}

void input_close(struct input *in)
{
	if (!in)
		return;
	for (int i = 0; i < INPUT_DEVICES_MAX; i++) {
		struct input_device *d = &in->dev[i];

		if (!d->evdev)
			continue;
		loop_remove(in->loop, &d->src);
		libevdev_free(d->evdev);
		close(d->src.fd);
	}
#ifdef HAVE_LIBUDEV
	if (in->mon)
		udev_monitor_unref(in->mon);	/* closes the watch fd */
	else if (in->watch.fd >= 0)
		close(in->watch.fd);
	if (in->udev)
		udev_unref(in->udev);
#else
	if (in->watch.fd >= 0)
		close(in->watch.fd);
#endif
	for (int i = 0; i < in->npatterns; i++)
		free(in->patterns[i]);
	free(in);
}

int input_reconfigure(struct input *in, const struct input_opts *opts)
{
	int rc;

	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (in->dev[i].evdev)
			device_close(&in->dev[i], "closed for the new configuration");
	memset(in->retry, 0, sizeof(in->retry));
	in->opts = *opts;
	rc = copy_patterns(in, opts);
	if (rc == 0)
		rc = scan(scan_add, in);
	return rc == -ENOENT ? 0 : rc;
}

int input_count(const struct input *in)
{
	int n = 0;

	for (int i = 0; in && i < INPUT_DEVICES_MAX; i++)
		n += in->dev[i].evdev != NULL;
	return n;
}

/* ---- --list-devices ---- */

struct lister {
	FILE *out;
	const struct input_opts *opts;
	struct input *in;	/* for udev calibration only */
};

static void list_ranges(const struct lister *l, int fd, enum input_class cls,
			const struct input_axis *ax, const struct input_axis *ay)
{
	struct input_map map;
	double cal[6];
	const char *from;
	int x0, y0, x1, y1;

	if (cls == INPUT_MOUSE) {
		fprintf(l->out, "    relative motion; the pointer starts at the screen centre\n");
		return;
	}
	from = device_matrix(l->in, fd, cal);
	fprintf(l->out, "    x %d..%d, y %d..%d", ax->min, ax->max, ay->min, ay->max);
	if (l->opts->fb_width > 0) {
		input_map_init(&map, l->opts->fb_width, l->opts->fb_height, l->opts->rotate, cal);
		input_map_point(&map, 0, 0, &x0, &y0);
		input_map_point(&map, 0.999999, 0.999999, &x1, &y1);
		fprintf(l->out, " -> screen (%d,%d)..(%d,%d) of %dx%d", x0, y0, x1, y1, map.width,
			map.height);
	}
	fprintf(l->out, "; calibration %s [%g %g %g %g %g %g], rotate %d\n", from, cal[0], cal[1],
		cal[2], cal[3], cal[4], cal[5], l->opts->rotate);
}

static void list_one(void *ctx, const char *path)
{
	const struct lister *l = ctx;
	struct libevdev *dev = NULL;
	struct input_axis ax, ay;
	enum input_class cls;
	char why[160];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || libevdev_new_from_fd(fd, &dev) < 0) {
		fprintf(l->out, "%s: cannot open: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	cls = input_classify(dev, why, sizeof(why), &ax, &ay);
	if (cls != INPUT_IGNORED && !wanted(l->opts, path, libevdev_get_name(dev))) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; not in input.devices");
		cls = INPUT_IGNORED;
	}
	fprintf(l->out, "%s: \"%s\": %s: %s\n", path, libevdev_get_name(dev),
		input_class_name(cls), why);
	if (cls != INPUT_IGNORED)
		list_ranges(l, fd, cls, &ax, &ay);
	libevdev_free(dev);
	close(fd);
}

int input_list_devices(FILE *out, const struct input_opts *opts)
{
	struct input in = { .opts = *opts };
	struct lister l = { out, opts, &in };
	int rc;

#ifdef HAVE_LIBUDEV
	in.udev = udev_new();
#endif
	rc = scan(list_one, &l);
	if (rc < 0)
		fprintf(out, "%s: %s\n", INPUT_DIR, strerror(-rc));
#ifdef HAVE_LIBUDEV
	if (in.udev)
		udev_unref(in.udev);
#endif
	return rc;
}
