/* file.c - opening the files a configuration names without ever blocking: regular files only. */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* 0 for a regular file, else why not. */
static int check_regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

static int open_nonblocking(const char *path, struct stat *st)
{
	/* O_NONBLOCK: open(2) on a FIFO without a writer would wait for one forever */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int file_open_regular(const char *path)
{
	struct stat st;
	int fd = open_nonblocking(path, &st), rc, flags;

	if (fd < 0)
		return fd;
	rc = check_regular(&st);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

static bool is_null_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/* Reads up to max bytes, and one more to tell a file of exactly max bytes from a longer one. */
static int read_bounded(int fd, size_t max, char *buf, size_t *len)
{
	size_t got = 0;

	while (got <= max) {
		ssize_t n = read(fd, buf + got, max + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max)
		return -EFBIG;
	buf[got] = '\0';
	*len = got;
	return 0;
}

int file_read_all(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd = open_nonblocking(path, &st), rc;
	char *b;

	if (fd < 0)
		return fd;
	rc = is_null_device(&st) ? 0 : check_regular(&st);
	if (rc == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
		rc = -EFBIG;
	b = rc == 0 ? malloc(max + 2) : NULL;
	if (rc == 0 && !b)
		rc = -ENOMEM;
	if (rc == 0)
		rc = read_bounded(fd, max, b, len);
	close(fd);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*buf = b;
	return 0;
}

const char *file_strerror(int err)
{
	return err == -EINVAL ? "not a regular file" : strerror(-err);
}
