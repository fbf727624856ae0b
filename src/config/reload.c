/* reload.c - what a new configuration changes, so that a reload applies only that. */
#include "reload.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SAME(a, b, field) (memcmp(&(a)->field, &(b)->field, sizeof((a)->field)) == 0)

void reload_file_id(const char *path, struct reload_file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (!path[0] || stat(path, &st) < 0)
		return;
	*id = (struct reload_file_id){
		.dev = st.st_dev, .ino = st.st_ino, .size = (uint64_t)st.st_size,
		.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
		.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec,
	};
}

unsigned reload_changes(const struct config *old, const struct config *new,
			const struct reload_file_id *old_splash,
			const struct reload_file_id *new_splash)
{
	unsigned c = 0;

	if (strcmp(old->display.device, new->display.device) ||
	    old->display.rotate != new->display.rotate)
		c |= RELOAD_DISPLAY;
	if (old->display.fps != new->display.fps)
		c |= RELOAD_FPS;
	if (!SAME(old, new, splash) || memcmp(old_splash, new_splash, sizeof(*old_splash)))
		c |= RELOAD_SPLASH;
	if (!SAME(old, new, water))
		c |= RELOAD_WATER;
	if (old->water.cell != new->water.cell || old->water.engine != new->water.engine)
		c |= RELOAD_GRID;
	if (!SAME(old, new, stone))
		c |= RELOAD_STONE;
	if (old->rain.enabled != new->rain.enabled || old->rain.rate != new->rain.rate ||
	    old->rain.size != new->rain.size || old->rain.weight != new->rain.weight)
		c |= RELOAD_RAIN;
	if (old->rain.idle_after != new->rain.idle_after || !SAME(old, new, screensaver))
		c |= RELOAD_IDLE;
	if (!SAME(old, new, control))
		c |= RELOAD_CONTROL;
	if (!SAME(old, new, log))
		c |= RELOAD_LOG;
	if (!SAME(old, new, input))
		c |= RELOAD_INPUT;
	/* a DRM card is not opened a second time beside itself: master stays with the first */
	if (old->display.vt != new->display.vt ||
	    old->display.double_buffer != new->display.double_buffer ||
	    strcmp(old->display.output, new->display.output) ||
	    strcmp(old->display.mode, new->display.mode))
		c |= RELOAD_RESTART;
	if (old->display.threads != new->display.threads)
		c |= RELOAD_THREADS;
	return c;
}

void reload_describe(unsigned changes, char *buf, size_t len)
{
	static const char *const names[] = { "display", "fps", "splash", "water", "stone", "rain",
					     "idle", "control", "log", "input",
					     "display.vt/double_buffer/output/mode (at restart)", "grid",
					     "walls", "threads" };
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && used < len; i++) {
		if (changes & (1u << i)) {
			int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", names[i]);

			if (n < 0)
				break;
			used += (size_t)n;
		}
	}
	if (!changes)
		snprintf(buf, len, "nothing");
}
