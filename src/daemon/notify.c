/* notify.c - the sd_notify protocol: libsystemd's when built with it, else a datagram of our own. */
#include "notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#define NOTIFY_MSG_MAX 1024

#ifdef HAVE_LIBSYSTEMD
int notify_send(const char *state)
{
	return sd_notify(0, state);
}

uint64_t notify_watchdog_usec(void)
{
	uint64_t usec = 0;

	return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}
#else
/* "/path" or "@abstract" into addr; its length, or -errno. */
static int notify_addr(const char *path, struct sockaddr_un *addr)
{
	size_t n = strlen(path);

	if ((path[0] != '/' && path[0] != '@') || n < 2 || n >= sizeof(addr->sun_path))
		return -EINVAL;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, path, n);
	if (path[0] == '@')
		addr->sun_path[0] = '\0';
	return (int)(offsetof(struct sockaddr_un, sun_path) + n);
}

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr;
	int len, fd, ret = 1;

	if (!path || !*path)
		return 0;
	len = notify_addr(path, &addr);
	if (len < 0)
		return len;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
		   (socklen_t)len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

uint64_t notify_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (!usec)
		return 0;
	if (pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	return errno || end == usec || *end ? 0 : (uint64_t)v;
}
#endif

int notify_sendf(const char *fmt, ...)
{
	char msg[NOTIFY_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return notify_send(msg);
}

bool notify_wanted(void)
{
	const char *path = getenv("NOTIFY_SOCKET");

	return path && *path;
}

int notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return notify_sendf("RELOADING=1\nMONOTONIC_USEC=%llu",
			    (unsigned long long)ts.tv_sec * 1000000ull +
			    (unsigned long long)ts.tv_nsec / 1000);
}
