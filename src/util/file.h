/* file.h - opening the files a configuration names (the config itself, a splash picture) without
 * ever blocking: regular files only, read to a bound. */
#ifndef FBRIPPLE_FILE_H
#define FBRIPPLE_FILE_H

#include <stddef.h>

/*
 * Opens path read-only without waiting on a FIFO or device, and keeps it only if it is a
 * regular file. Returns the descriptor (O_CLOEXEC), or -EISDIR for a directory, -EINVAL for
 * anything else that is not a regular file (a FIFO, a device, a socket), or open's -errno.
 */
int file_open_regular(const char *path);

/*
 * Reads all of the regular file path, at most max bytes, into a new buffer with a NUL after
 * the last byte (free it). The null device reads as an empty file, so that `-c /dev/null`
 * keeps meaning "no settings". 0, -EFBIG when the file is larger than max, or an error from
 * file_open_regular or read.
 */
int file_read_all(const char *path, size_t max, char **buf, size_t *len);

/* The reason for an error from the functions above: "not a regular file" for -EINVAL. */
const char *file_strerror(int err);

#endif
