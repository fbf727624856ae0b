/* config.h - the libconfig file read into a validated struct config, and the built-in defaults.
 *
 * The config folder: the file's text (config_text.c), its keys, ranges and defaults (config.c)
 * and what a reload changes (reload.c). It names the vocabulary of the parts it configures, so
 * it includes water/, display/, input/, image/ and util/; nothing includes it but daemon/ and
 * main.c. */
#ifndef FBRIPPLE_CONFIG_H
#define FBRIPPLE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "display/display.h"
#include "image/image.h"
#include "input/input.h"
#include "util/log.h"
#include "water/water.h"

#define CONFIG_PATH_MAX 256
#define CONFIG_LIST_MAX 8
#define CONFIG_OFF 0xffffffffu	/* a colour key set to "off": above any 0xRRGGBB */

/* List values, zero-padded so that configs compare with memcmp. */
struct config_strings {
	int n;
	char item[CONFIG_LIST_MAX][CONFIG_PATH_MAX];
};

struct config_numbers {
	int n;
	double item[CONFIG_LIST_MAX];
};

/* screensaver.mode: shown always (the kiosk's only picture), or only while nobody touches the
 * screen of a kiosk application (daemon/saver.c). */
enum saver_mode {
	SAVER_ALWAYS,
	SAVER_IDLE,
};

/* screensaver.wake, in idle mode: what hides it. */
enum saver_wake {
	SAVER_WAKE_TOUCH,	/* the first touch or press fades it out */
	SAVER_WAKE_COMMAND,	/* touches ripple; only the control socket hides it */
};

struct config {
	struct {
		char device[CONFIG_PATH_MAX];	/* "auto": a DRM card, else /dev/fb0 */
		char output[32];		/* DRM connector name; "": the first connected */
		char mode[32];			/* DRM "WxH" or "WxH@Hz"; "": the preferred one */
		int fps;
		int rotate;			/* 0, 90, 180 or 270, clockwise */
		int vt;				/* 0: our own tty, or the active VT */
		enum display_buffering double_buffer;
		int threads;			/* 1..4 drawing and stepping; 0: "auto" */
	} display;
	struct {
		char image[CONFIG_PATH_MAX];	/* "" = the built-in splash */
		enum scale_mode scale;
		uint32_t background;		/* 0xRRGGBB */
	} splash;
	struct {
		int engine;			/* an index into config.c's engines */
		int damping_shift;
		double damping;			/* the fraction kept per step; 0 ("off"): the shift's */
		char obstacles[CONFIG_PATH_MAX];	/* the walls' mask; "" = none */
		int hooke_velocity_shift;	/* hooke: v -= v >> n */
		int hooke_height_shift;		/* hooke: h -= h >> n */
		int steps_per_second;		/* simulation rate, whatever display.fps is */
		int cell;			/* screen pixels per cell; 0: auto */
		double light;			/* shading strength; 0: off */
		int light_direction;		/* degrees clockwise from the top */
		double specular;		/* glints on the slopes facing the light; 0: off */
		uint32_t tint;			/* 0xRRGGBB over fast water, or CONFIG_OFF */
		double spring_stiffness;	/* spring: a = -stiffness x - viscosity v */
		double spring_viscosity;
		double spring_spread;		/* spring: share per diffusion pass */
		int spring_passes;
	} water;
	struct {
		int size;			/* radius in pixels; 0: auto (in cells) */
		int weight;			/* depth of the dent */
		enum water_shape shape;
	} stone;
	struct {
		bool enabled;
		double rate;			/* drops per second */
		int size, weight;		/* size 0: auto */
		int idle_after;			/* seconds without input before it rains; 0: never */
	} rain;
	struct {
		int blank_after;		/* seconds without input before FBIOBLANK; 0: never */
		enum saver_mode mode;
		int after;			/* idle mode: seconds without input before showing */
		enum saver_wake wake;
		double fade;			/* seconds the water takes to calm before hiding */
	} screensaver;
	struct {
		char socket[CONFIG_PATH_MAX];	/* "" = no control socket */
	} control;
	struct {
		struct config_strings devices;	/* paths or name globs; none: every device */
		bool grab;			/* EVIOCGRAB the devices in use */
		int trail_spacing;		/* pixels between the drops of a swipe's trail; 0:
					 * WATER_AUTO_TRAIL_CELLS cells */
		int trail_weight;		/* depth of each trail drop */
		bool hover_ripples;		/* mouse motion without a button trails lightly */
		struct config_numbers calibration;	/* 6 numbers, or none: udev's, else identity */
		enum input_axes axes;		/* single touch, tablets: the axes of x and y */
	} input;
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
 * "FILE:LINE: KEY: what is wrong (expected ...)" and cfg untouched. The file must be a
 * regular one (never waited on: a FIFO is -EINVAL) of at most CONFIG_FILE_MAX bytes (else
 * -EFBIG); config_text.h says what else is refused before libconfig parses it. Unknown keys
 * are not errors: each of the first few goes to warn (may be NULL) naming the nearest known
 * key, and then one message counts the rest.
 */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen,
		config_warn_fn *warn, void *warn_ctx);

/* The known keys, as "group.key"; config_key_name returns NULL for i >= config_key_count(). */
size_t config_key_count(void);
const char *config_key_name(size_t i);

/* The engine water.engine names, and what every engine reads from the water group. */
const struct water_engine *config_water_engine(const struct config *cfg);
struct water_tuning config_water_tuning(const struct config *cfg);

#endif
