/* fuzz_config.c - libFuzzer target: any bytes as the configuration file, through config_load,
 * and as a reload sees it: "RUNNING\n%%\nNEW" loads both and compares them as the daemon does
 * (without the separator the running one is the defaults). The same text loaded twice must
 * change nothing on a reload. */
#include "fuzz.h"

#include <string.h>

#include "config/config.h"
#include "config/reload.h"

#define SEPARATOR "\n%%\n"

static void on_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* The daemon's way: the defaults, then the file. 0 or -errno. */
static int load(struct config *cfg, const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof(path)), ret;

	config_defaults(cfg);
	if (fd < 0)
		return -1;
	ret = config_load(cfg, path, err, sizeof(err), on_warning, NULL);
	close(fd);
	return ret;
}

static void compare(const struct config *old, const struct config *new)
{
	struct reload_file_id none = { 0 };
	char what[256], small[8];
	unsigned changes = reload_changes(old, new, &none, &none);

	reload_describe(changes, what, sizeof(what));
	reload_describe(changes, small, sizeof(small));
	if (strnlen(what, sizeof(what)) == sizeof(what) || strnlen(small, sizeof(small)) == sizeof(small))
		__builtin_trap();
	config_water_engine(new);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config running, new, again;
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
	const uint8_t *text = sep ? sep + strlen(SEPARATOR) : data;
	size_t len = size - (size_t)(text - data);
	struct reload_file_id none = { 0 };

	if (sep) {
		if (load(&running, data, (size_t)(sep - data)) < 0)
			return 0;
	} else {
		config_defaults(&running);
	}
	if (load(&new, text, len) < 0)
		return 0;
	compare(&running, &new);
	/* a reload of the file that runs changes nothing */
	if (load(&again, text, len) < 0 || reload_changes(&new, &again, &none, &none) != 0)
		__builtin_trap();
	return 0;
}
