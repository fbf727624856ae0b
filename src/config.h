/* config.h - the libconfig file read into a validated struct config, and the built-in defaults. */
#ifndef FBRIPPLE_CONFIG_H
#define FBRIPPLE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "log.h"

#define CONFIG_PATH_MAX 256

struct config {
	struct {
		char device[CONFIG_PATH_MAX];
		int fps;
	} display;
	struct {
		char image[CONFIG_PATH_MAX];	/* "" = the built-in splash */
		enum scale_mode scale;
		uint32_t background;		/* 0xRRGGBB */
	} splash;
	struct {
		int damping_shift;
	} water;
	struct {
		int size;			/* radius in pixels */
		int weight;			/* depth of the dent */
	} stone;
	struct {
		bool enabled;
		double rate;			/* drops per second */
		int size, weight;
	} rain;
	struct {
		enum log_level level;
	} log;
};

/* One message per call, already formatted as "FILE:LINE: ...". */
typedef void config_warn_fn(void *ctx, const char *msg);

void config_defaults(struct config *cfg);

/*
 * Reads path over the built-in defaults into cfg. Returns 0; -ENOENT when the file does not
 * exist (cfg then holds the defaults); or another -errno with err set to
 * "FILE:LINE: KEY: what is wrong (expected ...)" and cfg untouched. Unknown keys are not
 * errors: each goes to warn (may be NULL) naming the nearest known key.
 */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen,
		config_warn_fn *warn, void *warn_ctx);

/* The known keys, as "group.key"; config_key_name returns NULL for i >= config_key_count(). */
size_t config_key_count(void);
const char *config_key_name(size_t i);

#endif
