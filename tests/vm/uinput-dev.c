/* uinput-dev.c - guest helper: creates a uinput device of one input class and replays commands
 * read from stdin. Built static; runs inside the test VM.
 * Usage: uinput-dev CLASS NAME [XMIN XMAX YMIN YMAX] < commands
 *   CLASS: mt (protocol B, INPUT_PROP_DIRECT), st (ABS_X/Y + BTN_TOUCH, no INPUT_PROP_DIRECT),
 *          egalax (st that reports on ABS_Z and ABS_RX, its ranges, while ABS_X/Y stay still),
 *          mouse (REL_X/Y + BTN_LEFT, also a keyboard),
 *          pen (a pen tablet beside the screen: BTN_TOOL_PEN, BTN_TOUCH, BTN_STYLUS, ABS_X/Y,
 *          ABS_PRESSURE, INPUT_PROP_POINTER, as a Wacom Intuos's pen)
 * Commands: down SLOT X Y | move SLOT X Y | up SLOT | sync | tap X Y | rel DX DY | btn 0|1|2
 *           | pen X Y            (pen: in range 400 units right of X, hovering to X,Y, the
 *                                 barrel button clicked, the tip down and up, out of range)
 *           | flood N RATE X Y   (N frames of a 3-event jitter around X,Y at RATE events/s)
 *           | fingers N HZ F     (mt: N fingers down for F frames at HZ, finger i at
 *                                 64 + 128 i + (f & 1), 40 + f in frame f, then lifted)
 *           | rels F HZ DX DY    (F frames of REL_X DX, REL_Y DY at HZ)
 *           | chatter MS         (mt: for MS ms, as fast as writes go, a report a write as
 *                                 a controller's interrupt brings it: touch-downs, moves and
 *                                 touch-ups of two fingers all over the panel, a faulty
 *                                 controller; both fingers lifted at the end)
 *           | nice N (its own scheduling priority) | sleep MS | say TEXT (printed to stdout) */
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 10

struct dev {
	int fd;
	char cls[8];
	int next_id;
	int active[SLOTS];
	int ranges[4];		/* x min, x max, y min, y max */
};

static int emit(struct dev *d, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };

	return write(d->fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -errno;
}

static int set(int fd, unsigned long req, int v)
{
	return ioctl(fd, req, v) < 0 ? -errno : 0;
}

static int abs_axis(int fd, int code, int min, int max)
{
	struct uinput_abs_setup a = { .code = code, .absinfo = { .minimum = min, .maximum = max } };

	if (set(fd, UI_SET_ABSBIT, code) || ioctl(fd, UI_ABS_SETUP, &a))
		return -errno;
	return 0;
}

static int setup_mt(int fd, const int *r)
{
	int rc = set(fd, UI_SET_EVBIT, EV_KEY) || set(fd, UI_SET_KEYBIT, BTN_TOUCH) ||
		 set(fd, UI_SET_EVBIT, EV_ABS) || set(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT);

	rc = rc || abs_axis(fd, ABS_X, r[0], r[1]) || abs_axis(fd, ABS_Y, r[2], r[3]);
	rc = rc || abs_axis(fd, ABS_MT_SLOT, 0, SLOTS - 1);
	rc = rc || abs_axis(fd, ABS_MT_TRACKING_ID, 0, 65535);
	rc = rc || abs_axis(fd, ABS_MT_POSITION_X, r[0], r[1]);
	return rc || abs_axis(fd, ABS_MT_POSITION_Y, r[2], r[3]) ? -EIO : 0;
}

static int setup_st(int fd, const int *r, int egalax)
{
	int rc = set(fd, UI_SET_EVBIT, EV_KEY) || set(fd, UI_SET_KEYBIT, BTN_TOUCH) ||
		 set(fd, UI_SET_EVBIT, EV_ABS);

	if (egalax)
		rc = rc || abs_axis(fd, ABS_Z, r[0], r[1]) || abs_axis(fd, ABS_RX, r[2], r[3]);
	return rc || abs_axis(fd, ABS_X, r[0], r[1]) || abs_axis(fd, ABS_Y, r[2], r[3]) ? -EIO : 0;
}

static int setup_pen(int fd, const int *r)
{
	int rc = set(fd, UI_SET_EVBIT, EV_KEY) || set(fd, UI_SET_KEYBIT, BTN_TOOL_PEN) ||
		 set(fd, UI_SET_KEYBIT, BTN_TOUCH) || set(fd, UI_SET_KEYBIT, BTN_STYLUS) ||
		 set(fd, UI_SET_EVBIT, EV_ABS) || set(fd, UI_SET_PROPBIT, INPUT_PROP_POINTER);

	rc = rc || abs_axis(fd, ABS_PRESSURE, 0, 2047);
	return rc || abs_axis(fd, ABS_X, r[0], r[1]) || abs_axis(fd, ABS_Y, r[2], r[3]) ? -EIO : 0;
}

static int setup_mouse(int fd)
{
	int rc = set(fd, UI_SET_EVBIT, EV_KEY) || set(fd, UI_SET_KEYBIT, BTN_LEFT) ||
		 set(fd, UI_SET_KEYBIT, BTN_RIGHT) || set(fd, UI_SET_EVBIT, EV_REL) ||
		 set(fd, UI_SET_RELBIT, REL_X) || set(fd, UI_SET_RELBIT, REL_Y);

	for (int k = KEY_ESC; !rc && k <= KEY_SPACE; k++)
		rc = set(fd, UI_SET_KEYBIT, k);
	return rc ? -EIO : 0;
}

static int create(struct dev *d, const char *name, const int *ranges)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x1234,
					      .product = 0x5679 } };
	int rc;

	d->fd = open("/dev/uinput", O_WRONLY);
	if (d->fd < 0)
		return -errno;
	snprintf(setup.name, sizeof(setup.name), "%s", name);
	if (strcmp(d->cls, "mt") == 0)
		rc = setup_mt(d->fd, ranges);
	else if (strcmp(d->cls, "st") == 0 || strcmp(d->cls, "egalax") == 0)
		rc = setup_st(d->fd, ranges, strcmp(d->cls, "egalax") == 0);
	else if (strcmp(d->cls, "mouse") == 0)
		rc = setup_mouse(d->fd);
	else if (strcmp(d->cls, "pen") == 0)
		rc = setup_pen(d->fd, ranges);
	else
		rc = -EINVAL;
	if (rc == 0 && (ioctl(d->fd, UI_DEV_SETUP, &setup) || ioctl(d->fd, UI_DEV_CREATE)))
		rc = -errno;
	return rc;
}

/* Prints the /dev/input/eventN node of the new device, waiting for devtmpfs (up to 2 s). */
static void print_node(struct dev *d)
{
	char sys[64], path[128];

	if (ioctl(d->fd, UI_GET_SYSNAME(sizeof(sys)), sys) < 0)
		return;
	for (int tries = 0; tries < 200; tries++) {
		for (int n = 0; n < 64; n++) {
			snprintf(path, sizeof(path), "/sys/class/input/%s/event%d", sys, n);
			if (access(path, F_OK) == 0) {
				printf("uinput-dev: /dev/input/event%d\n", n);
				fflush(stdout);
				return;
			}
		}
		usleep(10000);
	}
	fprintf(stderr, "uinput-dev: no event node for %s\n", sys);
}

static int contacts(const struct dev *d)
{
	int n = 0;

	for (int i = 0; i < SLOTS; i++)
		n += d->active[i];
	return n;
}

static int touch(struct dev *d, int slot, int x, int y, int down)
{
	int rc = 0;

	if (strcmp(d->cls, "st") == 0 || strcmp(d->cls, "egalax") == 0) {
		int egalax = strcmp(d->cls, "egalax") == 0;

		if (down)
			rc = emit(d, EV_KEY, BTN_TOUCH, 1);
		rc = rc ? rc : emit(d, EV_ABS, egalax ? ABS_Z : ABS_X, x);
		return rc ? rc : emit(d, EV_ABS, egalax ? ABS_RX : ABS_Y, y);
	}
	rc = emit(d, EV_ABS, ABS_MT_SLOT, slot);
	if (down) {
		rc = rc ? rc : emit(d, EV_ABS, ABS_MT_TRACKING_ID, d->next_id++ & 0xffff);
		if (!rc && contacts(d) == 0)
			rc = emit(d, EV_KEY, BTN_TOUCH, 1);
		d->active[slot] = 1;
	}
	rc = rc ? rc : emit(d, EV_ABS, ABS_MT_POSITION_X, x);
	return rc ? rc : emit(d, EV_ABS, ABS_MT_POSITION_Y, y);
}

static int lift(struct dev *d, int slot)
{
	int rc;

	if (strcmp(d->cls, "st") == 0 || strcmp(d->cls, "egalax") == 0)
		return emit(d, EV_KEY, BTN_TOUCH, 0);
	rc = emit(d, EV_ABS, ABS_MT_SLOT, slot);
	rc = rc ? rc : emit(d, EV_ABS, ABS_MT_TRACKING_ID, -1);
	d->active[slot] = 0;
	if (!rc && contacts(d) == 0)
		rc = emit(d, EV_KEY, BTN_TOUCH, 0);
	return rc;
}

static void sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

/* n frames of ABS_MT_POSITION_X, ABS_MT_POSITION_Y, SYN_REPORT in slot 0, paced to rate events
 * per second, jittering within 4 units of x, y; ends exactly at x, y. */
static int flood(struct dev *d, int n, int rate, int x, int y)
{
	struct timespec t, start;
	long ns_per_frame = 3 * 1000000000L / rate;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	t = start;
	for (int i = 0; i < n && !rc; i++) {
		int j = i == n - 1 ? 0 : (i % 9) - 4;

		rc = emit(d, EV_ABS, ABS_MT_POSITION_X, x + j);
		rc = rc ? rc : emit(d, EV_ABS, ABS_MT_POSITION_Y, y - j);
		rc = rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
		if (i % 32 == 31) {
			long ns = t.tv_nsec + 32 * ns_per_frame;

			t.tv_sec += ns / 1000000000L;
			t.tv_nsec = ns % 1000000000L;
			sleep_until(&t);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("uinput-dev: flood %d events in %ld ms\n", 3 * n,
	       (t.tv_sec - start.tv_sec) * 1000 + (t.tv_nsec - start.tv_nsec) / 1000000);
	fflush(stdout);
	return rc;
}

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The next frame ns after the last one. Behind the schedule (a loaded host stops the guest
 * now and then) it catches up by at most 4 frames at once, not in a burst of hundreds that no
 * real device would send. */
static void tick(struct timespec *t, long ns)
{
	struct timespec now;
	int64_t next = ns_of(t) + ns;

	t->tv_sec = (time_t)(next / 1000000000);
	t->tv_nsec = (long)(next % 1000000000);
	sleep_until(t);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ns_of(&now) - next > 4 * (int64_t)ns) {
		next = ns_of(&now) - 4 * (int64_t)ns;
		t->tv_sec = (time_t)(next / 1000000000);
		t->tv_nsec = (long)(next % 1000000000);
	}
}

static long ms_since(const struct timespec *start)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - start->tv_sec) * 1000 + (t.tv_nsec - start->tv_nsec) / 1000000;
}

/* n fingers (slots 0..n-1) moving down the screen together for f frames at hz, a panel at
 * its full report rate: every finger moves in x and y in every frame. */
static int fingers(struct dev *d, int n, int hz, int f)
{
	struct timespec t, start;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	t = start;
	for (int i = 0; i < f && !rc; i++) {
		for (int k = 0; k < n && !rc; k++)
			rc = touch(d, k, 64 + 128 * k + (i & 1), 40 + i, i == 0);
		rc = rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
		tick(&t, 1000000000L / hz);
	}
	for (int k = 0; k < n && !rc; k++)
		rc = lift(d, k);
	rc = rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
	printf("uinput-dev: %d fingers, %d frames in %ld ms\n", n, f, ms_since(&start));
	fflush(stdout);
	return rc;
}

static int rels(struct dev *d, int f, int hz, int dx, int dy)
{
	struct timespec t, start;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	t = start;
	for (int i = 0; i < f && !rc; i++) {
		rc = emit(d, EV_REL, REL_X, dx);
		rc = rc ? rc : emit(d, EV_REL, REL_Y, dy);
		rc = rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
		tick(&t, 1000000000L / hz);
	}
	printf("uinput-dev: %d motions in %ld ms\n", f, ms_since(&start));
	fflush(stdout);
	return rc;
}

/* Events gathered for one write(), a report: the kernel takes them in a single call (a write of
 * hundreds keeps the CPU in the kernel for as long as it takes, which no device does). */
struct burst {
	struct input_event ev[256];
	int n;
	long total;
};

static int burst_flush(struct dev *d, struct burst *b)
{
	ssize_t len = (ssize_t)(b->n * sizeof(b->ev[0]));

	if (b->n && write(d->fd, b->ev, (size_t)len) != len)
		return -errno;
	b->total += b->n;
	b->n = 0;
	return 0;
}

static int burst_add(struct dev *d, struct burst *b, int type, int code, int value)
{
	b->ev[b->n++] = (struct input_event){ .type = type, .code = code, .value = value };
	return b->n == 256 ? burst_flush(d, b) : 0;
}

/* A controller gone mad: each finger touches down somewhere, moves to three other random
 * places (a report each) and lifts, over and over, as fast as the kernel takes the writes. */
static int chatter(struct dev *d, int ms, const int *r)
{
	struct burst b = { .n = 0 };
	struct timespec start;
	uint32_t rng = 0x12345678u;
	int rc = 0, reports = 0, id = 1;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0; !rc && (i & 63 || ms_since(&start) < ms); i++) {
		int slot = (int)(i & 1), step = (int)(i >> 1) % 5;

		rc = burst_add(d, &b, EV_ABS, ABS_MT_SLOT, slot);
		if (step == 4) {
			rc = rc ? rc : burst_add(d, &b, EV_ABS, ABS_MT_TRACKING_ID, -1);
		} else {
			rng = rng * 1664525u + 1013904223u;
			if (step == 0)
				rc = rc ? rc : burst_add(d, &b, EV_ABS, ABS_MT_TRACKING_ID, id++ & 0xffff);
			rc = rc ? rc : burst_add(d, &b, EV_ABS, ABS_MT_POSITION_X,
						 r[0] + (int)((rng >> 8) % (uint32_t)(r[1] - r[0] + 1)));
			rc = rc ? rc : burst_add(d, &b, EV_ABS, ABS_MT_POSITION_Y,
						 r[2] + (int)((rng >> 20) % (uint32_t)(r[3] - r[2] + 1)));
		}
		rc = rc ? rc : burst_add(d, &b, EV_KEY, BTN_TOUCH, !(step == 4 && slot == 1));
		rc = rc ? rc : burst_add(d, &b, EV_SYN, SYN_REPORT, 0);
		rc = rc ? rc : burst_flush(d, &b);
		reports++;
		if ((i & 63) == 63 && ms_since(&start) % 2)
			usleep(1000);	/* half the time: the guest's other CPU stays the daemon's */
	}
	for (int k = 0; k < 2 && !rc; k++) {
		rc = burst_add(d, &b, EV_ABS, ABS_MT_SLOT, k);
		rc = rc ? rc : burst_add(d, &b, EV_ABS, ABS_MT_TRACKING_ID, -1);
	}
	rc = rc ? rc : burst_add(d, &b, EV_KEY, BTN_TOUCH, 0);
	rc = rc ? rc : burst_add(d, &b, EV_SYN, SYN_REPORT, 0);
	rc = rc ? rc : burst_flush(d, &b);
	d->active[0] = d->active[1] = 0;
	printf("uinput-dev: chatter %ld events, %d reports in %ld ms\n", b.total, reports,
	       ms_since(&start));
	fflush(stdout);
	return rc;
}

/* A pen's stroke as a tablet reports it: a report per line, each ended by SYN_REPORT. */
static int pen(struct dev *d, int x, int y)
{
	const int ev[][3] = {
		{ EV_ABS, ABS_X, x + 400 }, { EV_ABS, ABS_Y, y }, { EV_KEY, BTN_TOOL_PEN, 1 },
		{ EV_SYN, 0, 0 }, { EV_ABS, ABS_X, x + 200 }, { EV_SYN, 0, 0 },
		{ EV_ABS, ABS_X, x }, { EV_SYN, 0, 0 },
		{ EV_KEY, BTN_STYLUS, 1 }, { EV_SYN, 0, 0 }, { EV_KEY, BTN_STYLUS, 0 }, { EV_SYN, 0, 0 },
		{ EV_ABS, ABS_PRESSURE, 900 }, { EV_KEY, BTN_TOUCH, 1 }, { EV_SYN, 0, 0 },
		{ EV_ABS, ABS_PRESSURE, 0 }, { EV_KEY, BTN_TOUCH, 0 }, { EV_SYN, 0, 0 },
		{ EV_KEY, BTN_TOOL_PEN, 0 }, { EV_SYN, 0, 0 },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]) && !rc; i++) {
		rc = emit(d, ev[i][0], ev[i][1], ev[i][2]);
		if (!rc && ev[i][0] == EV_SYN)
			usleep(8000);
	}
	return rc;
}

static int command(struct dev *d, const char *line)
{
	int s, x, y, n;

	if (sscanf(line, "down %d %d %d", &s, &x, &y) == 3 && s >= 0 && s < SLOTS)
		return touch(d, s, x, y, 1);
	if (sscanf(line, "move %d %d %d", &s, &x, &y) == 3 && s >= 0 && s < SLOTS)
		return touch(d, s, x, y, 0);
	if (sscanf(line, "up %d", &s) == 1 && s >= 0 && s < SLOTS)
		return lift(d, s);
	if (strncmp(line, "sync", 4) == 0)
		return emit(d, EV_SYN, SYN_REPORT, 0);
	if (sscanf(line, "tap %d %d", &x, &y) == 2) {
		int rc = touch(d, 0, x, y, 1);

		rc = rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
		rc = rc ? rc : lift(d, 0);
		return rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
	}
	if (sscanf(line, "pen %d %d", &x, &y) == 2 && strcmp(d->cls, "pen") == 0)
		return pen(d, x, y);
	if (sscanf(line, "rel %d %d", &x, &y) == 2) {
		int rc = emit(d, EV_REL, REL_X, x);

		rc = rc ? rc : emit(d, EV_REL, REL_Y, y);
		return rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
	}
	if (sscanf(line, "btn %d", &x) == 1) {
		int rc = emit(d, EV_KEY, BTN_LEFT, x);

		return rc ? rc : emit(d, EV_SYN, SYN_REPORT, 0);
	}
	if (sscanf(line, "flood %d %d %d %d", &n, &s, &x, &y) == 4 && n > 0 && s > 0)
		return flood(d, n, s, x, y);
	if (sscanf(line, "fingers %d %d %d", &n, &s, &x) == 3 && n > 0 && n <= SLOTS && s > 0)
		return fingers(d, n, s, x);
	if (sscanf(line, "rels %d %d %d %d", &n, &s, &x, &y) == 4 && s > 0)
		return rels(d, n, s, x, y);
	if (sscanf(line, "chatter %d", &n) == 1 && n > 0 && strcmp(d->cls, "mt") == 0)
		return chatter(d, n, d->ranges);
	if (sscanf(line, "nice %d", &x) == 1)
		return setpriority(PRIO_PROCESS, 0, x) ? -errno : 0;
	if (sscanf(line, "sleep %d", &x) == 1)
		return usleep(x * 1000) ? -errno : 0;
	if (strncmp(line, "say ", 4) == 0) {
		printf("%s", line + 4);
		fflush(stdout);
		return 0;
	}
	return line[0] == '\n' || line[0] == '#' ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct dev d = { .fd = -1 };
	int ranges[4] = { 0, 639, 0, 479 }, rc;
	char line[128];

	if (argc != 3 && argc != 7) {
		fprintf(stderr, "usage: uinput-dev mt|st|egalax|mouse|pen NAME [XMIN XMAX YMIN YMAX]\n");
		return 2;
	}
	snprintf(d.cls, sizeof(d.cls), "%s", argv[1]);
	for (int i = 0; argc == 7 && i < 4; i++)
		ranges[i] = atoi(argv[3 + i]);
	memcpy(d.ranges, ranges, sizeof(ranges));
	rc = create(&d, argv[2], ranges);
	if (rc) {
		fprintf(stderr, "uinput-dev: creating the device: %s\n", strerror(-rc));
		return 1;
	}
	print_node(&d);
	while (rc == 0 && fgets(line, sizeof(line), stdin))
		if ((rc = command(&d, line)))
			fprintf(stderr, "uinput-dev: '%.*s': %s\n", (int)strcspn(line, "\n"), line,
				strerror(-rc));
	ioctl(d.fd, UI_DEV_DESTROY);
	close(d.fd);
	return rc ? 1 : 0;
}
