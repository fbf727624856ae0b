/* config.c - the libconfig file read into a validated struct config; one table row per key. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_nearest.h"
#include "config_text.h"
#include "util/file.h"
#include "water/water_engine.h"

#define CONFIG_NAME_MAX 64	/* of a group or key name: "group.key" fits twice that */
#define CONFIG_WHY_MAX 256
#define CONFIG_UNKNOWN_MAX 16	/* unknown keys named in warnings; the rest are counted */

enum key_type { KEY_INT, KEY_DOUBLE, KEY_BOOL, KEY_STRING, KEY_ENUM, KEY_COLOUR, KEY_STRINGS,
		KEY_NUMBERS };

struct key_enum {
	const char *noun;			/* "a scale mode" */
	int first, last;			/* every value in between has a name */
	int (*parse)(const char *name, int *value);
	const char *(*name)(int value);
};

struct key {
	const char *name;			/* "group.key" */
	enum key_type type;
	size_t offset, size;			/* of the field in struct config */
	double min, max;			/* KEY_INT, KEY_DOUBLE, KEY_NUMBERS' items */
	int count;				/* KEY_NUMBERS: exactly this many, or none */
	int step;				/* KEY_INT: only multiples of step, if set */
	bool autoable;				/* KEY_INT: "auto" is allowed, stored as 0 */
	bool offable;				/* KEY_COLOUR: "off" is allowed, as CONFIG_OFF;
						 * KEY_DOUBLE: as 0 */
	const struct key_enum *choices;		/* KEY_ENUM */
	double def_num;				/* default of KEY_INT, KEY_DOUBLE, KEY_BOOL */
	const char *def_str;			/* default of KEY_STRING, KEY_ENUM, KEY_COLOUR */
};

/* One scalar from the file or from a default. */
struct value {
	enum { VALUE_INT, VALUE_FLOAT, VALUE_BOOL, VALUE_STRING, VALUE_OTHER } kind;
	long long i;
	double f;
	const char *s;
};

_Static_assert(sizeof(enum scale_mode) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum log_level) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum display_buffering) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum input_axes) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum water_shape) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum saver_mode) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(enum saver_wake) == sizeof(int), "enum fields are stored as int");

static int scale_parse(const char *name, int *value)
{
	enum scale_mode mode;
	int r = scale_mode_parse(name, &mode);

	if (r == 0)
		*value = (int)mode;
	return r;
}

static const char *scale_name(int value)
{
	return scale_mode_name((enum scale_mode)value);
}

static int level_parse(const char *name, int *value)
{
	enum log_level level;
	int r = log_level_parse(name, &level);

	if (r == 0)
		*value = (int)level;
	return r;
}

static const char *level_name(int value)
{
	return log_level_name((enum log_level)value);
}

static const struct key_enum scale_modes = {
	"a scale mode", SCALE_FILL, SCALE_TILE, scale_parse, scale_name,
};

static int buffering_parse(const char *name, int *value)
{
	enum display_buffering mode;
	int r = display_buffering_parse(name, &mode);

	if (r == 0)
		*value = (int)mode;
	return r;
}

static const char *buffering_name(int value)
{
	return display_buffering_name((enum display_buffering)value);
}

static int axes_parse(const char *name, int *value)
{
	enum input_axes axes;
	int r = input_axes_parse(name, &axes);

	if (r == 0)
		*value = (int)axes;
	return r;
}

static const char *axes_name(int value)
{
	return input_axes_name((enum input_axes)value);
}

static const struct key_enum axes_pairs = {
	"a pair of axes", INPUT_AXES_AUTO, INPUT_AXES_Z_RX, axes_parse, axes_name,
};

static const struct key_enum bufferings = {
	"a buffering mode", DISPLAY_BUFFER_AUTO, DISPLAY_BUFFER_OFF, buffering_parse, buffering_name,
};

static int shape_parse(const char *name, int *value)
{
	enum water_shape shape;
	int r = water_shape_parse(name, &shape);

	if (r == 0)
		*value = (int)shape;
	return r;
}

static const char *shape_name(int value)
{
	return water_shape_name((enum water_shape)value);
}

static const struct key_enum shapes = {
	"a stone shape", WATER_DISC, WATER_COSINE, shape_parse, shape_name,
};

/* water.engine's choices: water_engine.c lists them. */
static int engine_parse(const char *name, int *value)
{
	*value = water_engine_index(name);
	return *value < 0 ? -EINVAL : 0;
}

static const char *engine_name(int value)
{
	const struct water_engine *e = water_engine_at(value);

	return e ? e->name : "?";
}

static const struct key_enum engine_choices = {
	"a water engine", 0, WATER_ENGINES - 1, engine_parse, engine_name,
};

const struct water_engine *config_water_engine(const struct config *cfg)
{
	return water_engine_at(cfg->water.engine);
}

struct water_tuning config_water_tuning(const struct config *cfg)
{
	return (struct water_tuning){
		.damping_shift = cfg->water.damping_shift,
		.damping = cfg->water.damping,
		.velocity_shift = cfg->water.hooke_velocity_shift,
		.height_shift = cfg->water.hooke_height_shift,
		.stiffness = cfg->water.spring_stiffness,
		.viscosity = cfg->water.spring_viscosity,
		.spread = cfg->water.spring_spread,
		.passes = cfg->water.spring_passes,
	};
}

static const char *const saver_modes[] = { "always", "idle" };
static const char *const saver_wakes[] = { "touch", "command" };

static int name_index(const char *const *names, int n, const char *name, int *value)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i], name) == 0) {
			*value = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int saver_mode_parse(const char *name, int *value)
{
	return name_index(saver_modes, 2, name, value);
}

static const char *saver_mode_name(int value)
{
	return value >= 0 && value < 2 ? saver_modes[value] : "?";
}

static int saver_wake_parse(const char *name, int *value)
{
	return name_index(saver_wakes, 2, name, value);
}

static const char *saver_wake_name(int value)
{
	return value >= 0 && value < 2 ? saver_wakes[value] : "?";
}

static const struct key_enum saver_mode_choices = {
	"a screensaver mode", SAVER_ALWAYS, SAVER_IDLE, saver_mode_parse, saver_mode_name,
};

static const struct key_enum saver_wake_choices = {
	"a way to wake", SAVER_WAKE_TOUCH, SAVER_WAKE_COMMAND, saver_wake_parse, saver_wake_name,
};

static const struct key_enum log_levels = {
	"a log level", LOG_LEVEL_ERROR, LOG_LEVEL_DEBUG, level_parse, level_name,
};

#define FIELD(m) offsetof(struct config, m), sizeof(((struct config *)0)->m)

static const struct key keys[] = {
	{ "display.device", KEY_STRING, FIELD(display.device), .def_str = "auto" },
	{ "display.output", KEY_STRING, FIELD(display.output), .def_str = "" },
	{ "display.mode", KEY_STRING, FIELD(display.mode), .def_str = "" },
	{ "display.fps", KEY_INT, FIELD(display.fps), 1, 240, .def_num = 60 },
	{ "display.rotate", KEY_INT, FIELD(display.rotate), 0, 270, .step = 90, .def_num = 0 },
	{ "display.vt", KEY_INT, FIELD(display.vt), 0, 63, .def_num = 0 },
	{ "display.threads", KEY_INT, FIELD(display.threads), 1, 4, .autoable = true,
	  .def_str = "auto" },
	{ "display.double_buffer", KEY_ENUM, FIELD(display.double_buffer), .choices = &bufferings,
	  .def_str = "auto" },
	{ "splash.image", KEY_STRING, FIELD(splash.image), .def_str = "" },
	{ "splash.scale", KEY_ENUM, FIELD(splash.scale), .choices = &scale_modes, .def_str = "fill" },
	{ "splash.background", KEY_COLOUR, FIELD(splash.background), .def_str = "#000000" },
	{ "water.engine", KEY_ENUM, FIELD(water.engine), .choices = &engine_choices,
	  .def_str = "classic" },
	{ "water.damping_shift", KEY_INT, FIELD(water.damping_shift), 1, 12, .def_num = 5 },
	{ "water.damping", KEY_DOUBLE, FIELD(water.damping), 0.5, 0.9999, .offable = true,
	  .def_str = "off" },
	{ "water.obstacles", KEY_STRING, FIELD(water.obstacles), .def_str = "" },
	{ "water.hooke_velocity_shift", KEY_INT, FIELD(water.hooke_velocity_shift), 1, 15,
	  .def_num = 8 },
	{ "water.hooke_height_shift", KEY_INT, FIELD(water.hooke_height_shift), 1, 15,
	  .def_num = 10 },
	{ "water.steps_per_second", KEY_INT, FIELD(water.steps_per_second), 1, 480,
	  .def_num = 60 },
	{ "water.cell", KEY_INT, FIELD(water.cell), 1, 16, .autoable = true, .def_str = "auto" },
	{ "water.light", KEY_DOUBLE, FIELD(water.light), 0.0, 4.0, .def_num = 1.5 },
	{ "water.light_direction", KEY_INT, FIELD(water.light_direction), 0, 359,
	  .def_num = 45 },
	{ "water.specular", KEY_DOUBLE, FIELD(water.specular), 0.0, 4.0, .def_num = 0.5 },
	{ "water.tint", KEY_COLOUR, FIELD(water.tint), .offable = true, .def_str = "off" },
	{ "water.spring_stiffness", KEY_DOUBLE, FIELD(water.spring_stiffness), 0.001, 0.5,
	  .def_num = 0.002 },
	{ "water.spring_viscosity", KEY_DOUBLE, FIELD(water.spring_viscosity), 0.0, 1.0,
	  .def_num = 0.012 },
	{ "water.spring_spread", KEY_DOUBLE, FIELD(water.spring_spread), 0.001, 0.1,
	  .def_num = 0.035 },
	{ "water.spring_passes", KEY_INT, FIELD(water.spring_passes), 1, 8, .def_num = 4 },
	{ "stone.size", KEY_INT, FIELD(stone.size), 1, 100, .autoable = true, .def_str = "auto" },
	{ "stone.weight", KEY_INT, FIELD(stone.weight), 1, 4096, .def_num = 320 },
	{ "stone.shape", KEY_ENUM, FIELD(stone.shape), .choices = &shapes, .def_str = "cosine" },
	{ "rain.enabled", KEY_BOOL, FIELD(rain.enabled), .def_num = 0 },
	{ "rain.rate", KEY_DOUBLE, FIELD(rain.rate), 0.0, 1000.0, .def_num = 2.0 },
	{ "rain.size", KEY_INT, FIELD(rain.size), 1, 100, .autoable = true, .def_str = "auto" },
	{ "rain.weight", KEY_INT, FIELD(rain.weight), 1, 4096, .def_num = 64 },
	{ "rain.idle_after", KEY_INT, FIELD(rain.idle_after), 0, 604800, .def_num = 0 },
	{ "screensaver.blank_after", KEY_INT, FIELD(screensaver.blank_after), 0, 604800,
	  .def_num = 0 },
	{ "screensaver.mode", KEY_ENUM, FIELD(screensaver.mode), .choices = &saver_mode_choices,
	  .def_str = "always" },
	{ "screensaver.after", KEY_INT, FIELD(screensaver.after), 1, 604800, .def_num = 300 },
	{ "screensaver.wake", KEY_ENUM, FIELD(screensaver.wake), .choices = &saver_wake_choices,
	  .def_str = "touch" },
	{ "screensaver.fade", KEY_DOUBLE, FIELD(screensaver.fade), 0.0, 10.0, .def_num = 0.5 },
	{ "control.socket", KEY_STRING, FIELD(control.socket), .def_str = "/run/fbripple/control" },
	{ "input.devices", KEY_STRINGS, FIELD(input.devices), .def_str = "" },
	{ "input.grab", KEY_BOOL, FIELD(input.grab), .def_num = 1 },
	{ "input.trail_spacing", KEY_INT, FIELD(input.trail_spacing), 1, 100, .autoable = true,
	  .def_str = "auto" },
	{ "input.trail_weight", KEY_INT, FIELD(input.trail_weight), 1, 4096, .def_num = 48 },
	{ "input.hover_ripples", KEY_BOOL, FIELD(input.hover_ripples), .def_num = 0 },
	{ "input.calibration", KEY_NUMBERS, FIELD(input.calibration), -1000, 1000, .count = 6,
	  .def_str = "" },
	{ "input.axes", KEY_ENUM, FIELD(input.axes), .choices = &axes_pairs, .def_str = "auto" },
	{ "log.level", KEY_ENUM, FIELD(log.level), .choices = &log_levels, .def_str = "info" },
};

#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

size_t config_key_count(void)
{
	return KEY_COUNT;
}

const char *config_key_name(size_t i)
{
	return i < KEY_COUNT ? keys[i].name : NULL;
}

static void *field(struct config *cfg, const struct key *k)
{
	return (char *)cfg + k->offset;
}

static void store_int(struct config *cfg, const struct key *k, int v)
{
	assert(k->size == sizeof(v));
	memcpy(field(cfg, k), &v, sizeof(v));
}

static int set_int(struct config *cfg, const struct key *k, const struct value *v,
		   char *why, size_t len)
{
	long long min = (long long)k->min, max = (long long)k->max;
	char expected[96];

	if (k->step)
		snprintf(expected, sizeof(expected), "a multiple of %d from %lld to %lld", k->step,
			 min, max);
	else
		snprintf(expected, sizeof(expected), "%san integer from %lld to %lld",
			 k->autoable ? "\"auto\" or " : "", min, max);
	if (k->autoable && v->kind == VALUE_STRING && strcmp(v->s, "auto") == 0) {
		store_int(cfg, k, 0);
		return 0;
	}
	if (v->kind != VALUE_INT) {
		snprintf(why, len, "expected %s", expected);
		return -EINVAL;
	}
	if (v->i < min || v->i > max || (k->step && v->i % k->step)) {
		snprintf(why, len, "%lld is %s (expected %s)", v->i,
			 v->i < min || v->i > max ? "out of range" : "not allowed", expected);
		return -EINVAL;
	}
	store_int(cfg, k, (int)v->i);
	return 0;
}

static int set_double(struct config *cfg, const struct key *k, const struct value *v,
		      char *why, size_t len)
{
	double d = v->kind == VALUE_INT ? (double)v->i : v->f;
	const char *off = k->offable ? "\"off\" or " : "";

	if (k->offable && v->kind == VALUE_STRING && !strcmp(v->s, "off")) {
		d = 0;
	} else if (v->kind != VALUE_INT && v->kind != VALUE_FLOAT) {
		snprintf(why, len, "expected %sa number from %g to %g", off, k->min, k->max);
		return -EINVAL;
	} else if (!(d >= k->min && d <= k->max)) {
		snprintf(why, len, "%g is out of range (expected %sa number from %g to %g)",
			 d, off, k->min, k->max);
		return -EINVAL;
	}
	assert(k->size == sizeof(d));
	memcpy(field(cfg, k), &d, sizeof(d));
	return 0;
}

static int set_bool(struct config *cfg, const struct key *k, const struct value *v,
		    char *why, size_t len)
{
	bool b = v->i != 0;

	if (v->kind != VALUE_BOOL) {
		snprintf(why, len, "expected true or false");
		return -EINVAL;
	}
	assert(k->size == sizeof(b));
	memcpy(field(cfg, k), &b, sizeof(b));
	return 0;
}

static int set_string(struct config *cfg, const struct key *k, const struct value *v,
		      char *why, size_t len)
{
	size_t n;

	if (v->kind != VALUE_STRING) {
		snprintf(why, len, "expected a quoted string");
		return -EINVAL;
	}
	n = strlen(v->s);
	if (n >= k->size) {
		snprintf(why, len, "%zu characters is too long (expected at most %zu)",
			 n, k->size - 1);
		return -EINVAL;
	}
	/* zero-padded, so that configs compare with memcmp */
	memset(field(cfg, k), 0, k->size);
	memcpy(field(cfg, k), v->s, n);
	return 0;
}

static void enum_choices(const struct key_enum *e, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = e->first; i <= e->last && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i > e->first ? ", " : "",
				 e->name(i));
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int set_enum(struct config *cfg, const struct key *k, const struct value *v,
		    char *why, size_t len)
{
	char choices[128];
	int i;

	enum_choices(k->choices, choices, sizeof(choices));
	if (v->kind != VALUE_STRING) {
		snprintf(why, len, "expected one of %s", choices);
		return -EINVAL;
	}
	if (k->choices->parse(v->s, &i) < 0) {
		snprintf(why, len, "\"%.64s\" is not %s (expected one of %s)", v->s,
			 k->choices->noun, choices);
		return -EINVAL;
	}
	store_int(cfg, k, i);
	return 0;
}

/* "#RRGGBB" in either case; 0 or -EINVAL. */
static int colour_parse(const char *s, uint32_t *rgb)
{
	uint32_t c = 0;

	if (s[0] != '#' || strlen(s) != 7)
		return -EINVAL;
	for (int i = 1; i < 7; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0'
		      : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
		      : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;

		if (d < 0)
			return -EINVAL;
		c = c << 4 | (uint32_t)d;
	}
	*rgb = c;
	return 0;
}

static int set_colour(struct config *cfg, const struct key *k, const struct value *v,
		      char *why, size_t len)
{
	uint32_t c;

	switch (v->kind) {
	case VALUE_STRING:
		if (k->offable && !strcmp(v->s, "off")) {
			c = CONFIG_OFF;
		} else if (colour_parse(v->s, &c) < 0) {
			snprintf(why, len, "\"%.64s\" is not a colour (expected %s\"#RRGGBB\")",
				 v->s, k->offable ? "\"off\" or " : "");
			return -EINVAL;
		}
		break;
	case VALUE_INT:
		if (v->i < 0 || v->i > 0xFFFFFF) {
			snprintf(why, len, v->i < 0 ? "%lld is out of range (expected %s)"
						    : "0x%llX is out of range (expected %s)",
				 v->i, "0x000000 to 0xFFFFFF");
			return -EINVAL;
		}
		c = (uint32_t)v->i;
		break;
	default:
		snprintf(why, len, "expected a colour \"#RRGGBB\" or 0xRRGGBB");
		return -EINVAL;
	}
	assert(k->size == sizeof(c));
	memcpy(field(cfg, k), &c, sizeof(c));
	return 0;
}

/* Lists: on an error *at is the entry at fault, so that the message names its line. */
static int set_strings(struct config *cfg, const struct key *k, const config_setting_t *s,
		       const config_setting_t **at, char *why, size_t len)
{
	struct config_strings l = { 0 };
	int n = config_setting_length(s);

	if (!config_setting_is_aggregate(s) || config_setting_is_group(s)) {
		snprintf(why, len, "expected a list of quoted strings [ \"...\", ... ]");
		return -EINVAL;
	}
	if (n > CONFIG_LIST_MAX) {
		snprintf(why, len, "%d entries is too many (expected at most %d)", n,
			 CONFIG_LIST_MAX);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		const char *str = config_setting_get_string_elem(s, i);

		*at = config_setting_get_elem(s, (unsigned)i);
		if (!str) {
			snprintf(why, len, "entry %d: expected a quoted string", i + 1);
			return -EINVAL;
		}
		if (strlen(str) >= CONFIG_PATH_MAX) {
			snprintf(why, len, "entry %d is too long (expected at most %d characters)",
				 i + 1, CONFIG_PATH_MAX - 1);
			return -EINVAL;
		}
		strcpy(l.item[l.n++], str);
	}
	assert(k->size == sizeof(l));
	memcpy(field(cfg, k), &l, sizeof(l));
	return 0;
}

static int set_numbers(struct config *cfg, const struct key *k, const config_setting_t *s,
		       const config_setting_t **at, char *why, size_t len)
{
	struct config_numbers l = { 0 };
	int n = config_setting_length(s);

	if (!config_setting_is_aggregate(s) || config_setting_is_group(s) ||
	    (n != 0 && n != k->count)) {
		snprintf(why, len, "expected a list of %d numbers [ ... ] or an empty one []",
			 k->count);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		int type = config_setting_type(e);

		*at = e;
		double d = type == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
						     : (double)config_setting_get_int64(e);

		if (type != CONFIG_TYPE_FLOAT && type != CONFIG_TYPE_INT &&
		    type != CONFIG_TYPE_INT64) {
			snprintf(why, len, "entry %d: expected a number", i + 1);
			return -EINVAL;
		}
		if (!(d >= k->min && d <= k->max)) {
			snprintf(why, len, "entry %d: %g is out of range (expected %g to %g)", i + 1,
				 d, k->min, k->max);
			return -EINVAL;
		}
		l.item[l.n++] = d;
	}
	assert(k->size == sizeof(l));
	memcpy(field(cfg, k), &l, sizeof(l));
	return 0;
}

/* 0, or -EINVAL with why saying what is wrong with v. */
static int key_set(struct config *cfg, const struct key *k, const struct value *v,
		   char *why, size_t len)
{
	switch (k->type) {
	case KEY_INT:
		return set_int(cfg, k, v, why, len);
	case KEY_DOUBLE:
		return set_double(cfg, k, v, why, len);
	case KEY_BOOL:
		return set_bool(cfg, k, v, why, len);
	case KEY_STRING:
		return set_string(cfg, k, v, why, len);
	case KEY_ENUM:
		return set_enum(cfg, k, v, why, len);
	case KEY_COLOUR:
		return set_colour(cfg, k, v, why, len);
	case KEY_STRINGS:
	case KEY_NUMBERS:
		return 0;	/* lists default to empty; files go through load_setting */
	}
	return -EINVAL;
}

static struct value key_default(const struct key *k)
{
	switch (k->type) {
	case KEY_INT:
		if (k->def_str)
			return (struct value){ .kind = VALUE_STRING, .s = k->def_str };
		return (struct value){ .kind = VALUE_INT, .i = (long long)k->def_num };
	case KEY_DOUBLE:
		if (k->def_str)
			return (struct value){ .kind = VALUE_STRING, .s = k->def_str };
		return (struct value){ .kind = VALUE_FLOAT, .f = k->def_num };
	case KEY_BOOL:
		return (struct value){ .kind = VALUE_BOOL, .i = k->def_num != 0 };
	default:
		return (struct value){ .kind = VALUE_STRING, .s = k->def_str };
	}
}

void config_defaults(struct config *cfg)
{
	char why[CONFIG_WHY_MAX];

	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < KEY_COUNT; i++) {
		struct value v = key_default(&keys[i]);
		int r = key_set(cfg, &keys[i], &v, why, sizeof(why));

		assert(r == 0);
		(void)r;
	}
}

static struct value setting_value(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return (struct value){ .kind = VALUE_INT, .i = config_setting_get_int64(s) };
	case CONFIG_TYPE_FLOAT:
		return (struct value){ .kind = VALUE_FLOAT, .f = config_setting_get_float(s) };
	case CONFIG_TYPE_BOOL:
		return (struct value){ .kind = VALUE_BOOL, .i = config_setting_get_bool(s) };
	case CONFIG_TYPE_STRING:
		return (struct value){ .kind = VALUE_STRING, .s = config_setting_get_string(s) };
	default:
		return (struct value){ .kind = VALUE_OTHER };
	}
}

static size_t group_len(const char *key)
{
	return strcspn(key, ".");
}

static bool group_known(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < KEY_COUNT; i++) {
		if (group_len(keys[i].name) == n && strncmp(keys[i].name, name, n) == 0)
			return true;
	}
	return false;
}

static const struct key *key_find(const char *name)
{
	for (size_t i = 0; i < KEY_COUNT; i++) {
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

struct load_ctx {
	struct config *cfg;
	const char *path;
	char *err;
	size_t errlen;
	config_warn_fn *warn;
	void *warn_ctx;
	int *unknown;		/* unknown keys and groups so far */
};

/* Only the first few unknown keys are named: each costs a search for the nearest known key. */
static bool warn_unknown(const struct load_ctx *lc)
{
	return lc->warn && ++*lc->unknown <= CONFIG_UNKNOWN_MAX;
}

static void warn_more_unknown(const struct load_ctx *lc)
{
	char msg[CONFIG_PATH_MAX + 64];

	if (*lc->unknown <= CONFIG_UNKNOWN_MAX)
		return;
	snprintf(msg, sizeof(msg), "%s: %d more unknown keys", lc->path,
		 *lc->unknown - CONFIG_UNKNOWN_MAX);
	lc->warn(lc->warn_ctx, msg);
}

static const char *source_file(const struct load_ctx *lc, const config_setting_t *s)
{
	const char *file = config_setting_source_file(s);

	return file ? file : lc->path;
}

static void warn_unknown_key(const struct load_ctx *lc, const config_setting_t *s,
			     const char *name)
{
	char msg[CONFIG_WHY_MAX + CONFIG_PATH_MAX];
	const char *near;
	int n;

	if (!warn_unknown(lc))
		return;
	near = config_key_nearest(name);
	n = snprintf(msg, sizeof(msg), "%s:%u: unknown key \"%s\"", source_file(lc, s),
		     config_setting_source_line(s), name);
	if (near && n > 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, " (did you mean \"%s\"?)", near);
	lc->warn(lc->warn_ctx, msg);
}

static void warn_unknown_group(const struct load_ctx *lc, const config_setting_t *s)
{
	char msg[CONFIG_WHY_MAX + CONFIG_PATH_MAX];
	const char *name = config_setting_name(s), *near;
	size_t near_len = 0;
	int n;

	if (!warn_unknown(lc))
		return;
	near = config_group_nearest(name, &near_len);
	n = snprintf(msg, sizeof(msg), "%s:%u: unknown group \"%s\"", source_file(lc, s),
		     config_setting_source_line(s), name);
	if (near && n > 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, " (did you mean \"%.*s\"?)",
			 (int)near_len, near);
	lc->warn(lc->warn_ctx, msg);
}

static int load_error(const struct load_ctx *lc, const config_setting_t *s, const char *name,
		      const char *why)
{
	if (lc->err && lc->errlen)
		snprintf(lc->err, lc->errlen, "%s:%u: %s: %s", source_file(lc, s),
			 config_setting_source_line(s), name, why);
	return -EINVAL;
}

static int load_setting(const struct load_ctx *lc, const config_setting_t *s, const char *group)
{
	char name[CONFIG_NAME_MAX * 2 + 2], why[CONFIG_WHY_MAX];
	const struct key *k;
	struct value v;

	snprintf(name, sizeof(name), "%s.%s", group, config_setting_name(s));
	k = key_find(name);
	if (!k) {
		warn_unknown_key(lc, s, name);
		return 0;
	}
	if (k->type == KEY_STRINGS || k->type == KEY_NUMBERS) {
		const config_setting_t *at = s;
		int r = k->type == KEY_STRINGS ? set_strings(lc->cfg, k, s, &at, why, sizeof(why))
					       : set_numbers(lc->cfg, k, s, &at, why, sizeof(why));

		return r < 0 ? load_error(lc, at, name, why) : 0;
	}
	v = setting_value(s);
	if (key_set(lc->cfg, k, &v, why, sizeof(why)) < 0)
		return load_error(lc, s, name, why);
	return 0;
}

static int load_group(const struct load_ctx *lc, const config_setting_t *g)
{
	const char *name = config_setting_name(g);

	if (!group_known(name)) {
		if (config_setting_is_group(g))
			warn_unknown_group(lc, g);
		else
			warn_unknown_key(lc, g, name);
		return 0;
	}
	if (!config_setting_is_group(g))
		return load_error(lc, g, name, "expected a group of settings { ... }");
	for (int i = 0; i < config_setting_length(g); i++) {
		int r = load_setting(lc, config_setting_get_elem(g, (unsigned)i), name);

		if (r < 0)
			return r;
	}
	return 0;
}

/* water.damping, a fraction, replaces water.damping_shift: a file sets one or the other. */
static int check_damping(const struct load_ctx *lc, const config_t *file)
{
	const config_setting_t *frac = config_lookup(file, "water.damping");
	const config_setting_t *shift = config_lookup(file, "water.damping_shift");
	char why[CONFIG_WHY_MAX + CONFIG_PATH_MAX];

	if (!frac || !shift || lc->cfg->water.damping == 0)
		return 0;
	snprintf(why, sizeof(why), "set together with water.damping_shift at %s:%u (expected "
		 "one or the other)", source_file(lc, shift), config_setting_source_line(shift));
	return load_error(lc, frac, "water.damping", why);
}

/* The spring engine's water grows without end unless its viscosity exceeds its stiffness. */
static int check_spring(const struct load_ctx *lc, const config_t *file)
{
	const config_setting_t *visc = config_lookup(file, "water.spring_viscosity");
	const config_setting_t *stiff = config_lookup(file, "water.spring_stiffness");
	double k = lc->cfg->water.spring_stiffness, m = lc->cfg->water.spring_viscosity;
	char why[CONFIG_WHY_MAX];

	if (m >= k + WATER_SPRING_MARGIN - 1e-12 || (!visc && !stiff))
		return 0;
	if (!visc) {
		snprintf(why, sizeof(why), "%g with water.spring_viscosity %g lets the water swing "
			 "ever higher (expected a stiffness of at most the viscosity - %g)", k, m,
			 WATER_SPRING_MARGIN);
		return load_error(lc, stiff, "water.spring_stiffness", why);
	}
	snprintf(why, sizeof(why), "%g with water.spring_stiffness %g lets the water swing ever "
		 "higher (expected a viscosity of at least the stiffness + %g)", m, k,
		 WATER_SPRING_MARGIN);
	return load_error(lc, visc, "water.spring_viscosity", why);
}

/* Beside an application the display is fbripple's only once it shows, after
 * screensaver.after: a blank due before that could not be done. */
static int check_blank(const struct load_ctx *lc, const config_t *file)
{
	const config_setting_t *blank = config_lookup(file, "screensaver.blank_after");
	int b = lc->cfg->screensaver.blank_after, a = lc->cfg->screensaver.after;
	char why[CONFIG_WHY_MAX];

	if (lc->cfg->screensaver.mode != SAVER_IDLE || !b || b > a || !blank)
		return 0;
	snprintf(why, sizeof(why), "%d with screensaver.after %d would fall due before the water "
		 "shows (expected 0, or more than screensaver.after in idle mode)", b, a);
	return load_error(lc, blank, "screensaver.blank_after", why);
}

/* display.device names a device, or "auto" finds one: "" would be opened as a path. */
static int check_display_device(const struct load_ctx *lc, const config_t *file)
{
	const config_setting_t *s = config_lookup(file, "display.device");

	if (!s || lc->cfg->display.device[0])
		return 0;
	return load_error(lc, s, "display.device", "expected \"auto\" or a device path");
}

/* display.mode is a size, with a refresh rate or without. */
static int check_display_mode(const struct load_ctx *lc, const config_t *file)
{
	const config_setting_t *s = config_lookup(file, "display.mode");
	const char *mode = lc->cfg->display.mode;
	char why[CONFIG_WHY_MAX];
	int w, h, hz;

	if (!s || !mode[0] || display_mode_parse(mode, &w, &h, &hz) == 0)
		return 0;
	snprintf(why, sizeof(why), "\"%.31s\" is not a mode (expected \"WxH\" or \"WxH@Hz\", e.g. "
		 "\"1280x800\" or \"1920x1080@60\", or \"\" for the preferred one)", mode);
	return load_error(lc, s, "display.mode", why);
}

static int read_error(const config_t *lc, const char *path, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s:%d: %s", path, config_error_line(lc),
			 config_error_text(lc));
	return -EINVAL;
}

static int load_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int load_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* The file's text, checked and prepared for libconfig (config_text.h says why), into *text. */
static int load_text(const char *path, char **text, char *err, size_t errlen)
{
	char *raw, why[CONFIG_WHY_MAX];
	size_t len;
	int line, r = file_read_all(path, CONFIG_FILE_MAX, &raw, &len);

	if (r == -EFBIG)
		return load_fail(err, errlen, r, "%s: larger than %d KiB (expected a configuration "
				 "file)", path, CONFIG_FILE_MAX / 1024);
	if (r < 0 && r != -ENOENT)
		return load_fail(err, errlen, r, "%s: %s", path, file_strerror(r));
	if (r < 0)
		return r;
	*text = malloc(2 * len + 1);
	r = *text ? config_text_prepare(raw, len, *text, &line, why, sizeof(why)) : -ENOMEM;
	free(raw);
	if (r == -ENOMEM)
		return load_fail(err, errlen, r, "%s: %s", path, strerror(ENOMEM));
	if (r < 0) {
		free(*text);
		return load_fail(err, errlen, r, "%s:%d: %s", path, line, why);
	}
	return 0;
}

int config_load(struct config *cfg, const char *path, char *err, size_t errlen,
		config_warn_fn *warn, void *warn_ctx)
{
	struct config tmp;
	int unknown = 0;
	struct load_ctx lc = { &tmp, path, err, errlen, warn, warn_ctx, &unknown };
	config_t file;
	char *text = NULL;
	int r;

	if (err && errlen)
		err[0] = '\0';
	r = load_text(path, &text, err, errlen);
	if (r == -ENOENT)
		config_defaults(cfg);
	if (r < 0)
		return r;
	config_init(&file);
	if (!config_read_string(&file, text)) {
		r = read_error(&file, path, err, errlen);
	} else {
		const config_setting_t *root = config_root_setting(&file);

		config_defaults(&tmp);
		for (int i = 0; r == 0 && i < config_setting_length(root); i++)
			r = load_group(&lc, config_setting_get_elem(root, (unsigned)i));
		if (r == 0)
			r = check_damping(&lc, &file);
		if (r == 0)
			r = check_spring(&lc, &file);
		if (r == 0)
			r = check_display_device(&lc, &file);
		if (r == 0)
			r = check_display_mode(&lc, &file);
		if (r == 0)
			r = check_blank(&lc, &file);
		if (r == 0)
			warn_more_unknown(&lc);
	}
	config_destroy(&file);
	free(text);
	if (r == 0)
		memcpy(cfg, &tmp, sizeof(tmp));	/* padding included, unlike assignment */
	return r;
}
