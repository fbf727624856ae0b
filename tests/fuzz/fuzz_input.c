/* fuzz_input.c - libFuzzer target: any bytes as an input device and its events, through the
 * decoder as input.c sets it up for a device. The first bytes make the device (its event codes,
 * properties and axis ranges, as libevdev would read them), the screen, its rotation, the
 * calibration and input.axes; the rest are events of 8 bytes (type, code, value) as the kernel
 * would send them, a SYN_DROPPED followed by libevdev's sync up to the next SYN_REPORT. */
#include "fuzz.h"

#include <libevdev/libevdev.h>
#include <string.h>

#include "input/input.h"

#define FUZZ_SLOTS_MAX 64	/* libevdev allocates a device's slots; the kernel's have at most 64 */

struct header {
	uint16_t caps;		/* the codes and properties the device has: CAP_* */
	uint8_t rotate, axes, min_move, slots;
	uint16_t width, height;
	int32_t range[12];	/* min, max of X, Y, MT X, MT Y, Z, RX */
	int16_t cal[6];		/* thousandths; all 0: no calibration */
};

enum {
	CAP_MT = 1 << 0, CAP_SLOT = 1 << 1, CAP_TOUCH = 1 << 2, CAP_XY = 1 << 3,
	CAP_LEFT = 1 << 4, CAP_REL = 1 << 5, CAP_PEN = 1 << 6, CAP_FINGER = 1 << 7,
	CAP_DIRECT = 1 << 8, CAP_POINTER = 1 << 9, CAP_ZRX = 1 << 10, CAP_KEYBOARD = 1 << 11,
};

struct event {
	uint16_t type, code;
	int32_t value;
};

struct fuzz_ctx {
	const struct input_map *map;
	bool down[INPUT_SLOTS];
};

static void on_contact(void *ctx, const struct input_contact *c)
{
	struct fuzz_ctx *f = ctx;
	const struct input_map *m = f->map;
	int id = c->id - INPUT_SLOTS;	/* the device's id base */

	if (c->action == INPUT_ACTIVITY)
		return;
	/* every contact lands on the screen */
	if (c->x < 0 || c->y < 0 || c->x >= m->width || c->y >= m->height)
		__builtin_trap();
	if (id < 0 || id >= INPUT_SLOTS)
		__builtin_trap();
	/* a contact starts once, moves and ends only while down; a pointer hovers only up */
	if ((c->action == INPUT_DOWN || c->action == INPUT_HOVER) == f->down[id])
		__builtin_trap();
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		f->down[id] = c->action == INPUT_DOWN;
}

static void enable_abs(struct libevdev *dev, unsigned code, int32_t min, int32_t max)
{
	struct input_absinfo a = { .minimum = min, .maximum = max };

	libevdev_enable_event_code(dev, EV_ABS, code, &a);
}

/* libevdev says so when an event is out of the device's range; input.c lets it. */
static void quiet(const struct libevdev *dev, enum libevdev_log_priority priority, void *data,
		  const char *file, int line, const char *func, const char *format, va_list args)
{
	(void)dev, (void)priority, (void)data, (void)file, (void)line, (void)func;
	(void)format, (void)args;
}

static struct libevdev *make_device(const struct header *h)
{
	struct libevdev *dev = libevdev_new();
	unsigned caps = h->caps;

	if (!dev)
		return NULL;
	libevdev_set_device_log_function(dev, quiet, LIBEVDEV_LOG_ERROR, NULL);
	libevdev_set_name(dev, "fuzz");
	if (caps & CAP_XY) {
		enable_abs(dev, ABS_X, h->range[0], h->range[1]);
		enable_abs(dev, ABS_Y, h->range[2], h->range[3]);
	}
	if (caps & CAP_MT) {
		enable_abs(dev, ABS_MT_POSITION_X, h->range[4], h->range[5]);
		enable_abs(dev, ABS_MT_POSITION_Y, h->range[6], h->range[7]);
		enable_abs(dev, ABS_MT_TRACKING_ID, -1, 65535);
	}
	if (caps & CAP_SLOT)
		enable_abs(dev, ABS_MT_SLOT, 0, h->slots % FUZZ_SLOTS_MAX);
	if (caps & CAP_ZRX) {
		enable_abs(dev, ABS_Z, h->range[8], h->range[9]);
		enable_abs(dev, ABS_RX, h->range[10], h->range[11]);
	}
	if (caps & CAP_TOUCH)
		libevdev_enable_event_code(dev, EV_KEY, BTN_TOUCH, NULL);
	if (caps & CAP_LEFT)
		libevdev_enable_event_code(dev, EV_KEY, BTN_LEFT, NULL);
	if (caps & CAP_PEN)
		libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_PEN, NULL);
	if (caps & CAP_FINGER)
		libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_FINGER, NULL);
	if (caps & CAP_KEYBOARD) {
		libevdev_enable_event_code(dev, EV_KEY, KEY_A, NULL);
		libevdev_enable_event_code(dev, EV_KEY, KEY_ENTER, NULL);
	}
	if (caps & CAP_REL) {
		libevdev_enable_event_code(dev, EV_REL, REL_X, NULL);
		libevdev_enable_event_code(dev, EV_REL, REL_Y, NULL);
	}
	if (caps & CAP_DIRECT)
		libevdev_enable_property(dev, INPUT_PROP_DIRECT);
	if (caps & CAP_POINTER)
		libevdev_enable_property(dev, INPUT_PROP_POINTER);
	return dev;
}

/* input.c's device_axes: ABS_Z and ABS_RX by input.axes, or watched in auto. */
static void device_axes(struct input_decoder *d, const struct libevdev *dev, enum input_axes axes)
{
	const struct input_absinfo *z = libevdev_get_abs_info(dev, ABS_Z);
	const struct input_absinfo *rx = libevdev_get_abs_info(dev, ABS_RX);
	struct input_axis az, arx;

	if ((d->cls != INPUT_TOUCH && d->cls != INPUT_TABLET) || !z || !rx)
		return;
	az = (struct input_axis){ z->minimum, z->maximum };
	arx = (struct input_axis){ rx->minimum, rx->maximum };
	if (axes == INPUT_AXES_Z_RX)
		input_decoder_set_axes(d, ABS_Z, ABS_RX, &az, &arx);
	else if (axes == INPUT_AXES_AUTO)
		input_decoder_watch_axes(d, ABS_Z, ABS_RX, &az, &arx);
}

/* What libevdev keeps of the kernel's state as the event passes. */
static void track(struct libevdev *dev, const struct input_event *ev)
{
	if (ev->type == EV_ABS && ev->code >= ABS_MT_TOUCH_MAJOR && ev->code <= ABS_MT_TOOL_Y &&
	    ev->code != ABS_MT_SLOT) {
		int slot = libevdev_get_current_slot(dev);

		if (slot >= 0)
			libevdev_set_slot_value(dev, (unsigned)slot, ev->code, ev->value);
	} else if (ev->type == EV_ABS || ev->type == EV_KEY) {
		libevdev_set_event_value(dev, ev->type, ev->code, ev->value);
	}
}

static void feed(struct input_decoder *d, struct libevdev *dev, const uint8_t *data, size_t size)
{
	bool sync = false;

	for (size_t at = 0; at + sizeof(struct event) <= size; at += sizeof(struct event)) {
		struct event e;
		struct input_event ev = { 0 };

		memcpy(&e, data + at, sizeof(e));
		ev.type = e.type;
		ev.code = e.code;
		ev.value = e.value;
		if (ev.type == EV_SYN && ev.code == SYN_DROPPED) {
			input_decoder_feed(d, &ev);
			sync = true;
			continue;
		}
		if (sync) {
			input_decoder_feed_sync(d, dev, &ev);
			track(dev, &ev);
		} else {
			track(dev, &ev);
			input_decoder_feed(d, &ev);
		}
		if (ev.type == EV_SYN && ev.code == SYN_REPORT) {
			sync = false;
			if (d->frames)
				input_decoder_activity(d);
			d->frames = 0;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_decoder d;
	struct input_map map;
	struct header h;
	struct input_axis ax, ay;
	struct fuzz_ctx f = { .map = &map };
	struct libevdev *dev;
	enum input_class cls;
	double cal[6];
	bool has_cal = false;
	char why[160];

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	dev = make_device(&h);
	if (!dev)
		return 0;
	cls = input_classify(dev, why, sizeof(why), &ax, &ay);
	for (int i = 0; i < 6; i++) {
		cal[i] = h.cal[i] / 1000.0;
		has_cal = has_cal || h.cal[i];
	}
	input_map_device(&map, dev, 1 + h.width % 4096, 1 + h.height % 4096, h.rotate % 4 * 90,
			 has_cal ? cal : NULL);
	input_decoder_init(&d, cls, &ax, &ay, &map, h.min_move % 64, INPUT_SLOTS, on_contact, &f);
	device_axes(&d, dev, (enum input_axes)(h.axes % 3));
	input_decoder_seed(&d, dev);
	feed(&d, dev, data + sizeof(h), size - sizeof(h));
	input_decoder_release(&d);
	for (int i = 0; i < INPUT_SLOTS; i++)
		if (f.down[i])
			__builtin_trap();	/* released, yet a contact stays down */
	libevdev_free(dev);
	return 0;
}
