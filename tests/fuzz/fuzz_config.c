/* fuzz_config.c - libFuzzer target: any bytes as the configuration file, through config_load. */
#include "fuzz.h"

#include "config/config.h"

static void on_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	char path[64], err[512];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	config_defaults(&cfg);
	config_load(&cfg, path, err, sizeof(err), on_warning, NULL);
	close(fd);
	return 0;
}
