/* evdump.c - guest helper: prints the events of an evdev device as "ev TYPE CODE VALUE" lines
 * until COUNT events or TIMEOUT_MS pass. The device is a path or a device name; with
 * EVDUMP_GRAB=1 in the environment it grabs the device first (EVIOCGRAB), as a program that
 * keeps a touchscreen to itself does. Built static. */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "evfind.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	char path[64];
	struct input_event ev;
	int count = argc > 2 ? atoi(argv[2]) : 1, fd, n = 0;
	long end = now_ms() + (argc > 3 ? atol(argv[3]) : 5000);

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: evdump DEVICE|NAME [COUNT [TIMEOUT_MS]]\n");
		return 2;
	}
	if (argv[1][0] == '/')
		snprintf(path, sizeof(path), "%s", argv[1]);
	else if (evfind_by_name(argv[1], path, sizeof(path))) {
		fprintf(stderr, "evdump: no input device named '%s'\n", argv[1]);
		return 1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "evdump: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (getenv("EVDUMP_GRAB") && ioctl(fd, EVIOCGRAB, 1) < 0) {
		fprintf(stderr, "evdump: %s: grab: %s\n", path, strerror(errno));
		return 1;
	}
	printf("evdump: %s%s\n", path, getenv("EVDUMP_GRAB") ? " grabbed" : "");
	fflush(stdout);
	while (n < count && now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, (int)(end - now_ms())) <= 0)
			continue;
		while (n < count && read(fd, &ev, sizeof(ev)) == sizeof(ev)) {
			printf("ev %u %u %d\n", ev.type, ev.code, ev.value);
			n++;
		}
		fflush(stdout);
	}
	close(fd);
	return n < count ? 1 : 0;
}
