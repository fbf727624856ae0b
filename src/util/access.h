/* access.h - why a device node would not open for fbripple's user (EACCES): whose it is, and
 * what would let the user in, said only where it is true. */
#ifndef FBRIPPLE_ACCESS_H
#define FBRIPPLE_ACCESS_H

#include <stddef.h>

/*
 * For EACCES opening path for how (R_OK, or R_OK | W_OK): "Permission denied (owned by
 * USER:GROUP, mode NNN...)" in why, naming the group only where joining it would let the user
 * in, an ACL where one refuses, and something else (nodev, a security module) where the
 * permissions let the user in. 0, or stat's -errno (why then untouched).
 */
int access_explain(const char *path, int how, char *why, size_t len);

#endif
