/* uinput-touch.c - guest helper: creates a uinput multitouch touchscreen and replays contacts
 * read from stdin, one command per line. Built static; runs inside the test VM.
 * Commands: down SLOT X Y | move SLOT X Y | up SLOT | sync | tap X Y | sleep MS */
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 10

struct touch {
	int fd;
	int next_id;
	int active[SLOTS];
};

static int emit(struct touch *t, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };

	return write(t->fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -errno;
}

static int abs_setup(int fd, int code, int max)
{
	struct uinput_abs_setup a = { .code = code, .absinfo = { .maximum = max } };

	return ioctl(fd, UI_ABS_SETUP, &a);
}

static int create(struct touch *t, const char *name, int w, int h)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x1234,
					      .product = 0x5678 } };
	int fd = open("/dev/uinput", O_WRONLY);

	if (fd < 0)
		return -errno;
	t->fd = fd;
	snprintf(setup.name, sizeof(setup.name), "%s", name);
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) || ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH) ||
	    ioctl(fd, UI_SET_EVBIT, EV_ABS) || ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT))
		return -errno;
	int codes[] = { ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X,
			ABS_MT_POSITION_Y };
	int maxes[] = { w - 1, h - 1, SLOTS - 1, 65535, w - 1, h - 1 };
	for (int i = 0; i < 6; i++)
		if (ioctl(fd, UI_SET_ABSBIT, codes[i]) || abs_setup(fd, codes[i], maxes[i]))
			return -errno;
	if (ioctl(fd, UI_DEV_SETUP, &setup) || ioctl(fd, UI_DEV_CREATE))
		return -errno;
	return 0;
}

/* Prints the /dev/input/eventN node of the new device, waiting for devtmpfs (up to 2 s). */
static void print_node(struct touch *t)
{
	char sys[64], path[128];

	if (ioctl(t->fd, UI_GET_SYSNAME(sizeof(sys)), sys) < 0) {
		perror("uinput-touch: UI_GET_SYSNAME");
		return;
	}
	for (int tries = 0; tries < 200; tries++) {
		for (int n = 0; n < 64; n++) {
			snprintf(path, sizeof(path), "/sys/class/input/%s/event%d", sys, n);
			if (access(path, F_OK) == 0) {
				snprintf(path, sizeof(path), "/dev/input/event%d", n);
				if (access(path, F_OK) == 0) {
					printf("uinput-touch: %s\n", path);
					fflush(stdout);
					return;
				}
			}
		}
		usleep(10000);
	}
	fprintf(stderr, "uinput-touch: no event node for %s\n", sys);
}

static int contacts(const struct touch *t)
{
	int n = 0;

	for (int i = 0; i < SLOTS; i++)
		n += t->active[i];
	return n;
}

static int touch_down(struct touch *t, int slot, int x, int y, int move)
{
	int rc = emit(t, EV_ABS, ABS_MT_SLOT, slot);

	if (!move) {
		rc = rc ? rc : emit(t, EV_ABS, ABS_MT_TRACKING_ID, t->next_id++ & 0xffff);
		if (!rc && contacts(t) == 0)
			rc = emit(t, EV_KEY, BTN_TOUCH, 1);
		t->active[slot] = 1;
	}
	rc = rc ? rc : emit(t, EV_ABS, ABS_MT_POSITION_X, x);
	rc = rc ? rc : emit(t, EV_ABS, ABS_MT_POSITION_Y, y);
	rc = rc ? rc : emit(t, EV_ABS, ABS_X, x);
	return rc ? rc : emit(t, EV_ABS, ABS_Y, y);
}

static int touch_up(struct touch *t, int slot)
{
	int rc = emit(t, EV_ABS, ABS_MT_SLOT, slot);

	rc = rc ? rc : emit(t, EV_ABS, ABS_MT_TRACKING_ID, -1);
	t->active[slot] = 0;
	if (!rc && contacts(t) == 0)
		rc = emit(t, EV_KEY, BTN_TOUCH, 0);
	return rc;
}

static int command(struct touch *t, const char *line)
{
	int s, x, y;

	if (sscanf(line, "down %d %d %d", &s, &x, &y) == 3 && s >= 0 && s < SLOTS)
		return touch_down(t, s, x, y, 0);
	if (sscanf(line, "move %d %d %d", &s, &x, &y) == 3 && s >= 0 && s < SLOTS)
		return touch_down(t, s, x, y, 1);
	if (sscanf(line, "up %d", &s) == 1 && s >= 0 && s < SLOTS)
		return touch_up(t, s);
	if (strncmp(line, "sync", 4) == 0)
		return emit(t, EV_SYN, SYN_REPORT, 0);
	if (sscanf(line, "tap %d %d", &x, &y) == 2) {
		int rc = touch_down(t, 0, x, y, 0);
		rc = rc ? rc : emit(t, EV_SYN, SYN_REPORT, 0);
		rc = rc ? rc : touch_up(t, 0);
		return rc ? rc : emit(t, EV_SYN, SYN_REPORT, 0);
	}
	if (sscanf(line, "sleep %d", &x) == 1)
		return usleep(x * 1000) ? -errno : 0;
	return line[0] == '\n' || line[0] == '#' ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct touch t = { .fd = -1 };
	const char *name = argc > 1 ? argv[1] : "fbvm touchscreen";
	int w = argc > 2 ? atoi(argv[2]) : 1024, h = argc > 3 ? atoi(argv[3]) : 768, rc;
	char line[128];

	if (argc > 4 || w < 2 || h < 2) {
		fprintf(stderr, "usage: uinput-touch [NAME [WIDTH HEIGHT]] < commands\n");
		return 2;
	}
	rc = create(&t, name, w, h);
	if (rc) {
		fprintf(stderr, "uinput-touch: creating the device: %s\n", strerror(-rc));
		return 1;
	}
	print_node(&t);
	while (rc == 0 && fgets(line, sizeof(line), stdin))
		if ((rc = command(&t, line)))
			fprintf(stderr, "uinput-touch: '%.*s': %s\n", (int)strcspn(line, "\n"), line,
				strerror(-rc));
	ioctl(t.fd, UI_DEV_DESTROY);
	close(t.fd);
	return rc ? 1 : 0;
}
