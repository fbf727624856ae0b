/* ctlping.c - guest helper: asks fbripple's control socket for "status" COUNT times, every
 * INTERVAL ms, each on a new connection as `fbripple --send` does, and prints one line: how many
 * answered "ok", the round trips (median, 90th percentile, slowest) and the frame rates the
 * replies gave (median, lowest), and how much later than asked its own sleeps between them
 * ended at most: a guest that a loaded host stops for a while stops ctlping too, and such a
 * round says little about fbripple. Built static; runs in the VM, where a dynamic program's
 * start would cost more than the round trip it measures.
 * Usage: ctlping SOCKET COUNT INTERVAL_MS */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT 200
#define TIMEOUT_MS 5000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* One status round trip: the reply line in reply, 0 or -errno. */
static int ask(const char *path, char *reply, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    send(fd, "status\n", 7, MSG_NOSIGNAL) != 7)
		rc = -errno;
	while (rc == 0 && got + 1 < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, TIMEOUT_MS) <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		n = recv(fd, reply + got, len - 1 - got, 0);
		if (n <= 0) {
			rc = n < 0 ? -errno : -ECONNRESET;
			break;
		}
		got += (size_t)n;
		if (memchr(reply, '\n', got))
			break;
	}
	reply[got] = '\0';
	close(fd);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static double ms[MAX_COUNT], fps[MAX_COUNT];
	int count, interval, ok = 0, nfps = 0;
	double late = 0;

	if (argc != 4 || (count = atoi(argv[2])) <= 0 || count > MAX_COUNT ||
	    (interval = atoi(argv[3])) < 0) {
		fprintf(stderr, "usage: ctlping SOCKET COUNT(1..%d) INTERVAL_MS\n", MAX_COUNT);
		return 2;
	}
	for (int i = 0; i < count; i++) {
		char reply[512];
		double t = now_ms();
		int rc = ask(argv[1], reply, sizeof(reply));
		const char *f = strstr(reply, "fps=");

		ms[i] = now_ms() - t;
		if (rc == 0 && strncmp(reply, "ok", 2) == 0) {
			ok++;
			if (f)
				fps[nfps++] = atof(f + 4);
		} else {
			fprintf(stderr, "ctlping: %s\n", rc ? strerror(-rc) : reply);
		}
		if (i + 1 < count) {
			t = now_ms();
			usleep((useconds_t)interval * 1000);
			t = now_ms() - t - interval;
			late = t > late ? t : late;
		}
	}
	qsort(ms, (size_t)count, sizeof(ms[0]), cmp_double);
	qsort(fps, (size_t)nfps, sizeof(fps[0]), cmp_double);
	printf("ctlping: %d of %d ok, ms median %.1f p90 %.1f max %.1f, fps median %.1f min %.1f, "
	       "sleeps late by %.1f ms at most\n", ok, count, ms[count / 2], ms[count * 9 / 10],
	       ms[count - 1], nfps ? fps[nfps / 2] : 0.0, nfps ? fps[0] : 0.0, late);
	return ok == count ? 0 : 1;
}
