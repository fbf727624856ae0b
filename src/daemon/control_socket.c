/* control_socket.c - the control socket's file: made only where nobody else can swap it, and
 * the client's side of it. */
#include "control_socket.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "util/clock.h"

static int control_addr(const char *path, struct sockaddr_un *addr)
{
	if (strlen(path) >= sizeof(addr->sun_path))
		return -ENAMETOOLONG;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	strcpy(addr->sun_path, path);
	return 0;
}

/* Makes the socket's directory if it is missing (one level, like /run/fbripple). */
static void make_parent(const char *path)
{
	char dir[sizeof(((struct control *)0)->path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
}

/* Whether a socket at addr still accepts connections (a full backlog counts): then another
 * fbripple is running on it, and its socket is not ours to remove. */
static bool socket_alive(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return true;	/* cannot tell: leave it alone */
	alive = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0 || errno == EAGAIN;
	close(fd);
	return alive;
}

bool control_in_use(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;

	return control_addr(path, &addr) == 0 && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       socket_alive(&addr);
}

/* 0 when nobody but us (or root) can replace an entry of directory dir: its owner is one of
 * them, and nobody else may write to it, or only under the sticky bit, which keeps others'
 * hands off our entries; else -EPERM, or -errno. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return (st.st_uid == geteuid() || st.st_uid == 0) &&
	       (!(st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_mode & S_ISVTX)) ? 0 : -EPERM;
}

/* check_dir of dir and of every directory above it in its name (dir is cut short). */
static int check_dirs(char *dir)
{
	for (;;) {
		char *slash = strrchr(dir, '/');
		int ret = check_dir(dir);

		if (ret < 0 || !slash || dir[1] == '\0')
			return ret;
		slash[slash == dir] = '\0';	/* "/a" goes on to "/" */
	}
}

/*
 * 0 when nobody but us (or root) can replace the socket at path, nor any directory on its way,
 * as named and as resolved; else -EPERM (or -errno): the socket could be swapped for a link
 * between the bind and the chmod (which follows it) or before the unlink at exit.
 */
static int check_parent(const char *path)
{
	char dir[sizeof(((struct control *)0)->path)], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int ret;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (!realpath(dir, real))
		return -errno;
	ret = check_dirs(dir);
	return ret < 0 ? ret : check_dirs(real);
}

const char *control_error(int ret)
{
	return ret == -EPERM ? "a directory on its path lets another user replace it (writable by "
			       "group or others without the sticky bit, or owned by another user)"
			     : strerror(-ret);
}

int control_socket_bind(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;
	int fd, ret = control_addr(path, &addr);

	if (ret < 0)
		return ret;
	make_parent(path);
	ret = check_parent(path);
	if (ret < 0)
		return ret;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -ENOTSOCK;	/* somebody's file, directory or link */
		if (socket_alive(&addr))
			return -EADDRINUSE;
		unlink(path);	/* left behind by a daemon that died */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || chmod(path, 0660) < 0 ||
	    listen(fd, CONTROL_CLIENTS) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* The client side. */

static int read_reply(int fd, char *reply, size_t len, int64_t deadline)
{
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline - clock_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return -ETIMEDOUT;
		n = recv(fd, reply + got, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 || reply[got] == '\n')
			break;
		got++;
	}
	reply[got] = '\0';
	return got ? 0 : -ECONNRESET;
}

/* The line and its newline in one go where they fit (too long a line is the server's to refuse). */
static int send_line(int fd, const char *line, size_t n)
{
	char buf[CONTROL_LINE_MAX + 1];

	if (n >= sizeof(buf))
		return send(fd, line, n, MSG_NOSIGNAL) == (ssize_t)n &&
		       send(fd, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
	memcpy(buf, line, n);
	buf[n] = '\n';
	return send(fd, buf, n + 1, MSG_NOSIGNAL) == (ssize_t)(n + 1) ? 0 : -1;
}

/* A server whose backlog is full holds a blocking connect (and a send to a full socket) until
 * the send timeout: the whole exchange keeps within timeout_ms. */
static int connect_within(int fd, const struct sockaddr_un *addr, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0)
		return 0;
	return errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
}

int control_send(const char *path, const char *line, char *reply, size_t len, int timeout_ms)
{
	int64_t deadline = clock_ms() + timeout_ms;
	struct sockaddr_un addr;
	size_t n = strlen(line);
	int fd, ret = control_addr(path, &addr);

	if (ret < 0)
		return ret;
	if (len == 0 || strchr(line, '\n') || timeout_ms <= 0)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect_within(fd, &addr, timeout_ms);
	if (ret == 0 && send_line(fd, line, n) < 0)
		ret = errno == EAGAIN ? -ETIMEDOUT : -errno;
	if (ret == 0)
		ret = read_reply(fd, reply, len, deadline);
	close(fd);
	return ret;
}
