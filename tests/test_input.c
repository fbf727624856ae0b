/* test_input.c - the input decoder fed evemu-format event text, classification of libevdev
 * devices made without a kernel, coordinate mapping (calibration, rotation), and a flood. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "input/input.h"
#include "water/water.h"

/* What the decoder reported, as text: "down 0 50,50; move 0 70,50; up 0 70,50". */
struct record {
	char text[4096];
	size_t len;
	struct input_contact last;
};

static void on_contact(void *ctx, const struct input_contact *c)
{
	static const char *const names[] = { "down", "move", "up", "hover" };
	struct record *r = ctx;

	assert_int_not_equal(c->action, INPUT_ACTIVITY);	/* input.c's, not the decoder's */
	r->last = *c;
	if (c->action == INPUT_MOVE || c->action == INPUT_HOVER)
		r->len += snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s%s %d %d,%d>%d,%d",
				   r->len ? "; " : "", names[c->action], c->id, c->from_x,
				   c->from_y, c->x, c->y);
	else
		r->len += snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s%s %d %d,%d",
				   r->len ? "; " : "", names[c->action], c->id, c->x, c->y);
	assert_true(r->len < sizeof(r->text));
}

static void clear(struct record *r)
{
	r->len = 0;
	r->text[0] = '\0';
}

/* Feeds every "E: SEC.USEC TYPE CODE VALUE" line of evemu text (hex type and code) to d. */
static void feed(struct input_decoder *d, const char *evemu)
{
	for (const char *p = evemu; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		struct input_event ev = { 0 };
		unsigned long sec, usec;
		unsigned type, code;
		int value;

		if (strncmp(p, "E:", 2) != 0)
			continue;
		assert_int_equal(sscanf(p, "E: %lu.%lu %x %x %d", &sec, &usec, &type, &code, &value),
				 5);
		ev.type = (unsigned short)type;
		ev.code = (unsigned short)code;
		ev.value = value;
		input_decoder_feed(d, &ev);
	}
}

struct fixture {
	struct input_map map;
	struct input_decoder dec;
	struct record rec;
};

/* A device of class cls whose axes map one unit to one pixel on a 1000x800 screen. */
static void setup(struct fixture *f, enum input_class cls, struct input_axis ax,
		  struct input_axis ay, int min_move)
{
	memset(f, 0, sizeof(*f));
	input_map_init(&f->map, 1000, 800, 0, NULL);
	input_decoder_init(&f->dec, cls, &ax, &ay, &f->map, min_move, 0, on_contact, &f->rec);
}

#define AXIS(lo, n) ((struct input_axis){ (lo), (lo) + (n) - 1 })

/* ---- protocol B ---- */

static const char mt_b_two_fingers[] =
	"# slot 0 is implicit: no ABS_MT_SLOT before the first contact\n"
	"E: 0.000000 0003 0039 0010	# ABS_MT_TRACKING_ID 10\n"
	"E: 0.000000 0003 0035 0150	# ABS_MT_POSITION_X 150\n"
	"E: 0.000000 0003 0036 0250	# ABS_MT_POSITION_Y 250\n"
	"E: 0.000000 0001 014a 0001	# BTN_TOUCH 1\n"
	"E: 0.000000 0000 0000 0000	# SYN_REPORT\n"
	"E: 0.010000 0003 002f 0001	# ABS_MT_SLOT 1\n"
	"E: 0.010000 0003 0039 0011	# ABS_MT_TRACKING_ID 11\n"
	"E: 0.010000 0003 0035 0600\n"
	"E: 0.010000 0003 0036 0700\n"
	"E: 0.010000 0000 0000 0000\n"
	"E: 0.020000 0003 002f 0000	# ABS_MT_SLOT 0\n"
	"E: 0.020000 0003 0035 0170\n"
	"E: 0.020000 0003 002f 0001	# ABS_MT_SLOT 1\n"
	"E: 0.020000 0003 0036 0720\n"
	"E: 0.020000 0000 0000 0000\n"
	"E: 0.030000 0003 002f 0000\n"
	"E: 0.030000 0003 0039 -001	# slot 0 lifted\n"
	"E: 0.030000 0000 0000 0000\n"
	"E: 0.040000 0003 002f 0001\n"
	"E: 0.040000 0003 0039 -001\n"
	"E: 0.040000 0001 014a 0000\n"
	"E: 0.040000 0000 0000 0000\n";

static void test_mt_b_slots(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(100, 1000), AXIS(200, 800), 1);
	feed(&f.dec, mt_b_two_fingers);
	assert_string_equal(f.rec.text, "down 0 50,50; down 1 500,500; move 0 50,50>70,50; "
			    "move 1 500,500>500,520; up 0 70,50; up 1 500,520");
	assert_int_equal(f.dec.frames, 5);	/* input.c reports them as one INPUT_ACTIVITY */
}

/* A new tracking id in a slot that is down is a new contact: up, then down. */
static void test_mt_b_new_id_in_slot(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec,
	     "E: 0.0 0003 0039 0001\nE: 0.0 0003 0035 0010\nE: 0.0 0003 0036 0020\n"
	     "E: 0.0 0000 0000 0000\n"
	     "E: 0.1 0003 0039 -001\nE: 0.1 0003 0039 0002\nE: 0.1 0003 0035 0300\n"
	     "E: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 10,20; up 0 10,20; down 0 300,20");
}

/* Slots beyond INPUT_SLOTS are ignored, not written out of bounds. */
static void test_mt_b_high_slot(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 002f 0040\nE: 0.0 0003 0039 0007\nE: 0.0 0003 0035 0010\n"
		     "E: 0.0 0000 0000 0000\n"
		     "E: 0.0 0003 002f -001\nE: 0.0 0003 0039 0007\nE: 0.0 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "");
}

/* ---- SYN_DROPPED ---- */

/* The stroke's end was lost; libevdev's sync events (after the SYN_DROPPED) carry the
 * current position: the contact moves there, without a phantom up and down. */
static void test_syn_dropped_mid_stroke(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec,
	     "E: 0.0 0003 0039 0005\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
	     "E: 0.0 0001 014a 0001\nE: 0.0 0000 0000 0000\n"
	     "E: 0.1 0003 0035 0110\n"
	     "E: 0.1 0000 0003 0000	# SYN_DROPPED\n"
	     "# what libevdev returns in sync mode: the delta to the kernel's state\n"
	     "E: 0.2 0003 002f 0000\nE: 0.2 0003 0035 0400\nE: 0.2 0003 0036 0300\n"
	     "E: 0.2 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; move 0 100,100>400,300");
	clear(&f.rec);
	/* the contact is still down: a later lift is reported once */
	feed(&f.dec, "E: 0.3 0003 0039 -001\nE: 0.3 0001 014a 0000\nE: 0.3 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "up 0 400,300");
}

/* The lift was lost: the sync ends the contact (no stuck contact). */
static void test_syn_dropped_lift(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0039 0005\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
		     "E: 0.0 0000 0000 0000\n"
		     "E: 0.1 0000 0003 0000\n"
		     "E: 0.2 0003 002f 0000\nE: 0.2 0003 0039 -001\nE: 0.2 0001 014a 0000\n"
		     "E: 0.2 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100");
}

/* Lifted and touched again while dropping: libevdev terminates the slot in one frame and
 * starts the new tracking id in the next. */
static void test_syn_dropped_new_contact(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0039 0005\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
		     "E: 0.0 0000 0000 0000\n"
		     "E: 0.1 0000 0003 0000\n"
		     "E: 0.2 0003 002f 0000\nE: 0.2 0003 0039 -001\nE: 0.2 0000 0000 0000\n"
		     "E: 0.2 0003 0039 0009\nE: 0.2 0003 0035 0700\nE: 0.2 0003 0036 0600\n"
		     "E: 0.2 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100; down 0 700,600");
}

/* What libevdev does in sync mode: it updates its own state from each event it returns. */
static void feed_synced(struct input_decoder *d, struct libevdev *dev, unsigned type,
			unsigned code, int value)
{
	struct input_event ev = { .type = (unsigned short)type, .code = (unsigned short)code,
				  .value = value };

	if (type == EV_ABS && code == ABS_MT_SLOT)
		assert_int_equal(libevdev_set_event_value(dev, type, code, value), 0);
	else if (type == EV_ABS)
		assert_int_equal(libevdev_set_slot_value(dev, (unsigned)libevdev_get_current_slot(dev),
							 code, value), 0);
	input_decoder_feed_sync(d, dev, &ev);
}

static struct libevdev *make_device(const char *name);
static void set_abs(struct libevdev *dev, unsigned code, int min, int max, int value);

/* Both fingers' ends were lost. Slot 0's contact ended and a new one began (libevdev's state
 * already holds the new one when the sync ends the old one): the old contact ends where it was
 * last seen, not at the new one's position. Slot 1's contact only ended: the kernel kept where,
 * and it ends there. */
static void test_syn_dropped_replaced_contact(void **state)
{
	struct libevdev *dev = make_device("panel");
	struct fixture f;

	(void)state;
	set_abs(dev, ABS_MT_SLOT, 0, 9, 0);
	set_abs(dev, ABS_MT_TRACKING_ID, -1, 65535, -1);
	set_abs(dev, ABS_MT_POSITION_X, 0, 999, 0);
	set_abs(dev, ABS_MT_POSITION_Y, 0, 799, 0);
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0039 0005\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
		     "E: 0.0 0003 002f 0001\nE: 0.0 0003 0039 0006\nE: 0.0 0003 0035 0500\n"
		     "E: 0.0 0003 0036 0500\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 002f 0000\nE: 0.1 0003 0035 0110\n"
		     "E: 0.1 0000 0003 0000	# SYN_DROPPED\n");
	/* the kernel's state, read by libevdev's sync */
	libevdev_set_slot_value(dev, 0, ABS_MT_TRACKING_ID, 9);
	libevdev_set_slot_value(dev, 0, ABS_MT_POSITION_X, 700);
	libevdev_set_slot_value(dev, 0, ABS_MT_POSITION_Y, 600);
	libevdev_set_slot_value(dev, 1, ABS_MT_TRACKING_ID, -1);
	libevdev_set_slot_value(dev, 1, ABS_MT_POSITION_X, 520);
	libevdev_set_slot_value(dev, 1, ABS_MT_POSITION_Y, 480);
	/* the frame that ends both slots, then the one that starts the new contact */
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_SLOT, 0);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_TRACKING_ID, -1);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_SLOT, 1);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_TRACKING_ID, -1);
	feed_synced(&f.dec, dev, EV_SYN, SYN_REPORT, 0);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_SLOT, 0);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_TRACKING_ID, 9);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_POSITION_X, 700);
	feed_synced(&f.dec, dev, EV_ABS, ABS_MT_POSITION_Y, 600);
	feed_synced(&f.dec, dev, EV_SYN, SYN_REPORT, 0);
	assert_string_equal(f.rec.text, "down 0 100,100; down 1 500,500; move 0 100,100>110,100; "
			    "up 0 110,100; move 1 500,500>520,480; up 1 520,480; down 0 700,600");
	libevdev_free(dev);
}

/* ---- protocol A ---- */

static const char mt_a_frames[] =
	"E: 0.00 0001 014a 0001	# BTN_TOUCH 1\n"
	"E: 0.00 0003 0035 0100\nE: 0.00 0003 0036 0200\nE: 0.00 0000 0002 0000	# SYN_MT_REPORT\n"
	"E: 0.00 0003 0035 0500\nE: 0.00 0003 0036 0600\nE: 0.00 0000 0002 0000\n"
	"E: 0.00 0000 0000 0000\n"
	"E: 0.01 0003 0035 0120\nE: 0.01 0003 0036 0200\nE: 0.01 0000 0002 0000\n"
	"E: 0.01 0003 0035 0500\nE: 0.01 0003 0036 0600\nE: 0.01 0000 0002 0000\n"
	"E: 0.01 0000 0000 0000\n"
	"# the second finger lifts: only one contact in the frame\n"
	"E: 0.02 0003 0035 0120\nE: 0.02 0003 0036 0200\nE: 0.02 0000 0002 0000\n"
	"E: 0.02 0000 0000 0000\n"
	"# all lifted: an empty SYN_MT_REPORT\n"
	"E: 0.03 0001 014a 0000\nE: 0.03 0000 0002 0000\nE: 0.03 0000 0000 0000\n";

static void test_mt_a(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, mt_a_frames);
	assert_string_equal(f.rec.text, "down 0 100,200; down 1 500,600; move 0 100,200>120,200; "
			    "up 1 500,600; up 0 120,200");
}

/* Protocol A without tracking ids: a second finger reported before the first in the frame
 * must not take the first finger's contact. Contacts pair with the previous frame's by
 * distance, nearest pairs first: in the third frame 200,100 goes to 190,100 (10 units), which
 * leaves 400,100 to the contact at 100,100, although 190,100 is nearer to it than 400,100. */
static void test_mt_a_matched_by_distance(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec,
	     "E: 0.00 0001 014a 0001\n"
	     "E: 0.00 0003 0035 0100\nE: 0.00 0003 0036 0200\nE: 0.00 0000 0002 0000\n"
	     "E: 0.00 0000 0000 0000\n"
	     "# the new finger comes first\n"
	     "E: 0.01 0003 0035 0500\nE: 0.01 0003 0036 0600\nE: 0.01 0000 0002 0000\n"
	     "E: 0.01 0003 0035 0104\nE: 0.01 0003 0036 0200\nE: 0.01 0000 0002 0000\n"
	     "E: 0.01 0000 0000 0000\n"
	     "# the new finger lifts; the first one stays where it is\n"
	     "E: 0.02 0003 0035 0108\nE: 0.02 0003 0036 0200\nE: 0.02 0000 0002 0000\n"
	     "E: 0.02 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,200; move 0 100,200>104,200; down 1 500,600; "
			    "move 0 104,200>108,200; up 1 500,600");
	clear(&f.rec);
	feed(&f.dec,
	     "E: 0.03 0003 0035 0108\nE: 0.03 0003 0036 0200\nE: 0.03 0000 0002 0000\n"
	     "E: 0.03 0003 0035 0200\nE: 0.03 0003 0036 0200\nE: 0.03 0000 0002 0000\n"
	     "E: 0.03 0000 0000 0000\n"
	     "E: 0.04 0003 0035 0400\nE: 0.04 0003 0036 0200\nE: 0.04 0000 0002 0000\n"
	     "E: 0.04 0003 0035 0190\nE: 0.04 0003 0036 0200\nE: 0.04 0000 0002 0000\n"
	     "E: 0.04 0000 0000 0000\n"
	     "E: 0.05 0001 014a 0000\nE: 0.05 0000 0002 0000\nE: 0.05 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 1 200,200; move 0 108,200>400,200; "
			    "move 1 200,200>190,200; up 0 400,200; up 1 190,200");
}

/* Protocol A: two contacts down at 100,100 and 500,500, with tracking ids 4 and 7. */
#define IDS_4_AND_7_DOWN                                                                    \
	"E: 0.0 0003 0039 0004\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"            \
	"E: 0.0 0000 0002 0000\n"                                                            \
	"E: 0.0 0003 0039 0007\nE: 0.0 0003 0035 0500\nE: 0.0 0003 0036 0500\n"            \
	"E: 0.0 0000 0002 0000\nE: 0.0 0000 0000 0000\n"

/* Protocol A with tracking ids: contacts follow their id, not their order in the frame. */
static void test_mt_a_tracking_ids(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec,
	     IDS_4_AND_7_DOWN
	     "# id 4 lifted: id 7 comes first now and must stay contact 1\n"
	     "E: 0.1 0003 0039 0007\nE: 0.1 0003 0035 0510\nE: 0.1 0003 0036 0500\n"
	     "E: 0.1 0000 0002 0000\nE: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text,
			    "down 0 100,100; down 1 500,500; up 0 100,100; move 1 500,500>510,500");
}

/* Protocol A with tracking ids for some contacts only: a contact without one is a contact of
 * its own, not whichever id its place in an earlier frame (or the frame's earlier contacts)
 * held; it follows the contacts without ids by distance (review: it took a stale id, so a new
 * finger moved the lifted one's contact, and an anonymous one ahead of id 4 took id 4's). */
static void test_mt_a_ids_for_some_contacts(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec,
	     IDS_4_AND_7_DOWN
	     "# id 7 lifted; a finger without an id comes second, where id 7 was\n"
	     "E: 0.1 0003 0039 0004\nE: 0.1 0003 0035 0105\nE: 0.1 0003 0036 0100\n"
	     "E: 0.1 0000 0002 0000\n"
	     "E: 0.1 0003 0035 0900\nE: 0.1 0003 0036 0700\n"
	     "E: 0.1 0000 0002 0000\nE: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; down 1 500,500; move 0 100,100>105,100; "
			    "up 1 500,500; down 2 900,700");
	clear(&f.rec);
	feed(&f.dec,
	     "# the finger without an id first: it is not id 4\n"
	     "E: 0.2 0003 0035 0910\nE: 0.2 0003 0036 0700\nE: 0.2 0000 0002 0000\n"
	     "E: 0.2 0003 0039 0004\nE: 0.2 0003 0035 0110\nE: 0.2 0003 0036 0100\n"
	     "E: 0.2 0000 0002 0000\nE: 0.2 0000 0000 0000\n"
	     "E: 0.3 0003 0039 0004\nE: 0.3 0003 0035 0115\nE: 0.3 0003 0036 0100\n"
	     "E: 0.3 0000 0002 0000\n"
	     "E: 0.3 0003 0035 0920\nE: 0.3 0003 0036 0700\nE: 0.3 0000 0002 0000\n"
	     "E: 0.3 0000 0000 0000\n"
	     "E: 0.4 0000 0002 0000\nE: 0.4 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "move 0 105,100>110,100; move 2 900,700>910,700; "
			    "move 0 110,100>115,100; move 2 910,700>920,700; up 0 115,100; "
			    "up 2 920,700");
}

/* Contacts past INPUT_SLOTS in a frame are ignored: the last one kept stays where it is (the
 * ones past it were written over it). */
static void test_mt_a_contacts_past_slots(void **state)
{
	char frame[4096];
	size_t len = 0;
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	for (int k = 0; k <= INPUT_SLOTS; k++)
		len += snprintf(frame + len, sizeof(frame) - len, "E: 0.0 0003 0035 %d\n"
				"E: 0.0 0003 0036 0100\nE: 0.0 0000 0002 0000\n", 10 + 50 * k);
	snprintf(frame + len, sizeof(frame) - len, "E: 0.0 0000 0000 0000\n");
	feed(&f.dec, frame);
	assert_int_equal(f.rec.last.action, INPUT_DOWN);
	assert_int_equal(f.rec.last.id, INPUT_SLOTS - 1);
	assert_int_equal(f.rec.last.x, 10 + 50 * (INPUT_SLOTS - 1));
}

/* Protocol A cannot be resynced: a SYN_DROPPED keeps the contacts until a full frame. */
static void test_mt_a_syn_dropped(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0001 014a 0001\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
		     "E: 0.0 0000 0002 0000\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0035 0150\n"
		     "E: 0.1 0000 0003 0000\n"
		     "E: 0.1 0000 0000 0000	# the end of libevdev's (empty) sync\n"
		     "E: 0.2 0003 0035 0200\nE: 0.2 0003 0036 0100\nE: 0.2 0000 0002 0000\n"
		     "E: 0.2 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; move 0 100,100>200,100");
}

/* Protocol A without BTN_TOUCH: the sync replays nothing of it, so a lift lost in the drop
 * never comes. Its contacts end at the drop: the taps after it drop stones of their own
 * (review: the first drew a line from the finger lifted, which stayed down for good, and a tap
 * in the frame after the drop was read in the stale frame's place). */
static void test_mt_a_syn_dropped_without_button(void **state)
{
	static const char finger[] =
		"E: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\nE: 0.0 0000 0002 0000\n"
		"E: 0.0 0000 0000 0000\n";
	static const char tap[] =
		"E: 1.0 0003 0035 0900\nE: 1.0 0003 0036 0700\nE: 1.0 0000 0002 0000\n"
		"E: 1.0 0000 0000 0000\n"
		"E: 1.1 0000 0002 0000\nE: 1.1 0000 0000 0000\n";
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, finger);
	feed(&f.dec, "E: 0.5 0000 0003 0000	# SYN_DROPPED over the lift\n");
	assert_false(input_decoder_held(&f.dec));
	feed(&f.dec, tap);
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100; down 0 900,700; "
			    "up 0 900,700");
	clear(&f.rec);
	feed(&f.dec, finger);
	feed(&f.dec, "E: 0.5 0000 0003 0000\n");
	feed(&f.dec, tap);
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100; down 0 900,700; "
			    "up 0 900,700");
	assert_false(input_decoder_held(&f.dec));
}

/* A frame skipped after a drop leaves nothing of itself to the next: an empty one lifts
 * (review: its first contact was read again as one of the next frame's). */
static void test_mt_a_skipped_frame_forgotten(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0001 014a 0001\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0100\n"
		     "E: 0.0 0000 0002 0000\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0000 0003 0000	# SYN_DROPPED, an empty sync\n"
		     "E: 0.2 0003 0035 0120\nE: 0.2 0003 0036 0100\nE: 0.2 0000 0002 0000\n"
		     "E: 0.2 0000 0000 0000	# skipped\n"
		     "E: 0.3 0000 0002 0000\nE: 0.3 0000 0000 0000	# no contact left\n");
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100");
}

/* ---- MT-only, single touch, tablet, mouse ---- */

/* No BTN_TOUCH and no ABS_X/Y at all: the slots alone decide. */
static void test_mt_only(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 002f 0002\nE: 0.0 0003 0039 0001\nE: 0.0 0003 0035 0042\n"
		     "E: 0.0 0003 0036 0043\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0039 -001\nE: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 2 42,43; up 2 42,43");
}

/* Axes from 200..4199 and 1000..4199 onto 1000x800: 4 units per pixel. */
static void test_single_touch_offset_range(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_TOUCH, AXIS(200, 4000), AXIS(1000, 3200), 1);
	feed(&f.dec, "E: 0.0 0003 0000 0200\nE: 0.0 0003 0001 1000\nE: 0.0 0001 014a 0001\n"
		     "E: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0000 2202\nE: 0.1 0003 0001 2600\nE: 0.1 0000 0000 0000\n"
		     "E: 0.2 0003 0000 4199\nE: 0.2 0003 0001 4199\nE: 0.2 0000 0000 0000\n"
		     "E: 0.3 0001 014a 0000\nE: 0.3 0000 0000 0000\n"
		     "E: 0.4 0001 014a 0000\nE: 0.4 0000 0000 0000	# release without press\n");
	assert_string_equal(f.rec.text, "down 0 0,0; move 0 0,0>500,400; move 0 500,400>999,799; "
			    "up 0 999,799");
}

static void test_mouse_autorepeat(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MOUSE, AXIS(0, 0), AXIS(0, 0), 1);
	feed(&f.dec,
	     "E: 0.0 0001 0110 0000	# BTN_LEFT released that was never pressed\n"
	     "E: 0.0 0000 0000 0000\n"
	     "E: 0.1 0001 0110 0001\nE: 0.1 0000 0000 0000\n"
	     "E: 0.2 0002 0000 0010\nE: 0.2 0002 0001 -005\nE: 0.2 0000 0000 0000\n"
	     "E: 0.3 0001 0110 0002	# autorepeat: not a press\n"
	     "E: 0.3 0000 0000 0000\n"
	     "E: 0.4 0001 0110 0000\nE: 0.4 0000 0000 0000\n"
	     "E: 0.5 0002 0000 -9999\nE: 0.5 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 500,400; move 0 500,400>510,395; up 0 510,395; "
			    "hover 0 510,395>0,395");
}

/* Every button drops a stone: right, middle, a press while another is held, a stylus
 * button; autorepeat (value 2) and releases while a button is still held add nothing. */
static void test_every_button(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MOUSE, AXIS(0, 0), AXIS(0, 0), 1);
	feed(&f.dec,
	     "E: 0.0 0001 0111 0001	# BTN_RIGHT\nE: 0.0 0000 0000 0000\n"
	     "E: 0.1 0001 0111 0000\nE: 0.1 0000 0000 0000\n"
	     "E: 0.2 0001 0112 0001	# BTN_MIDDLE\nE: 0.2 0000 0000 0000\n"
	     "E: 0.3 0001 0112 0002	# autorepeat\nE: 0.3 0000 0000 0000\n"
	     "E: 0.4 0001 0110 0001	# BTN_LEFT, middle still held\nE: 0.4 0000 0000 0000\n"
	     "E: 0.5 0001 0112 0000\nE: 0.5 0000 0000 0000\n"
	     "E: 0.6 0001 0110 0000\nE: 0.6 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 500,400; up 0 500,400; down 0 500,400; "
			    "up 0 500,400; down 0 500,400; up 0 500,400");
	setup(&f, INPUT_TABLET, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0000 0300\nE: 0.0 0003 0001 0200\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0001 014b 0001	# BTN_STYLUS\nE: 0.1 0000 0000 0000\n"
		     "E: 0.2 0001 014b 0000\nE: 0.2 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 300,200; up 0 300,200");
}

/* Axis ranges wider than INT_MAX and motion sums past it are computed in 64 bits and clamped
 * (signed overflow before: UBSan stops here, a plain build wrapped to the wrong side). */
static void test_huge_ranges(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_TOUCH, (struct input_axis){ INT_MIN, INT_MAX },
	      (struct input_axis){ INT_MIN, INT_MAX }, 1);
	feed(&f.dec, "E: 0.0 0003 0000 2147483647\nE: 0.0 0003 0001 -2147483648\n"
		     "E: 0.0 0001 014a 0001\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0000 0000\nE: 0.1 0003 0001 0000\nE: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 999,0; move 0 999,0>500,400");
	setup(&f, INPUT_MOUSE, AXIS(0, 0), AXIS(0, 0), 1);
	feed(&f.dec, "E: 0.0 0002 0000 2147483647\nE: 0.0 0002 0000 2147483647\n"
		     "E: 0.0 0002 0001 -2147483648\nE: 0.0 0002 0001 -2147483648\n"
		     "E: 0.0 0001 0110 0001\nE: 0.0 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 999,0");
}

/* eGalax firmware that declares ABS_X/Y but reports on ABS_Z and ABS_RX: once those move while
 * ABS_X/Y never did, they are the axes, from the first touch on. */
static const char egalax_tap[] =
	"E: 0.0 0001 014a 0001\nE: 0.0 0003 0002 2000	# ABS_Z\nE: 0.0 0003 0003 1000	# ABS_RX\n"
	"E: 0.0 0000 0000 0000\n"
	"E: 0.1 0003 0002 2400\nE: 0.1 0000 0000 0000\n"
	"E: 0.2 0001 014a 0000\nE: 0.2 0000 0000 0000\n";

static void test_other_axes(void **state)
{
	struct input_axis az = AXIS(0, 4000), arx = AXIS(0, 3200);
	struct fixture f;

	(void)state;
	setup(&f, INPUT_TOUCH, AXIS(0, 1000), AXIS(0, 800), 1);
	input_decoder_watch_axes(&f.dec, ABS_Z, ABS_RX, &az, &arx);
	feed(&f.dec, egalax_tap);
	assert_string_equal(f.rec.text, "down 0 500,250; move 0 500,250>600,250; up 0 600,250");
	assert_true(f.dec.axes_switched);
	/* named in the config: used from the start, nothing to detect */
	setup(&f, INPUT_TOUCH, AXIS(0, 1000), AXIS(0, 800), 1);
	input_decoder_set_axes(&f.dec, ABS_Z, ABS_RX, &az, &arx);
	feed(&f.dec, egalax_tap);
	assert_string_equal(f.rec.text, "down 0 500,250; move 0 500,250>600,250; up 0 600,250");
	assert_false(f.dec.axes_switched);
	/* a panel that reports on ABS_X/Y and also moves ABS_Z keeps ABS_X/Y */
	setup(&f, INPUT_TOUCH, AXIS(0, 1000), AXIS(0, 800), 1);
	input_decoder_watch_axes(&f.dec, ABS_Z, ABS_RX, &az, &arx);
	feed(&f.dec, "E: 0.0 0001 014a 0001\nE: 0.0 0003 0000 0100\nE: 0.0 0003 0001 0100\n"
		     "E: 0.0 0000 0000 0000\n");
	feed(&f.dec, egalax_tap);
	assert_string_equal(f.rec.text, "down 0 100,100; up 0 100,100");
	assert_false(f.dec.axes_switched);
}

/* The QEMU tablet: ABS_X/Y 0..32767 with BTN_LEFT; motion without the button hovers. */
static void test_tablet(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_TABLET, AXIS(0, 32768), AXIS(0, 32768), 1);
	feed(&f.dec, "E: 0.0 0003 0000 16384\nE: 0.0 0003 0001 8192\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0000 0000\nE: 0.1 0000 0000 0000\n"
		     "E: 0.2 0001 0110 0001\nE: 0.2 0000 0000 0000\n"
		     "E: 0.3 0001 0110 0000\nE: 0.3 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "hover 0 500,200>0,200; down 0 0,200; up 0 0,200");
}

/* Moves shorter than min_move are held back; the final position is never lost. */
static void test_min_move(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_TOUCH, AXIS(0, 1000), AXIS(0, 800), 8);
	feed(&f.dec, "E: 0.0 0003 0000 0100\nE: 0.0 0003 0001 0100\nE: 0.0 0001 014a 0001\n"
		     "E: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 0000 0105\nE: 0.1 0000 0000 0000\n"
		     "E: 0.2 0003 0000 0108\nE: 0.2 0000 0000 0000\n"
		     "E: 0.3 0003 0000 0111\nE: 0.3 0000 0000 0000\n"
		     "E: 0.4 0001 014a 0000\nE: 0.4 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 100,100; move 0 100,100>108,100; "
			    "move 0 108,100>111,100; up 0 111,100");
}

/* A device that goes away ends its contacts. */
static void test_release(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0039 0001\nE: 0.0 0003 0035 0010\nE: 0.0 0003 0036 0020\n"
		     "E: 0.0 0003 002f 0003\nE: 0.0 0003 0039 0002\nE: 0.0 0003 0035 0030\n"
		     "E: 0.0 0003 0036 0040\nE: 0.0 0000 0000 0000\n");
	input_decoder_release(&f.dec);
	input_decoder_release(&f.dec);
	assert_string_equal(f.rec.text, "down 0 10,20; down 3 30,40; up 0 10,20; up 3 30,40");
}

/* Held while any contact is down or a button pressed, to the last lift: input_grab lets a
 * device go only then. */
static void test_held(void **state)
{
	static const char *const mt_b[] = {
		"E: 0.0 0003 0039 0001\nE: 0.0 0003 0035 0010\nE: 0.0 0003 0036 0020\n"
		"E: 0.0 0001 014a 0001\nE: 0.0 0000 0000 0000\n",
		"E: 0.1 0003 002f 0001\nE: 0.1 0003 0039 0002\nE: 0.1 0003 0035 0030\n"
		"E: 0.1 0003 0036 0040\nE: 0.1 0000 0000 0000\n",
		"E: 0.2 0003 002f 0000\nE: 0.2 0003 0039 -001\nE: 0.2 0000 0000 0000\n",
		"E: 0.3 0003 002f 0001\nE: 0.3 0003 0039 -001\nE: 0.3 0001 014a 0000\n"
		"E: 0.3 0000 0000 0000\n",
	};
	const bool held[] = { true, true, true, false };
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	assert_false(input_decoder_held(&f.dec));
	for (size_t i = 0; i < sizeof(mt_b) / sizeof(mt_b[0]); i++) {
		feed(&f.dec, mt_b[i]);
		assert_int_equal(input_decoder_held(&f.dec), held[i]);
	}
	/* protocol A: untouched since opened, then with BTN_TOUCH and without (contacts only) */
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	assert_false(input_decoder_held(&f.dec));
	feed(&f.dec, "E: 0.0 0001 014a 0001\nE: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0200\n"
		     "E: 0.0 0000 0002 0000\nE: 0.0 0000 0000 0000\n");
	assert_true(input_decoder_held(&f.dec));
	feed(&f.dec, "E: 0.1 0001 014a 0000\nE: 0.1 0000 0002 0000\nE: 0.1 0000 0000 0000\n");
	assert_false(input_decoder_held(&f.dec));
	setup(&f, INPUT_MT_A, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0035 0100\nE: 0.0 0003 0036 0200\nE: 0.0 0000 0002 0000\n"
		     "E: 0.0 0000 0000 0000\n");
	assert_true(input_decoder_held(&f.dec));
	feed(&f.dec, "E: 0.1 0000 0002 0000\nE: 0.1 0000 0000 0000\n");
	assert_false(input_decoder_held(&f.dec));
	assert_string_equal(f.rec.text, "down 0 100,200; up 0 100,200");
	setup(&f, INPUT_MOUSE, AXIS(0, 0), AXIS(0, 0), 1);
	feed(&f.dec, "E: 0.0 0002 0000 0010\nE: 0.0 0000 0000 0000\n");
	assert_false(input_decoder_held(&f.dec));	/* hovering */
	feed(&f.dec, "E: 0.1 0001 0111 0001\nE: 0.1 0000 0000 0000\n");
	assert_true(input_decoder_held(&f.dec));
	feed(&f.dec, "E: 0.2 0001 0111 0000\nE: 0.2 0000 0000 0000\n");
	assert_false(input_decoder_held(&f.dec));
}

/* A finger held still sends only timestamps (the kernel drops repeated positions): someone's
 * input all the same. Timestamps alone, with nothing down, are no one's. */
static void test_held_still_is_activity(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	feed(&f.dec, "E: 0.0 0003 0039 0001\nE: 0.0 0003 0035 0010\nE: 0.0 0003 0036 0020\n"
		     "E: 0.0 0001 014a 0001\nE: 0.0 0004 0005 0000\nE: 0.0 0000 0000 0000\n");
	f.dec.frames = 0;
	feed(&f.dec, "E: 0.1 0004 0005 100000	# MSC_TIMESTAMP\nE: 0.1 0000 0000 0000\n"
		     "E: 0.2 0004 0005 200000\nE: 0.2 0000 0000 0000\n");
	assert_int_equal(f.dec.frames, 2);
	feed(&f.dec, "E: 0.3 0003 0039 -001\nE: 0.3 0001 014a 0000\nE: 0.3 0000 0000 0000\n");
	f.dec.frames = 0;
	feed(&f.dec, "E: 0.4 0004 0005 400000\nE: 0.4 0000 0000 0000\n");
	assert_int_equal(f.dec.frames, 0);
	assert_string_equal(f.rec.text, "down 0 10,20; up 0 10,20");
}

/* ---- mapping ---- */

static void test_rotation(void **state)
{
	struct input_map m;
	int x, y;

	(void)state;
	/* a 640x480 panel; the top-right corner of the panel and a point left of centre */
	input_map_init(&m, 640, 480, 0, NULL);
	input_map_point(&m, 639.5 / 640, 0.5 / 480, &x, &y);
	assert_true(x == 639 && y == 0);
	/* 90: the picture is turned clockwise, so its top-left corner shows at the panel's
	 * top-right, and the logical screen is 480x640 */
	input_map_init(&m, 640, 480, 90, NULL);
	assert_true(m.width == 480 && m.height == 640);
	input_map_point(&m, 639.5 / 640, 0.5 / 480, &x, &y);
	assert_true(x == 0 && y == 0);
	input_map_point(&m, 100.5 / 640, 300.5 / 480, &x, &y);	/* panel (100, 300) */
	assert_int_equal(x, 300);
	assert_int_equal(y, 639 - 100);
	input_map_init(&m, 640, 480, 180, NULL);
	input_map_point(&m, 100.5 / 640, 300.5 / 480, &x, &y);
	assert_true(x == 639 - 100 && y == 479 - 300);
	input_map_init(&m, 640, 480, 270, NULL);
	assert_true(m.width == 480 && m.height == 640);
	input_map_point(&m, 100.5 / 640, 300.5 / 480, &x, &y);
	assert_true(x == 479 - 300 && y == 100);
}

static void test_calibration(void **state)
{
	static const double turn90[6] = { 0, -1, 1, 1, 0, 0 };	/* libinput's 90 degrees */
	static const double half[6] = { 0.5, 0, 0.25, 0, 0.5, 0.25 };
	struct input_map m;
	double cal[6];
	int x, y;

	(void)state;
	input_map_init(&m, 1000, 800, 0, turn90);
	input_map_point(&m, 0.1, 0.2, &x, &y);		/* -> (1 - 0.2, 0.1) */
	assert_in_range(x, 799, 800);
	assert_in_range(y, 79, 80);
	input_map_init(&m, 1000, 800, 0, half);
	input_map_point(&m, 0.0, 0.9999, &x, &y);	/* -> (0.25, 0.75) */
	assert_true(x == 250 && y == 599);
	/* off-screen results clamp to the edge */
	input_map_init(&m, 1000, 800, 0, (const double[6]){ 2, 0, 0, 0, 1, -1 });
	input_map_point(&m, 0.9, 0.5, &x, &y);
	assert_true(x == 999 && y == 0);
	/* calibration applies before rotation */
	input_map_init(&m, 1000, 800, 180, turn90);
	input_map_point(&m, 0.1, 0.2, &x, &y);		/* (0.8, 0.1) turned: (0.2, 0.9) */
	assert_in_range(x, 199, 200);
	assert_in_range(y, 719, 720);

	assert_int_equal(input_parse_matrix("0 -1 1 1 0 0", cal), 0);
	assert_true(cal[1] == -1 && cal[2] == 1 && cal[3] == 1);
	assert_int_equal(input_parse_matrix(" 1.5 0 0 0 1 0\n", cal), 0);
	assert_true(cal[0] == 1.5);
	assert_int_equal(input_parse_matrix("1 0 0 0 1", cal), -EINVAL);
	assert_int_equal(input_parse_matrix("1 0 0 0 1 0 7", cal), -EINVAL);
	assert_int_equal(input_parse_matrix("1 0 0 0 1 x", cal), -EINVAL);
}

/* ---- classification of devices made without a kernel ---- */

static struct libevdev *make_device(const char *name)
{
	struct libevdev *dev = libevdev_new();

	assert_non_null(dev);
	libevdev_set_name(dev, name);
	return dev;
}

static void add_abs(struct libevdev *dev, unsigned code, int min, int max)
{
	struct input_absinfo a = { .minimum = min, .maximum = max };

	assert_int_equal(libevdev_enable_event_code(dev, EV_ABS, code, &a), 0);
}

static void add(struct libevdev *dev, unsigned type, const unsigned *codes, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(libevdev_enable_event_code(dev, type, codes[i], NULL), 0);
}

static enum input_class classify(struct libevdev *dev, char *why, struct input_axis *ax,
				 struct input_axis *ay)
{
	enum input_class cls = input_classify(dev, why, 160, ax, ay);

	libevdev_free(dev);
	return cls;
}

/* ---- devices opened mid-use: state from libevdev, not from events that never come ---- */

static void set_abs(struct libevdev *dev, unsigned code, int min, int max, int value)
{
	struct input_absinfo a = { .minimum = min, .maximum = max, .value = value };

	assert_int_equal(libevdev_enable_event_code(dev, EV_ABS, code, &a), 0);
}

/* A tablet clicked before it moves lands where its axes already are, not at 0,0. */
static void test_seed_tablet_position(void **state)
{
	static const unsigned left[] = { BTN_LEFT };
	struct libevdev *dev = make_device("tablet");
	struct fixture f;

	(void)state;
	set_abs(dev, ABS_X, 0, 999, 300);
	set_abs(dev, ABS_Y, 0, 799, 200);
	add(dev, EV_KEY, left, 1);
	setup(&f, INPUT_TABLET, AXIS(0, 1000), AXIS(0, 800), 1);
	input_decoder_seed(&f.dec, dev);
	feed(&f.dec, "E: 0.0 0001 0110 0001\nE: 0.0 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 300,200");
	libevdev_free(dev);
}

/* A new contact in a slot whose position did not change keeps that position; a current slot
 * beyond ours is ignored instead of written past the end. */
static void test_seed_multitouch_slots(void **state)
{
	struct libevdev *dev = make_device("panel");
	struct fixture f;

	(void)state;
	set_abs(dev, ABS_MT_SLOT, 0, 39, 0);
	set_abs(dev, ABS_MT_TRACKING_ID, -1, 65535, -1);
	set_abs(dev, ABS_MT_POSITION_X, 0, 999, 0);
	set_abs(dev, ABS_MT_POSITION_Y, 0, 799, 0);
	assert_int_equal(libevdev_set_slot_value(dev, 2, ABS_MT_POSITION_X, 640), 0);
	assert_int_equal(libevdev_set_slot_value(dev, 2, ABS_MT_POSITION_Y, 480), 0);
	assert_int_equal(libevdev_set_event_value(dev, EV_ABS, ABS_MT_SLOT, 33), 0);
	setup(&f, INPUT_MT_B, AXIS(0, 1000), AXIS(0, 800), 1);
	input_decoder_seed(&f.dec, dev);
	assert_int_equal(f.dec.slot, -1);
	feed(&f.dec, "E: 0.0 0003 0035 0777\nE: 0.0 0003 0036 0777\nE: 0.0 0000 0000 0000\n"
		     "E: 0.1 0003 002f 0002\nE: 0.1 0003 0039 0005\nE: 0.1 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 2 640,480");
	libevdev_free(dev);
}

static void test_classify(void **state)
{
	static const unsigned touch[] = { BTN_TOUCH }, left[] = { BTN_LEFT, BTN_RIGHT };
	static const unsigned rel[] = { REL_X, REL_Y }, keys[] = { KEY_A, KEY_ENTER, KEY_ESC };
	struct input_axis ax, ay;
	struct libevdev *d;
	char why[160];

	(void)state;
	d = make_device("panel B");
	add_abs(d, ABS_MT_SLOT, 0, 9);
	add_abs(d, ABS_MT_TRACKING_ID, 0, 65535);
	add_abs(d, ABS_MT_POSITION_X, 100, 1099);
	add_abs(d, ABS_MT_POSITION_Y, 50, 849);
	add_abs(d, ABS_X, 0, 5);
	add_abs(d, ABS_Y, 0, 5);
	add(d, EV_KEY, touch, 1);
	libevdev_enable_property(d, INPUT_PROP_DIRECT);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_MT_B);
	assert_true(ax.min == 100 && ax.max == 1099 && ay.min == 50 && ay.max == 849);
	assert_non_null(strstr(why, "ABS_MT_SLOT"));
	assert_null(strstr(why, "MT-only"));

	d = make_device("panel A, MT only");
	add_abs(d, ABS_MT_POSITION_X, 0, 4095);
	add_abs(d, ABS_MT_POSITION_Y, 0, 4095);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_MT_A);
	assert_non_null(strstr(why, "MT-only"));

	d = make_device("resistive, no INPUT_PROP_DIRECT");
	add_abs(d, ABS_X, 200, 3900);
	add_abs(d, ABS_Y, 300, 3800);
	add(d, EV_KEY, touch, 1);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_TOUCH);
	assert_true(ax.min == 200 && ay.max == 3800);
	assert_non_null(strstr(why, "without INPUT_PROP_DIRECT"));

	d = make_device("QEMU Virtio Tablet");
	add_abs(d, ABS_X, 0, 32767);
	add_abs(d, ABS_Y, 0, 32767);
	add(d, EV_KEY, left, 2);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_TABLET);

	d = make_device("keyboard with a trackpoint");
	add(d, EV_REL, rel, 2);
	add(d, EV_KEY, left, 2);
	add(d, EV_KEY, keys, 3);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_MOUSE);
	assert_non_null(strstr(why, "also a keyboard"));

	d = make_device("keyboard");
	add(d, EV_KEY, keys, 3);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
	assert_non_null(strstr(why, "keyboard"));

	d = make_device("touchpad");
	add_abs(d, ABS_MT_SLOT, 0, 4);
	add_abs(d, ABS_MT_POSITION_X, 0, 1000);
	add_abs(d, ABS_MT_POSITION_Y, 0, 1000);
	add(d, EV_KEY, touch, 1);
	libevdev_enable_property(d, INPUT_PROP_POINTER);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
	assert_non_null(strstr(why, "touchpad"));

	d = make_device("Power Button");
	add(d, EV_KEY, (const unsigned[]){ KEY_POWER }, 1);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
}

/* ---- pens ---- */

/* A Wacom pen's device: the tools, the stylus buttons, pressure, distance and tilt, no
 * ABS_MT_*. 10 units a pixel on the fixture's 1000x800 screen. */
static struct libevdev *make_pen(const char *name, unsigned prop)
{
	static const unsigned keys[] = { BTN_TOOL_PEN, BTN_TOOL_RUBBER, BTN_TOUCH, BTN_STYLUS,
					 BTN_STYLUS2 };
	struct libevdev *d = make_device(name);

	add_abs(d, ABS_X, 0, 9999);
	add_abs(d, ABS_Y, 0, 7999);
	add_abs(d, ABS_PRESSURE, 0, 4095);
	add_abs(d, ABS_DISTANCE, 0, 63);
	add_abs(d, ABS_TILT_X, -64, 63);
	add_abs(d, ABS_TILT_Y, -64, 63);
	add_abs(d, ABS_MISC, 0, 0x7fffffff);
	add(d, EV_KEY, keys, 5);
	assert_int_equal(libevdev_enable_property(d, prop), 0);
	return d;
}

/* A pen tablet beside the screen (INPUT_PROP_POINTER) and a pen display (INPUT_PROP_DIRECT)
 * are both single touch on ABS_X/Y; the tablet's finger device, a touchpad and the tablet's
 * pad (its buttons and ring) stay ignored. */
static void test_classify_pens(void **state)
{
	static const unsigned finger[] = { BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOUCH };
	static const unsigned pad[] = { BTN_0, BTN_1, BTN_2, BTN_3, BTN_STYLUS };
	struct input_axis ax, ay;
	struct libevdev *d;
	char why[160];

	(void)state;
	d = make_pen("Wacom Intuos S Pen", INPUT_PROP_POINTER);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_TOUCH);
	assert_true(ax.min == 0 && ax.max == 9999 && ay.min == 0 && ay.max == 7999);
	assert_string_equal(why, "a pen: BTN_TOOL_PEN with ABS_X/Y and BTN_TOUCH, without "
			    "INPUT_PROP_DIRECT, mapped to the whole screen");

	d = make_pen("Wacom Cintiq 16 Pen", INPUT_PROP_DIRECT);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_TOUCH);
	assert_non_null(strstr(why, "a pen: "));
	assert_non_null(strstr(why, "with INPUT_PROP_DIRECT"));

	d = make_device("Wacom Intuos Pro M Finger");
	add_abs(d, ABS_X, 0, 4095);
	add_abs(d, ABS_Y, 0, 4095);
	add_abs(d, ABS_MT_SLOT, 0, 9);
	add_abs(d, ABS_MT_TRACKING_ID, 0, 65535);
	add_abs(d, ABS_MT_POSITION_X, 0, 4095);
	add_abs(d, ABS_MT_POSITION_Y, 0, 4095);
	add(d, EV_KEY, finger, 3);
	libevdev_enable_property(d, INPUT_PROP_POINTER);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
	assert_non_null(strstr(why, "touchpad"));

	d = make_device("touchpad without slots that also knows a pen");
	add_abs(d, ABS_X, 1472, 5472);
	add_abs(d, ABS_Y, 1408, 4448);
	add(d, EV_KEY, finger, 3);
	add(d, EV_KEY, (const unsigned[]){ BTN_TOOL_PEN, BTN_LEFT }, 2);
	libevdev_enable_property(d, INPUT_PROP_POINTER);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
	assert_non_null(strstr(why, "touchpad"));

	d = make_device("Wacom Intuos Pro M Pad");
	add_abs(d, ABS_X, 0, 1);
	add_abs(d, ABS_Y, 0, 1);
	add_abs(d, ABS_WHEEL, 0, 71);
	add_abs(d, ABS_MISC, 0, 0x7fffffff);
	add(d, EV_KEY, pad, 5);
	assert_int_equal(classify(d, why, &ax, &ay), INPUT_IGNORED);
}

/* display.rotate turns a pen display with the picture, and leaves a tablet beside the screen
 * upright: its area is the picture as it stands (a portrait kiosk's tablet still spans it). */
static void test_pen_tablet_upright(void **state)
{
	struct libevdev *tablet = make_pen("Wacom Intuos S Pen", INPUT_PROP_POINTER);
	struct libevdev *display = make_pen("Wacom Cintiq 16 Pen", INPUT_PROP_DIRECT);
	struct input_map m;
	int x, y;

	(void)state;
	struct libevdev *digitizer = make_pen("embedded EMR digitizer", INPUT_PROP_DIRECT);

	libevdev_disable_property(digitizer, INPUT_PROP_DIRECT);
	assert_true(input_beside_screen(tablet));
	assert_false(input_beside_screen(display));
	assert_false(input_beside_screen(digitizer));	/* neither: taken for the panel's */
	libevdev_free(digitizer);
	input_map_device(&m, tablet, 640, 480, 90, NULL);
	assert_true(m.width == 480 && m.height == 640 && m.rotate == 0);
	input_map_point(&m, 0.5, 0.25, &x, &y);
	assert_true(x == 240 && y == 160);
	input_map_device(&m, display, 640, 480, 90, NULL);
	assert_true(m.width == 480 && m.height == 640 && m.rotate == 90);
	input_map_point(&m, 0.5, 0.25, &x, &y);
	assert_true(x == 120 && y == 320);
	libevdev_free(tablet);
	libevdev_free(display);
}

/* A pen tablet as fbripple opens it: hovering, the barrel button and pressure drop nothing and
 * hold nothing; the tip down is a stone where the pen points, its stroke a trail. Out of
 * proximity the kernel zeroes the axes: no contact, no trail to 0,0. */
static void test_pen(void **state)
{
	struct input_axis ax, ay;
	struct fixture f;
	char why[160];

	(void)state;
	setup(&f, classify(make_pen("Wacom Intuos S Pen", INPUT_PROP_POINTER), why, &ax, &ay),
	      ax, ay, 1);
	feed(&f.dec,
	     "# in proximity, hovering\n"
	     "E: 0.00 0003 0000 2000	# ABS_X\nE: 0.00 0003 0001 3000	# ABS_Y\n"
	     "E: 0.00 0003 0019 0030	# ABS_DISTANCE\nE: 0.00 0003 0028 2082	# ABS_MISC\n"
	     "E: 0.00 0001 0140 0001	# BTN_TOOL_PEN\nE: 0.00 0000 0000 0000\n"
	     "E: 0.01 0003 0000 2500\nE: 0.01 0003 0001 3500\nE: 0.01 0000 0000 0000\n"
	     "E: 0.02 0001 014b 0001	# BTN_STYLUS\nE: 0.02 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "");
	assert_false(input_decoder_held(&f.dec));
	feed(&f.dec,
	     "E: 0.03 0001 014b 0000\nE: 0.03 0000 0000 0000\n"
	     "# the tip touches\n"
	     "E: 0.04 0003 0000 3000\nE: 0.04 0003 0001 5000\nE: 0.04 0003 0019 0000\n"
	     "E: 0.04 0003 0018 0900	# ABS_PRESSURE\nE: 0.04 0001 014a 0001	# BTN_TOUCH\n"
	     "E: 0.04 0000 0000 0000\n"
	     "E: 0.05 0003 0000 5000\nE: 0.05 0003 0018 2000\nE: 0.05 0000 0000 0000\n"
	     "E: 0.06 0003 0018 3000\nE: 0.06 0003 001a 0010	# ABS_TILT_X\n"
	     "E: 0.06 0000 0000 0000\n"
	     "E: 0.07 0001 014b 0001	# BTN_STYLUS while down\nE: 0.07 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 300,500; move 0 300,500>500,500");
	assert_true(input_decoder_held(&f.dec));
	clear(&f.rec);
	feed(&f.dec,
	     "E: 0.08 0001 014b 0000\nE: 0.08 0000 0000 0000\n"
	     "# lifted, hovering away, out of proximity\n"
	     "E: 0.09 0003 0018 0000\nE: 0.09 0003 0019 0005\nE: 0.09 0001 014a 0000\n"
	     "E: 0.09 0000 0000 0000\n"
	     "E: 0.10 0003 0000 9000\nE: 0.10 0000 0000 0000\n"
	     "E: 0.11 0003 0000 0000\nE: 0.11 0003 0001 0000\nE: 0.11 0003 0019 0000\n"
	     "E: 0.11 0003 0028 0000\nE: 0.11 0001 0140 0000\nE: 0.11 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "up 0 500,500");
	assert_false(input_decoder_held(&f.dec));
	clear(&f.rec);
	feed(&f.dec,
	     "# back in elsewhere, and a tap\n"
	     "E: 0.50 0003 0000 8000\nE: 0.50 0003 0001 6000\nE: 0.50 0001 0140 0001\n"
	     "E: 0.50 0000 0000 0000\n"
	     "E: 0.51 0003 0018 1200\nE: 0.51 0001 014a 0001\nE: 0.51 0000 0000 0000\n"
	     "E: 0.52 0003 0018 0000\nE: 0.52 0001 014a 0000\nE: 0.52 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 800,600; up 0 800,600");
	clear(&f.rec);
	/* flicked out of range in its stroke: wacom zeroes the axes in the same report, and
	 * the stroke ends where it was, with no trail to the corner */
	feed(&f.dec,
	     "E: 0.60 0003 0018 1200\nE: 0.60 0001 014a 0001\nE: 0.60 0000 0000 0000\n"
	     "E: 0.61 0003 0000 0000\nE: 0.61 0003 0001 0000\nE: 0.61 0003 0018 0000\n"
	     "E: 0.61 0001 014a 0000\nE: 0.61 0001 0140 0000\nE: 0.61 0004 0000 0802	# MSC_SERIAL\n"
	     "E: 0.61 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 800,600; up 0 800,600");
	/* out of range with the tip still down (no BTN_TOUCH 0 at all): lifted where it was */
	clear(&f.rec);
	feed(&f.dec,
	     "E: 0.65 0003 0000 2000\nE: 0.65 0003 0001 1000\nE: 0.65 0001 0140 0001\n"
	     "E: 0.65 0001 014a 0001\nE: 0.65 0000 0000 0000\n"
	     "E: 0.66 0003 0000 0000\nE: 0.66 0003 0001 0000\nE: 0.66 0001 0140 0000\n"
	     "E: 0.66 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 200,100; up 0 200,100");
	assert_false(input_decoder_held(&f.dec));
	feed(&f.dec, "E: 0.67 0001 014a 0000\nE: 0.67 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 200,100; up 0 200,100");
	/* the same with the report cut short (SYN_DROPPED) and the rest synced after it */
	clear(&f.rec);
	feed(&f.dec,
	     "E: 0.671 0003 0000 3000\nE: 0.671 0003 0001 2000\nE: 0.671 0001 0140 0001\n"
	     "E: 0.671 0001 014a 0001\nE: 0.671 0000 0000 0000\n"
	     "E: 0.672 0001 0140 0000\nE: 0.672 0000 0003 0000	# SYN_DROPPED\n"
	     "E: 0.673 0003 0000 0000\nE: 0.673 0003 0001 0000\nE: 0.673 0001 014a 0000\n"
	     "E: 0.673 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 300,200; up 0 300,200");
	clear(&f.rec);
	feed(&f.dec,
	     "E: 0.68 0003 0000 8000\nE: 0.68 0003 0001 6000\nE: 0.68 0001 0140 0001\n"
	     "E: 0.68 0001 014a 0001\nE: 0.68 0000 0000 0000\n"
	     "E: 0.69 0001 014a 0000\nE: 0.69 0001 0140 0000\nE: 0.69 0000 0000 0000\n");
	assert_string_equal(f.rec.text, "down 0 800,600; up 0 800,600");
	/* lying in range on the tablet: serial numbers, tilt, distance and pressure drift,
	 * which are no one's input; a move of the pen is */
	f.dec.frames = 0;
	feed(&f.dec,
	     "E: 0.70 0003 0000 4000\nE: 0.70 0003 0001 4000\nE: 0.70 0001 0140 0001\n"
	     "E: 0.70 0000 0000 0000\n");
	assert_int_equal(f.dec.frames, 1);
	f.dec.frames = 0;
	feed(&f.dec,
	     "E: 0.71 0004 0000 0802\nE: 0.71 0000 0000 0000\n"
	     "E: 0.72 0003 0019 0031\nE: 0.72 0003 001a 0011\nE: 0.72 0003 001b 0007\n"
	     "E: 0.72 0003 0028 2082\nE: 0.72 0003 0018 0003\nE: 0.72 0004 0000 0802\n"
	     "E: 0.72 0000 0000 0000\n");
	assert_int_equal(f.dec.frames, 0);
	feed(&f.dec, "E: 0.73 0003 0000 4010\nE: 0.73 0000 0000 0000\n");
	assert_int_equal(f.dec.frames, 1);
	assert_string_equal(f.rec.text, "down 0 800,600; up 0 800,600");
}

/* ---- devices: a folder of FIFOs stands for /dev/input ---- */

static void quiet(const struct libevdev *dev, enum libevdev_log_priority priority, void *data,
		  const char *file, int line, const char *func, const char *format, va_list args)
{
	(void)dev, (void)priority, (void)data, (void)file, (void)line, (void)func, (void)format;
	(void)args;
}

/* This program's evdev nodes are FIFOs, each a touch panel made without a kernel (a build
 * machine has no uinput): input.c opens them through this, not libevdev's. libevdev's calls
 * that need a kernel (the clock) fail quietly. */
int libevdev_new_from_fd(int fd, struct libevdev **dev)
{
	static const unsigned touch[] = { BTN_TOUCH };
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return -ENOTTY;
	*dev = libevdev_new();
	if (!*dev)
		return -ENOMEM;
	libevdev_set_device_log_function(*dev, quiet, LIBEVDEV_LOG_ERROR, NULL);
	libevdev_set_name(*dev, "fifo panel");
	add_abs(*dev, ABS_X, 0, 999);
	add_abs(*dev, ABS_Y, 0, 799);
	add(*dev, EV_KEY, touch, 1);
	libevdev_enable_property(*dev, INPUT_PROP_DIRECT);
	return 0;
}

struct nodes {
	char dir[INPUT_DIR_MAX];
	struct loop loop;
	struct input *in;
	char log[32768];
	size_t len;
};

static void on_note(void *ctx, enum log_level level, const char *msg)
{
	struct nodes *n = ctx;

	(void)level;
	n->len += snprintf(n->log + n->len, sizeof(n->log) - n->len, "%s\n", msg);
	assert_true(n->len < sizeof(n->log));
}

static bool take_any(void *ctx, const struct input_contact *c)
{
	(void)ctx, (void)c;
	return true;
}

static void node_name(const struct nodes *n, int i, char *path, size_t len)
{
	snprintf(path, len, "%s/event%d", n->dir, i);
}

static void plug(const struct nodes *n, int i)
{
	char path[INPUT_PATH_MAX];

	node_name(n, i, path, sizeof(path));
	assert_int_equal(mkfifo(path, 0600), 0);
}

static void unplug(const struct nodes *n, int i)
{
	char path[INPUT_PATH_MAX];

	node_name(n, i, path, sizeof(path));
	unlink(path);
}

/* The loop runs until input has count devices, or 2 s. */
static void settle(struct nodes *n, int count)
{
	for (int i = 0; i < 200 && input_count(n->in) != count; i++)
		loop_dispatch(&n->loop, 10);
}

/* The loop runs until the log says what, or 2 s. */
static void await_note(struct nodes *n, const char *what)
{
	for (int i = 0; i < 200 && !strstr(n->log, what); i++)
		loop_dispatch(&n->loop, 10);
}

static int occurrences(const char *text, const char *what)
{
	int k = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		k++;
	return k;
}

static void nodes_open(struct nodes *n, int devices)
{
	struct input_opts o = { .fb_width = 1000, .fb_height = 800, .min_move = 1, .dir = n->dir };

	memset(n, 0, sizeof(*n));
	snprintf(n->dir, sizeof(n->dir), "/tmp/fbr-input.XXXXXX");
	assert_non_null(mkdtemp(n->dir));
	for (int i = 0; i < devices; i++)
		plug(n, i);
	assert_int_equal(loop_init(&n->loop), 0);
	assert_int_equal(input_open(&n->in, &o, &n->loop, take_any, on_note, n), 0);
}

static void nodes_close(struct nodes *n, int nodes)
{
	input_close(n->in);
	loop_free(&n->loop);
	for (int i = 0; i < nodes; i++)
		unplug(n, i);
	rmdir(n->dir);
}

/* A device that comes while every entry is in use is opened once one frees, and the log says
 * so once, however often it is seen again (review: it was lost until plugged in again). */
static void test_device_waits_for_room(void **state)
{
	char path[INPUT_PATH_MAX], again[INPUT_PATH_MAX], opened[INPUT_PATH_MAX + 32];
	struct nodes n;

	(void)state;
	nodes_open(&n, INPUT_DEVICES_MAX);
	assert_int_equal(input_count(n.in), INPUT_DEVICES_MAX);
	plug(&n, INPUT_DEVICES_MAX);
	node_name(&n, INPUT_DEVICES_MAX, path, sizeof(path));
	snprintf(again, sizeof(again), "%s/again", n.dir);
	assert_int_equal(mkfifo(again, 0600), 0);
	assert_int_equal(rename(again, path), 0);	/* the same node seen twice */
	unplug(&n, 3);
	snprintf(opened, sizeof(opened), "%s: \"fifo panel\"", path);
	await_note(&n, opened);
	assert_int_equal(input_count(n.in), INPUT_DEVICES_MAX);
	assert_non_null(strstr(n.log, opened));
	assert_int_equal(occurrences(n.log, "opened when one goes away"), 1);
	nodes_close(&n, INPUT_DEVICES_MAX + 1);
}

/* However many devices come while the entries are in use, INPUT_WAITING_MAX wait: a flood of
 * hotplug events does not grow the list, and the log tells of those not kept once. */
static void test_devices_waiting_bounded(void **state)
{
	int extra = INPUT_WAITING_MAX + 3, all = INPUT_DEVICES_MAX + extra;
	struct nodes n;

	(void)state;
	nodes_open(&n, INPUT_DEVICES_MAX);
	for (int i = INPUT_DEVICES_MAX; i < all; i++)
		plug(&n, i);
	await_note(&n, "not opened");
	for (int i = 0; i < 10; i++)
		loop_dispatch(&n.loop, 10);	/* the events of the rest */
	assert_int_equal(occurrences(n.log, "opened when one goes away"), INPUT_WAITING_MAX);
	assert_int_equal(occurrences(n.log, "not opened"), 1);
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		unplug(&n, i);
	settle(&n, INPUT_WAITING_MAX);
	assert_int_equal(input_count(n.in), INPUT_WAITING_MAX);
	nodes_close(&n, all);
}

/* The descriptor open() would take once path's is closed: the lowest free one, or path's if
 * that is lower. A soft RLIMIT_NOFILE of it makes that open() fail with EMFILE. */
static rlim_t lowest_free_fd_without(const char *path)
{
	char link[64], target[INPUT_PATH_MAX];
	struct dirent *e;
	DIR *fds = opendir("/proc/self/fd");
	int lowest = fcntl(0, F_DUPFD_CLOEXEC, 0);

	assert_non_null(fds);
	assert_true(lowest >= 0);
	close(lowest);
	while ((e = readdir(fds))) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%.16s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, path) == 0 && atoi(e->d_name) < lowest)
			lowest = atoi(e->d_name);
	}
	closedir(fds);
	return (rlim_t)lowest;
}

static struct rlimit saved_nofile;

static int save_nofile(void **state)
{
	(void)state;
	return getrlimit(RLIMIT_NOFILE, &saved_nofile);
}

/* Also after a failed assertion: the tests after it need descriptors. */
static int restore_nofile(void **state)
{
	(void)state;
	alarm(0);
	return setrlimit(RLIMIT_NOFILE, &saved_nofile);
}

/* A waiting device whose open() fails for want of descriptors (EMFILE) is not put back to wait
 * for an entry (review: open_waiting then looped for ever, the lock held, logging each turn): the
 * log warns once and the node is dropped, like a node any other open error keeps out, until it
 * is plugged in again. alarm() makes a hang a failure. */
static void test_waiting_device_without_descriptors(void **state)
{
	char path[INPUT_PATH_MAX], gone[INPUT_PATH_MAX], opened[INPUT_PATH_MAX + 32];
	struct rlimit low = saved_nofile;
	struct nodes n;

	(void)state;
	alarm(20);
	nodes_open(&n, INPUT_DEVICES_MAX);
	plug(&n, INPUT_DEVICES_MAX);
	await_note(&n, "opened when one goes away");
	node_name(&n, 3, gone, sizeof(gone));
	low.rlim_cur = lowest_free_fd_without(gone);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	unplug(&n, 3);
	await_note(&n, strerror(EMFILE));
	for (int i = 0; i < 10; i++)
		loop_dispatch(&n.loop, 10);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved_nofile), 0);
	for (int i = 0; i < 10; i++)
		loop_dispatch(&n.loop, 10);
	node_name(&n, INPUT_DEVICES_MAX, path, sizeof(path));
	snprintf(opened, sizeof(opened), "%s: \"fifo panel\"", path);
	assert_int_equal(occurrences(n.log, strerror(EMFILE)), 1);
	assert_int_equal(occurrences(n.log, "opened when one goes away"), 1);
	assert_null(strstr(n.log, opened));
	assert_int_equal(input_count(n.in), INPUT_DEVICES_MAX - 1);
	nodes_close(&n, INPUT_DEVICES_MAX + 1);
}

/* ---- a flood: 10,000 events in one second's worth from one device ---- */

struct flood {
	struct water water;
	int drops, last_x, last_y, down;
};

static void on_flood(void *ctx, const struct input_contact *c)
{
	struct flood *f = ctx;

	if (c->action == INPUT_DOWN) {
		water_drop(&f->water, c->x, c->y, 6, 128);
		f->down++;
	} else if (c->action == INPUT_MOVE) {
		water_trail(&f->water, c->from_x, c->from_y, c->x, c->y, 6, 48, 8);
	}
	if (c->action != INPUT_ACTIVITY) {
		f->last_x = c->x;
		f->last_y = c->y;
		f->drops++;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 3,333 frames of X, Y and SYN_REPORT (10,000 events) sweeping one finger back and forth
 * over a 1000x800 screen, as the decoder and the water see them in main.c. */
static void test_flood(void **state)
{
	struct input_map map;
	struct input_decoder dec;
	struct flood f = { 0 };
	struct input_axis ax = AXIS(0, 1000), ay = AXIS(0, 800);
	struct input_event ev[3] = { { .type = EV_ABS, .code = ABS_MT_POSITION_X },
				     { .type = EV_ABS, .code = ABS_MT_POSITION_Y },
				     { .type = EV_SYN, .code = SYN_REPORT } };
	int frames = 10000 / 3, n = 0;
	double t;

	(void)state;
	assert_int_equal(water_init(&f.water, 1000, 800, 1, 5), 0);
	input_map_init(&map, 1000, 800, 0, NULL);
	input_decoder_init(&dec, INPUT_MT_B, &ax, &ay, &map, 8, 0, on_flood, &f);
	input_decoder_feed(&dec, &(struct input_event){ .type = EV_ABS,
							.code = ABS_MT_TRACKING_ID });
	t = now_s();
	for (int i = 0; i < frames; i++) {
		ev[0].value = 100 + (i * 7) % 800;
		ev[1].value = 100 + (i * 3) % 600;
		for (int k = 0; k < 3; k++, n++)
			input_decoder_feed(&dec, &ev[k]);
	}
	input_decoder_feed(&dec, &(struct input_event){ .type = EV_ABS,
							.code = ABS_MT_TRACKING_ID, .value = -1 });
	input_decoder_feed(&dec, &ev[2]);
	t = now_s() - t;
	print_message("# flood: %d events, %d reports, in %.2f ms (%.1f%% of one second)\n",
		      n + 3, f.drops, t * 1e3, t * 100);
	assert_int_equal(f.down, 1);
	assert_int_equal(f.last_x, ev[0].value);
	assert_int_equal(f.last_y, ev[1].value);
	/* one report at most per frame, moves shorter than min_move folded into the next: the
	 * work a flood makes is bounded by its frames (its time is printed, not asserted: under
	 * valgrind it is 40 times the native 7 ms) */
	assert_in_range(f.drops, frames / 3, frames);
	water_free(&f.water);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mt_b_slots),
		cmocka_unit_test(test_mt_b_new_id_in_slot),
		cmocka_unit_test(test_mt_b_high_slot),
		cmocka_unit_test(test_syn_dropped_mid_stroke),
		cmocka_unit_test(test_syn_dropped_lift),
		cmocka_unit_test(test_syn_dropped_new_contact),
		cmocka_unit_test(test_syn_dropped_replaced_contact),
		cmocka_unit_test(test_mt_a),
		cmocka_unit_test(test_mt_a_tracking_ids),
		cmocka_unit_test(test_mt_a_contacts_past_slots),
		cmocka_unit_test(test_mt_a_ids_for_some_contacts),
		cmocka_unit_test(test_mt_a_matched_by_distance),
		cmocka_unit_test(test_mt_a_syn_dropped),
		cmocka_unit_test(test_mt_a_syn_dropped_without_button),
		cmocka_unit_test(test_mt_a_skipped_frame_forgotten),
		cmocka_unit_test(test_mt_only),
		cmocka_unit_test(test_single_touch_offset_range),
		cmocka_unit_test(test_mouse_autorepeat),
		cmocka_unit_test(test_tablet),
		cmocka_unit_test(test_every_button),
		cmocka_unit_test(test_huge_ranges),
		cmocka_unit_test(test_other_axes),
		cmocka_unit_test(test_min_move),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_held_still_is_activity),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_seed_tablet_position),
		cmocka_unit_test(test_seed_multitouch_slots),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_pen_tablet_upright),
		cmocka_unit_test(test_classify_pens),
		cmocka_unit_test(test_pen),
		cmocka_unit_test(test_device_waits_for_room),
		cmocka_unit_test(test_devices_waiting_bounded),
		cmocka_unit_test_setup_teardown(test_waiting_device_without_descriptors,
						save_nofile, restore_nofile),
		cmocka_unit_test(test_flood),
	};

	return cmocka_run_group_tests_name("input", tests, NULL, NULL);
}
