/* fuzz_input.c - libFuzzer target: any bytes as an input device and its events, through the
 * decoder. The first bytes pick the class, the axis ranges, the screen and its rotation; the
 * rest are events of 8 bytes (type, code, value) as the kernel would send them. */
#include "fuzz.h"

#include <string.h>

#include "input/input.h"

struct header {
	uint8_t cls, rotate;
	uint16_t width, height;
	int32_t axes[4];	/* x min, x max, y min, y max */
};

struct event {
	uint16_t type, code;
	int32_t value;
};

static void on_contact(void *ctx, const struct input_contact *c)
{
	const struct input_map *m = ctx;

	/* every contact lands on the screen */
	if (c->action != INPUT_ACTIVITY &&
	    (c->x < 0 || c->y < 0 || c->x >= m->width || c->y >= m->height))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_decoder d;
	struct input_map map;
	struct header h;
	struct input_axis ax, ay;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	input_map_init(&map, 1 + h.width % 4096, 1 + h.height % 4096, h.rotate % 4 * 90, NULL);
	ax = (struct input_axis){ h.axes[0], h.axes[1] };
	ay = (struct input_axis){ h.axes[2], h.axes[3] };
	input_decoder_init(&d, (enum input_class)(INPUT_MT_B + h.cls % 5), &ax, &ay, &map,
			   h.cls / 5 % 8, 0, on_contact, &map);
	for (size_t at = sizeof(h); at + sizeof(struct event) <= size; at += sizeof(struct event)) {
		struct event e;
		struct input_event ev = { 0 };

		memcpy(&e, data + at, sizeof(e));
		ev.type = e.type;
		ev.code = e.code;
		ev.value = e.value;
		input_decoder_feed(&d, &ev);
	}
	input_decoder_release(&d);
	return 0;
}
