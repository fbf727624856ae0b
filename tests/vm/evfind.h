/* evfind.h - for the guest helpers: the /dev/input/eventN of a device found by its name. */
#ifndef FBVM_EVFIND_H
#define FBVM_EVFIND_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Finds /dev/input/eventN whose device name is exactly name: 0, or -ENOENT. */
static inline int evfind_by_name(const char *name, char *path, size_t len)
{
	char sys[96], got[256];

	for (int n = 0; n < 64; n++) {
		FILE *f;
		int ok;

		snprintf(sys, sizeof(sys), "/sys/class/input/event%d/device/name", n);
		f = fopen(sys, "r");
		if (!f)
			continue;
		ok = fgets(got, sizeof(got), f) != NULL;
		fclose(f);
		got[strcspn(got, "\n")] = 0;
		if (ok && strcmp(got, name) == 0) {
			snprintf(path, len, "/dev/input/event%d", n);
			return 0;
		}
	}
	return -ENOENT;
}

#endif
