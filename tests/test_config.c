/* test_config.c - the config file parser, its messages, the shipped etc/fbripple.conf, and log.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "config/config_text.h"
#include "util/log.h"
#include "testutil.h"

#define MSG_MAX 1024

struct warnings {
	int count;
	char last[MSG_MAX];
};

static void collect_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static const char *default_conf_path(void)
{
	static char path[512];
	const char *dir = getenv("FBRIPPLE_SRCDIR");

	snprintf(path, sizeof(path), "%s/etc/fbripple.conf", dir ? dir : ".");
	return path;
}

/* Writes text to a new temporary file whose name goes to path. */
static void write_temp(char *path, size_t len, const char *text)
{
	int fd;

	snprintf(path, len, "/tmp/fbripple-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Loads text as a config file; the file's name goes to path (already unlinked). */
static int load_text(struct config *cfg, const char *text, char *path, char *err,
		     struct warnings *w)
{
	int r;

	write_temp(path, 64, text);
	r = config_load(cfg, path, err, MSG_MAX, w ? collect_warning : NULL, w);
	unlink(path);
	return r;
}

static void test_defaults(void **state)
{
	struct config cfg;

	(void)state;
	config_defaults(&cfg);
	assert_string_equal(cfg.display.device, "auto");
	assert_int_equal(cfg.display.fps, 60);
	assert_string_equal(cfg.splash.image, "");
	assert_int_equal(cfg.splash.scale, SCALE_FILL);
	assert_int_equal(cfg.splash.background, 0x000000);
	assert_int_equal(cfg.water.damping_shift, 5);
	assert_int_equal(cfg.water.cell, 0);		/* auto */
	assert_true(cfg.water.light == 1.5);
	assert_int_equal(cfg.water.light_direction, 45);
	assert_true(cfg.water.specular == 0.5);
	assert_int_equal(cfg.stone.size, 0);		/* auto */
	assert_int_equal(cfg.stone.weight, 320);
	assert_int_equal(cfg.stone.shape, WATER_COSINE);
	assert_false(cfg.rain.enabled);
	assert_true(cfg.rain.rate == 2.0);
	assert_int_equal(cfg.rain.size, 0);		/* auto */
	assert_int_equal(cfg.rain.weight, 64);
	assert_int_equal(cfg.input.trail_spacing, 0);	/* auto */
	assert_int_equal(cfg.input.trail_weight, 48);
	assert_int_equal(cfg.log.level, LOG_LEVEL_INFO);
}

static void test_default_file_is_the_defaults(void **state)
{
	struct config defaults, cfg;
	struct warnings w = { 0 };
	char err[MSG_MAX];

	(void)state;
	config_defaults(&defaults);
	memset(&cfg, 0x5a, sizeof(cfg));
	assert_int_equal(config_load(&cfg, default_conf_path(), err, sizeof(err),
				     collect_warning, &w), 0);
	assert_string_equal(err, "");
	assert_int_equal(w.count, 0);
	assert_memory_equal(&cfg, &defaults, sizeof(cfg));
}

/* Returns line n (1-based) of text in buf. */
static void nth_line(const char *text, unsigned n, char *buf, size_t len)
{
	const char *p = text;

	for (unsigned i = 1; i < n && p; i++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	assert_non_null(p);
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

static char *read_whole(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[65536];
	size_t n;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

/* Every key is set in the file, with a "Default:" comment on the line above it. */
static void test_default_file_documents_every_key(void **state)
{
	const char *path = default_conf_path();
	const char *text = read_whole(path);
	config_t lc;

	(void)state;
	config_init(&lc);
	assert_true(config_read_file(&lc, path));
	assert_true(config_key_count() >= 13);
	assert_null(config_key_name(config_key_count()));
	for (size_t i = 0; i < config_key_count(); i++) {
		const char *name = config_key_name(i);
		config_setting_t *s = config_lookup(&lc, name);
		char above[256];

		if (!s)
			fail_msg("%s is not in %s", name, path);
		nth_line(text, config_setting_source_line(s) - 1, above, sizeof(above));
		if (above[strspn(above, " \t")] != '#' || !strstr(above, "Default:"))
			fail_msg("%s: no \"# ... Default: ...\" comment above it, but \"%s\"", name,
				 above);
	}
	config_destroy(&lc);
}

static void test_values_of_each_type(void **state)
{
	struct config cfg;
	struct warnings w = { 0 };
	char path[64], err[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg,
		"display = { device = \"/dev/fb1\"; fps = 240; };\n"
		"splash = { image = \"/usr/share/x.png\"; scale = \"tile\"; background = \"#12abEF\"; };\n"
		"water = { damping_shift = 1; };\n"
		"stone = { size = 100; weight = 4096; };\n"
		"rain = { enabled = true; rate = 7; size = 1; weight = 1; };\n"
		"log = { level = \"debug\"; };\n", path, err, &w), 0);
	assert_int_equal(w.count, 0);
	assert_string_equal(cfg.display.device, "/dev/fb1");
	assert_int_equal(cfg.display.fps, 240);
	assert_string_equal(cfg.splash.image, "/usr/share/x.png");
	assert_int_equal(cfg.splash.scale, SCALE_TILE);
	assert_int_equal(cfg.splash.background, 0x12abef);
	assert_int_equal(cfg.water.damping_shift, 1);
	assert_int_equal(cfg.stone.size, 100);
	assert_int_equal(cfg.stone.weight, 4096);
	assert_true(cfg.rain.enabled);
	assert_true(cfg.rain.rate == 7.0);
	assert_int_equal(cfg.rain.size, 1);
	assert_int_equal(cfg.rain.weight, 1);
	assert_int_equal(cfg.log.level, LOG_LEVEL_DEBUG);

	assert_int_equal(load_text(&cfg,
		"splash = { scale = \"fit\"; background = 0x102030; };\n"
		"rain = { rate = 0.25; };\n", path, err, &w), 0);
	assert_int_equal(cfg.splash.scale, SCALE_FIT);
	assert_int_equal(cfg.splash.background, 0x102030);
	assert_true(cfg.rain.rate == 0.25);
	assert_int_equal(cfg.display.fps, 60);		/* untouched keys keep their defaults */
	assert_false(cfg.rain.enabled);
}

/* A file whose line 3 is "<group> = { <setting> };" must fail with
 * "FILE:3: <message>". */
static void check_error(const char *group, const char *setting, const char *message)
{
	struct config cfg;
	char text[1024], path[64], err[MSG_MAX], want[MSG_MAX];
	int r;

	snprintf(text, sizeof(text), "# test\n\n%s = { %s };\n", group,
		 setting);
	r = load_text(&cfg, text, path, err, NULL);
	snprintf(want, sizeof(want), "%s:3: %s", path, message);
	if (r != -EINVAL || strcmp(err, want) != 0)
		fail_msg("%s = { %s }: got %d \"%s\", want \"%s\"", group, setting, r, err, want);
}

static void test_error_messages(void **state)
{
	(void)state;
	check_error("stone", "size = 500;",
		    "stone.size: 500 is out of range (expected \"auto\" or an integer from 1 to 100)");
	check_error("stone", "size = 0;",
		    "stone.size: 0 is out of range (expected \"auto\" or an integer from 1 to 100)");
	check_error("stone", "size = 5000000000L;",
		    "stone.size: 5000000000 is out of range (expected \"auto\" or an integer from 1 to 100)");
	check_error("stone", "size = \"big\";", "stone.size: expected \"auto\" or an integer from 1 to 100");
	check_error("stone", "size = 2.5;", "stone.size: expected \"auto\" or an integer from 1 to 100");
	check_error("water", "cell = 0;",
		    "water.cell: 0 is out of range (expected \"auto\" or an integer from 1 to 16)");
	check_error("water", "cell = \"big\";",
		    "water.cell: expected \"auto\" or an integer from 1 to 16");
	check_error("water", "light = 5.0;",
		    "water.light: 5 is out of range (expected a number from 0 to 4)");
	check_error("stone", "shape = \"square\";",
		    "stone.shape: \"square\" is not a stone shape (expected one of disc, crater, "
		    "cosine)");
	check_error("display", "fps = 241;",
		    "display.fps: 241 is out of range (expected an integer from 1 to 240)");
	check_error("display", "rotate = 45;",
		    "display.rotate: 45 is not allowed (expected a multiple of 90 from 0 to 270)");
	check_error("display", "rotate = 360;",
		    "display.rotate: 360 is out of range (expected a multiple of 90 from 0 to 270)");
	check_error("splash", "scale = \"zoom\";",
		    "splash.scale: \"zoom\" is not a scale mode "
		    "(expected one of fill, fit, stretch, center, tile)");
	check_error("splash", "scale = 1;",
		    "splash.scale: expected one of fill, fit, stretch, center, tile");
	check_error("log", "level = \"loud\";",
		    "log.level: \"loud\" is not a log level "
		    "(expected one of error, warning, notice, info, debug)");
	check_error("screensaver", "mode = \"sometimes\";",
		    "screensaver.mode: \"sometimes\" is not a screensaver mode "
		    "(expected one of always, idle)");
	check_error("screensaver", "wake = \"shake\";",
		    "screensaver.wake: \"shake\" is not a way to wake "
		    "(expected one of touch, command)");
	check_error("screensaver", "after = 0;",
		    "screensaver.after: 0 is out of range (expected an integer from 1 to 604800)");
	check_error("screensaver", "fade = 11.0;",
		    "screensaver.fade: 11 is out of range (expected a number from 0 to 10)");
	check_error("rain", "enabled = 1;", "rain.enabled: expected true or false");
	check_error("rain", "enabled = \"yes\";", "rain.enabled: expected true or false");
	check_error("rain", "rate = 1000.5;",
		    "rain.rate: 1000.5 is out of range (expected a number from 0 to 1000)");
	check_error("rain", "rate = -1;",
		    "rain.rate: -1 is out of range (expected a number from 0 to 1000)");
	check_error("rain", "rate = \"fast\";", "rain.rate: expected a number from 0 to 1000");
	check_error("splash", "background = \"#12345\";",
		    "splash.background: \"#12345\" is not a colour (expected \"#RRGGBB\")");
	check_error("splash", "background = \"#12345g\";",
		    "splash.background: \"#12345g\" is not a colour (expected \"#RRGGBB\")");
	check_error("splash", "background = \"red\";",
		    "splash.background: \"red\" is not a colour (expected \"#RRGGBB\")");
	check_error("splash", "background = \"off\";",
		    "splash.background: \"off\" is not a colour (expected \"#RRGGBB\")");
	check_error("water", "tint = \"red\";",
		    "water.tint: \"red\" is not a colour (expected \"off\" or \"#RRGGBB\")");
	check_error("splash", "background = 0x1000000;",
		    "splash.background: 0x1000000 is out of range (expected 0x000000 to 0xFFFFFF)");
	check_error("splash", "background = -1;",
		    "splash.background: -1 is out of range (expected 0x000000 to 0xFFFFFF)");
	check_error("splash", "background = true;",
		    "splash.background: expected a colour \"#RRGGBB\" or 0xRRGGBB");
	check_error("display", "device = 5;", "display.device: expected a quoted string");
	check_error("display", "device = [ \"/dev/fb0\" ];",
		    "display.device: expected a quoted string");
	/* passed -t, and the daemon then said "error: : No such file or directory" */
	check_error("display", "device = \"\";",
		    "display.device: expected \"auto\" or a device path");
	check_error("water", "damping_shift = 13;",
		    "water.damping_shift: 13 is out of range (expected an integer from 1 to 12)");
	check_error("display", "mode = \"1280x\";",
		    "display.mode: \"1280x\" is not a mode (expected \"WxH\" or \"WxH@Hz\", e.g. "
		    "\"1280x800\" or \"1920x1080@60\", or \"\" for the preferred one)");
	check_error("display", "mode = \"1280x800@\";",
		    "display.mode: \"1280x800@\" is not a mode (expected \"WxH\" or \"WxH@Hz\", e.g. "
		    "\"1280x800\" or \"1920x1080@60\", or \"\" for the preferred one)");
}

/* A bad entry in a list spread over lines is reported at its own line, not the list's. */
/* display.threads: "auto" (0) by default, 1..4, and a clear line for anything else. */
static void test_display_threads(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX];

	(void)state;
	config_defaults(&cfg);
	assert_int_equal(cfg.display.threads, 0);	/* auto */
	for (int n = 1; n <= 4; n++) {
		char text[64];

		snprintf(text, sizeof(text), "display = { threads = %d; };\n", n);
		assert_int_equal(load_text(&cfg, text, path, err, NULL), 0);
		assert_int_equal(cfg.display.threads, n);
	}
	assert_int_equal(load_text(&cfg, "display = { threads = \"auto\"; };\n", path, err, NULL),
			 0);
	assert_int_equal(cfg.display.threads, 0);
	check_error("display", "threads = 0;",
		    "display.threads: 0 is out of range (expected \"auto\" or an integer from 1 to 4)");
	check_error("display", "threads = 5;",
		    "display.threads: 5 is out of range (expected \"auto\" or an integer from 1 to 4)");
	check_error("display", "threads = \"all\";",
		    "display.threads: expected \"auto\" or an integer from 1 to 4");
}

/* water.damping, the fraction of seed 003, and water.damping_shift exclude each other (but
 * for "off"), and the message names both lines. */
static void test_damping_fraction(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX], want[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "water = { damping = 0.97; };\n", path, err, NULL), 0);
	assert_true(cfg.water.damping == 0.97);
	assert_true(config_water_tuning(&cfg).damping == 0.97);
	assert_int_equal(config_water_tuning(&cfg).damping_shift, 5);
	assert_int_equal(load_text(&cfg, "water = { damping = \"off\"; damping_shift = 7; };\n",
				   path, err, NULL), 0);
	assert_true(cfg.water.damping == 0);
	assert_int_equal(cfg.water.damping_shift, 7);
	config_defaults(&cfg);
	assert_true(cfg.water.damping == 0);
	assert_int_equal(load_text(&cfg, "# test\nwater = {\n  damping_shift = 6;\n\n"
				   "  damping = 0.94;\n};\n", path, err, NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:5: water.damping: set together with water.damping_shift"
		 " at %s:3 (expected one or the other)", path, path);
	assert_string_equal(err, want);
	check_error("water", "damping = 1.0;", "water.damping: 1 is out of range (expected \"off\" "
		    "or a number from 0.5 to 0.9999)");
	check_error("water", "damping = 0.0;", "water.damping: 0 is out of range (expected \"off\" "
		    "or a number from 0.5 to 0.9999)");
	check_error("water", "damping = \"slow\";", "water.damping: expected \"off\" or a number "
		    "from 0.5 to 0.9999");
	check_error("water", "obstacles = 3;", "water.obstacles: expected a quoted string");
}

/* The spring engine's viscosity must exceed its stiffness, whichever of them the file sets;
 * the message names the line of the one it sets. */
static void test_spring_viscosity_above_stiffness(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX], want[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "water = { spring_stiffness = 0.01; "
				   "spring_viscosity = 0.0105; };\n", path, err, NULL), 0);
	assert_int_equal(load_text(&cfg, "water = {\n  spring_stiffness = 0.01;\n"
				   "  spring_viscosity = 0.01;\n};\n", path, err, NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: water.spring_viscosity: 0.01 with "
		 "water.spring_stiffness 0.01 lets the water swing ever higher (expected a "
		 "viscosity of at least the stiffness + 0.0005)", path);
	assert_string_equal(err, want);
	check_error("water", "spring_stiffness = 0.3;", "water.spring_stiffness: 0.3 with "
		    "water.spring_viscosity 0.012 lets the water swing ever higher (expected a "
		    "stiffness of at most the viscosity - 0.0005)");
}

/* Beside an application the blank must come after the water shows: before it, the display is
 * the application's. Alone on the screen, any blank_after goes. */
static void test_blank_after_the_show(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX];

	(void)state;
	check_error("screensaver", "mode = \"idle\"; after = 60; blank_after = 60;",
		    "screensaver.blank_after: 60 with screensaver.after 60 would fall due before the "
		    "water shows (expected 0, or more than screensaver.after in idle mode)");
	check_error("screensaver", "mode = \"idle\"; blank_after = 10;",
		    "screensaver.blank_after: 10 with screensaver.after 300 would fall due before the "
		    "water shows (expected 0, or more than screensaver.after in idle mode)");
	assert_int_equal(load_text(&cfg, "screensaver = { mode = \"idle\"; after = 60; "
				   "blank_after = 61; };\n", path, err, NULL), 0);
	assert_int_equal(cfg.screensaver.blank_after, 61);
	assert_int_equal(load_text(&cfg, "screensaver = { mode = \"idle\"; after = 60; "
				   "blank_after = 0; };\n", path, err, NULL), 0);
	assert_int_equal(load_text(&cfg, "screensaver = { after = 60; blank_after = 10; };\n",
				   path, err, NULL), 0);
	assert_int_equal(cfg.screensaver.blank_after, 10);
}

static void test_list_entry_line(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX], want[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "input = {\n  calibration = [ 1.0, 0.0, 0.0,\n"
				   "    0.0, 1.0,\n    99999.0 ];\n};\n", path, err, NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: input.calibration: entry 6: 99999 is out of range "
		 "(expected -1000 to 1000)", path);
	assert_string_equal(err, want);
	assert_int_equal(load_text(&cfg, "input = {\n  devices = ( \"/dev/input/event1\",\n"
				   "    7 );\n};\n", path, err, NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: input.devices: entry 2: expected a quoted string", path);
	assert_string_equal(err, want);
}

static void test_input_lists(void **state)
{
	struct config cfg, defaults;
	char path[64], err[MSG_MAX];

	(void)state;
	config_defaults(&defaults);
	assert_int_equal(defaults.input.devices.n, 0);
	assert_int_equal(defaults.input.calibration.n, 0);
	assert_true(defaults.input.grab);
	assert_false(defaults.input.hover_ripples);
	assert_true(defaults.input.trail_weight < defaults.stone.weight);
	assert_int_equal(load_text(&cfg,
		"input = { devices = [ \"/dev/input/event3\", \"*Touch*\" ];\n"
		"  calibration = [ 0.0, -1.0, 1.0, 1.0, 0.0, 0.0 ]; grab = false;\n"
		"  trail_spacing = 3; trail_weight = 20; hover_ripples = true; };\n",
		path, err, NULL), 0);
	assert_int_equal(cfg.input.devices.n, 2);
	assert_string_equal(cfg.input.devices.item[0], "/dev/input/event3");
	assert_string_equal(cfg.input.devices.item[1], "*Touch*");
	assert_int_equal(cfg.input.calibration.n, 6);
	assert_true(cfg.input.calibration.item[1] == -1.0 && cfg.input.calibration.item[2] == 1.0);
	assert_false(cfg.input.grab);
	assert_int_equal(cfg.input.trail_spacing, 3);
	assert_int_equal(cfg.input.trail_weight, 20);
	assert_true(cfg.input.hover_ripples);
	assert_int_equal(load_text(&cfg, "input = { calibration = [ 1, 0, 0, 0, 1, 0 ]; };\n",
				   path, err, NULL), 0);		/* integers are numbers too */
	assert_int_equal(cfg.input.calibration.n, 6);
	assert_true(cfg.input.calibration.item[4] == 1.0);

	check_error("input", "calibration = [ 1.0, 0.0, 0.0 ];",
		    "input.calibration: expected a list of 6 numbers [ ... ] or an empty one []");
	check_error("input", "calibration = 1.0;",
		    "input.calibration: expected a list of 6 numbers [ ... ] or an empty one []");
	check_error("input", "calibration = [ 1.0, 0.0, 0.0, 0.0, 1.0, 5000.0 ];",
		    "input.calibration: entry 6: 5000 is out of range (expected -1000 to 1000)");
	check_error("input", "calibration = ( 1.0, 0.0, \"x\", 0.0, 1.0, 0.0 );",
		    "input.calibration: entry 3: expected a number");
	check_error("input", "devices = \"/dev/input/event0\";",
		    "input.devices: expected a list of quoted strings [ \"...\", ... ]");
	check_error("input", "devices = [ 1, 2 ];",
		    "input.devices: entry 1: expected a quoted string");
	check_error("input", "devices = [ \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", \"8\", \"9\" ];",
		    "input.devices: 9 entries is too many (expected at most 8)");
}

static void test_too_long_path(void **state)
{
	char setting[CONFIG_PATH_MAX + 32], want[128];
	char *p = setting;

	(void)state;
	p += sprintf(p, "image = \"/");
	memset(p, 'x', CONFIG_PATH_MAX - 1);	/* CONFIG_PATH_MAX characters with the slash */
	p += CONFIG_PATH_MAX - 1;
	sprintf(p, "\";");
	snprintf(want, sizeof(want),
		 "splash.image: %d characters is too long (expected at most %d)",
		 CONFIG_PATH_MAX, CONFIG_PATH_MAX - 1);
	check_error("splash", setting, want);
}

static void test_longest_path_fits(void **state)
{
	struct config cfg;
	char text[CONFIG_PATH_MAX + 64], path[64], err[MSG_MAX];
	int n = snprintf(text, sizeof(text), "splash = { image = \"");

	(void)state;
	memset(text + n, 'y', CONFIG_PATH_MAX - 1);
	snprintf(text + n + CONFIG_PATH_MAX - 1, sizeof(text) - (size_t)n - CONFIG_PATH_MAX + 1,
		 "\"; };\n");
	assert_int_equal(load_text(&cfg, text, path, err, NULL), 0);
	assert_int_equal(strlen(cfg.splash.image), CONFIG_PATH_MAX - 1);
}

static void test_syntax_error(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX], want[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "display = {\n\tfps = 30;\n\tdevice = ;\n};\n", path, err,
				   NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: syntax error", path);
	assert_string_equal(err, want);
}

static void test_group_expected(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX], want[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "\nstone = 5;\n", path, err, NULL), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: stone: expected a group of settings { ... }", path);
	assert_string_equal(err, want);
}

/* text must load with exactly one warning, "FILE:LINE: <message>", and change nothing. */
static void check_warning(const char *text, int line, const char *message)
{
	struct config cfg, defaults;
	struct warnings w = { 0 };
	char path[64], err[MSG_MAX], want[MSG_MAX];

	config_defaults(&defaults);
	assert_int_equal(load_text(&cfg, text, path, err, &w), 0);
	snprintf(want, sizeof(want), "%s:%d: %s", path, line, message);
	assert_int_equal(w.count, 1);
	assert_string_equal(w.last, want);
	assert_memory_equal(&cfg, &defaults, sizeof(cfg));
}

static void test_unknown_keys(void **state)
{
	(void)state;
	check_warning("stone = {\n\tsize = \"auto\";\n\tsise = 9;\n};\n", 3,
		      "unknown key \"stone.sise\" (did you mean \"stone.size\"?)");
	check_warning("rain = { enabeld = true; };\n", 1,
		      "unknown key \"rain.enabeld\" (did you mean \"rain.enabled\"?)");
	check_warning("stone = { colour = 1; };\n", 1, "unknown key \"stone.colour\"");
	check_warning("\n\nfps = 30;\n", 3, "unknown key \"fps\" (did you mean \"display.fps\"?)");
	check_warning("x = 1;\n", 1, "unknown key \"x\"");
	check_warning("dispaly = { fps = 30; };\n", 1,
		      "unknown group \"dispaly\" (did you mean \"display\"?)");
	check_warning("\nkiosk = { timeout = 30; };\n", 2, "unknown group \"kiosk\"");
	check_warning("stone = { size = \"auto\"; nested = { a = 1; }; };\n", 1,
		      "unknown key \"stone.nested\"");
}

static void test_unknown_key_without_callback(void **state)
{
	struct config cfg;
	char path[64], err[MSG_MAX];

	(void)state;
	assert_int_equal(load_text(&cfg, "stone = { sise = 9; size = 9; };\n", path, err, NULL), 0);
	assert_int_equal(cfg.stone.size, 9);
}

static void test_missing_file(void **state)
{
	struct config cfg, defaults;
	char err[MSG_MAX];

	(void)state;
	config_defaults(&defaults);
	memset(&cfg, 0x5a, sizeof(cfg));
	assert_int_equal(config_load(&cfg, "/nonexistent/fbripple.conf", err, sizeof(err), NULL,
				     NULL), -ENOENT);
	assert_memory_equal(&cfg, &defaults, sizeof(cfg));
}

static void test_unreadable_file(void **state)
{
	struct config cfg, before;
	char err[MSG_MAX], want[MSG_MAX];
	char dir[] = "/tmp/fbripple-test-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&cfg, 0x5a, sizeof(cfg));
	before = cfg;
	assert_int_equal(config_load(&cfg, dir, err, sizeof(err), NULL, NULL), -EISDIR);
	snprintf(want, sizeof(want), "%s: %s", dir, strerror(EISDIR));
	assert_string_equal(err, want);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
	rmdir(dir);

	if (geteuid() == 0)
		return;		/* root reads everything */
	char path[64];

	write_temp(path, sizeof(path), "stone = { size = 9; };\n");
	chmod(path, 0);
	assert_int_equal(config_load(&cfg, path, err, sizeof(err), NULL, NULL), -EACCES);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(EACCES));
	assert_string_equal(err, want);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
	unlink(path);
}

static void test_error_leaves_config_untouched(void **state)
{
	struct config cfg, before;
	char path[64], err[MSG_MAX];

	(void)state;
	config_defaults(&cfg);
	cfg.stone.size = 42;
	snprintf(cfg.display.device, sizeof(cfg.display.device), "/dev/fb7");
	memcpy(&before, &cfg, sizeof(cfg));
	assert_int_equal(load_text(&cfg, "stone = { size = 9; weight = 0; };\n", path, err, NULL),
			 -EINVAL);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
	assert_int_equal(load_text(&cfg, "stone = { size = 9 ", path, err, NULL), -EINVAL);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void test_reload_compares_with_memcmp(void **state)
{
	struct config a, b;
	char path[64], err[MSG_MAX];

	(void)state;
	memset(&a, 0x11, sizeof(a));
	memset(&b, 0x22, sizeof(b));
	assert_int_equal(load_text(&a, "display = { device = \"/dev/fb1\"; };\n", path, err, NULL), 0);
	assert_int_equal(load_text(&b, "display = { device = \"/dev/fb1\"; };\n", path, err, NULL), 0);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* Runs fn with stderr sent to a file, and returns what it wrote. */
static const char *capture_stderr(void (*fn)(const char *journal), bool journal)
{
	static char out[4096];
	char path[64], stream[64];
	int saved = dup(STDERR_FILENO);
	struct stat st;
	ssize_t n;
	int fd;

	write_temp(path, sizeof(path), "");
	fd = open(path, O_RDWR);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fstat(fd, &st);
	snprintf(stream, sizeof(stream), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	fn(journal ? stream : NULL);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	unlink(path);
	out[n > 0 ? n : 0] = '\0';
	return out;
}

static void log_some(const char *journal)
{
	if (journal)
		setenv("JOURNAL_STREAM", journal, 1);
	else
		unsetenv("JOURNAL_STREAM");
	log_init(LOG_LEVEL_INFO);
	log_error("bad %d", 1);
	log_warn("careful");
	log_notice("note");
	log_info("started\n");
	log_debug("hidden");
	log_set_level(LOG_LEVEL_DEBUG);
	log_debug("shown");
	log_set_level(LOG_LEVEL_ERROR);
	log_warn("dropped");
	unsetenv("JOURNAL_STREAM");
}

static void log_other_stream(const char *journal)
{
	(void)journal;
	setenv("JOURNAL_STREAM", "1:1", 1);
	log_init(LOG_LEVEL_WARNING);
	log_warn("plain");
	log_info("dropped");
	unsetenv("JOURNAL_STREAM");
}

static void test_log_journal(void **state)
{
	(void)state;
	assert_string_equal(capture_stderr(log_some, true),
			    "<3>bad 1\n<4>careful\n<5>note\n<6>started\n<7>shown\n");
}

static void test_log_plain(void **state)
{
	(void)state;
	assert_string_equal(capture_stderr(log_some, false),
			    "fbripple: error: bad 1\n"
			    "fbripple: warning: careful\n"
			    "fbripple: note\n"
			    "fbripple: started\n"
			    "fbripple: debug: shown\n");
	assert_string_equal(capture_stderr(log_other_stream, false),
			    "fbripple: warning: plain\n");
}

static void log_long(const char *journal)
{
	char big[5000];

	(void)journal;
	unsetenv("JOURNAL_STREAM");
	log_init(LOG_LEVEL_INFO);
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_warn("%s", big);
	log_warn("after");
}

static void test_log_long_line(void **state)
{
	const char *out;

	(void)state;
	out = capture_stderr(log_long, false);
	assert_true(strlen(out) > 1000);
	assert_non_null(strstr(out, "zzz\nfbripple: warning: after\n"));
	assert_int_equal(strncmp(out, "fbripple: warning: zzz", 22), 0);
}

static void test_log_level_names(void **state)
{
	static const char *const names[] = { "error", "warning", "notice", "info", "debug" };
	enum log_level level;

	(void)state;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(log_level_parse(names[i], &level), 0);
		assert_int_equal(level, LOG_LEVEL_ERROR + i);
		assert_string_equal(log_level_name(level), names[i]);
	}
	assert_int_equal(log_level_parse("warn", &level), -EINVAL);
	assert_int_equal(log_level_parse("", &level), -EINVAL);
}

static int call_load(void *ctx, char *out, size_t outlen)
{
	struct config cfg;

	return config_load(&cfg, ctx, out, outlen, NULL, NULL);
}

/* A FIFO (as the config at start, on SIGHUP, on reload or for --check-config) is refused at
 * once: open(2) on it would wait for a writer forever. The null device still means "empty". */
static void test_fifo_refused(void **state)
{
	char dir[] = "/tmp/fbripple-test-XXXXXX", path[64], err[MSG_MAX], want[MSG_MAX];
	struct config cfg, before;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	err[0] = '\0';
	assert_int_equal(tu_call_bounded(call_load, path, err, sizeof(err), 5000), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	assert_string_equal(err, want);
	unlink(path);
	rmdir(dir);

	memset(&cfg, 0x5a, sizeof(cfg));
	memcpy(&before, &cfg, sizeof(cfg));
	assert_int_equal(config_load(&cfg, "/dev/zero", err, sizeof(err), NULL, NULL), -EINVAL);
	assert_string_equal(err, "/dev/zero: not a regular file");
	assert_memory_equal(&cfg, &before, sizeof(cfg));
	assert_int_equal(config_load(&cfg, "/dev/null", err, sizeof(err), NULL, NULL), 0);
	config_defaults(&before);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void assert_refused(const char *text, const char *want)
{
	struct config cfg;
	char path[64], err[MSG_MAX];

	config_defaults(&cfg);
	cfg.display.fps = 33;
	assert_int_equal(load_text(&cfg, text, path, err, NULL), -EINVAL);
	if (!strstr(err, want))
		fail_msg("expected \"%s\" in \"%s\"", want, err);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_int_equal(cfg.display.fps, 33);
}

/* libconfig 1.5 reads 4294967356 as 60 and 0x1000000FF as 0xFF; they are out of range. */
static void test_integers_past_32_bits(void **state)
{
	struct config cfg;
	struct warnings w = { 0 };
	char path[64], err[MSG_MAX];

	(void)state;
	assert_refused("display = { fps = 4294967356; };\n",
		       ":1: display.fps: 4294967356 is out of range (expected an integer from 1");
	assert_refused("\ndisplay = { fps = -4294967236 };\n",
		       ":2: display.fps: -4294967236 is out of range");
	assert_refused("display = { fps = 2147483708 };\n", "2147483708 is out of range");
	assert_refused("splash = { background = 0x1000000FF; };\n",
		       "splash.background: 0x1000000FF is out of range");
	assert_refused("splash = { background = 0xFFFFFFFF; };\n",
		       "splash.background: 0xFFFFFFFF is out of range");
	assert_refused("stone = { weight = 99999999999999999999; };\n",
		       ":1: 99999999999999999999 is out of range (expected at most 64 bits)");
	assert_refused("stone = { weight = 0x10000000000000000L; };\n",
		       "0x10000000000000000 is out of range (expected at most 64 bits)");
	assert_refused("input = { calibration = ( 1.0, 0, 0, 0, 1, 8589934592 ); };\n",
		       "input.calibration: entry 6: 8.58993e+09 is out of range");
	assert_refused("input = { calibration = [ 1, 0, 0, 0, 1, 8589934592 ]; };\n", ":1: ");

	/* names with digits, floats and in-range 64-bit literals are what they were */
	assert_int_equal(load_text(&cfg, "display = { fps = 30L; };\nrain = { rate = 1e2; "
				   "size = +4; };\nwater = { x4294967356 = 1; };\n", path, err, &w),
			 0);
	assert_int_equal(cfg.display.fps, 30);
	assert_true(cfg.rain.rate == 100.0);
	assert_int_equal(cfg.rain.size, 4);
	assert_int_equal(w.count, 1);
	assert_non_null(strstr(w.last, "water.x4294967356"));
}

/* A NUL would end the string (or the whole file) where libconfig sees it. */
static void test_nul_refused(void **state)
{
	static const char raw[] = "splash = { image = \"/srv/a\0b.png\"; };\n";
	struct config cfg;
	char path[64], err[MSG_MAX];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/fbripple-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, raw, sizeof(raw) - 1), (ssize_t)sizeof(raw) - 1);
	close(fd);
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, path, err, sizeof(err), NULL, NULL), -EINVAL);
	unlink(path);
	assert_non_null(strstr(err, ":1: a NUL byte (expected text)"));
	assert_string_equal(cfg.splash.image, "");

	assert_refused("\nsplash = { image = \"/srv/a\\x00b.png\"; };\n",
		       ":2: a NUL character (\\x00) in a string");
	/* an escaped backslash before x00 is just text */
	assert_int_equal(load_text(&cfg, "splash = { image = \"/srv/a\\\\x00b\"; };\n", path, err,
				   NULL), 0);
	assert_string_equal(cfg.splash.image, "/srv/a\\x00b");
}

/* libconfig 1.5 loses a string that stands where the grammar has no place for one: a refused
 * reload of such a file must not cost memory each time. */
static void test_stray_string_does_not_leak(void **state)
{
	enum { STRAY = 32 * 1024, LOADS = 40 };
	char *text = malloc(STRAY + 64), path[64], err[MSG_MAX];
	struct config cfg;
	size_t before, after;
	int n;

	(void)state;
	assert_non_null(text);
	n = snprintf(text, 64, "display = { fps = 30; };\n\"");
	memset(text + n, 'x', STRAY);
	strcpy(text + n + STRAY, "\";\n");
	config_defaults(&cfg);
	assert_int_equal(load_text(&cfg, text, path, err, NULL), -EINVAL);
	assert_non_null(strstr(err, ":2: syntax error"));
	before = mallinfo2().uordblks;
	for (int i = 0; i < LOADS; i++)
		assert_int_equal(load_text(&cfg, text, path, err, NULL), -EINVAL);
	after = mallinfo2().uordblks;
	if (after > before + STRAY)
		fail_msg("%d refused loads kept %zu bytes", LOADS, after - before);
	assert_int_equal(cfg.display.fps, 60);
	free(text);

	/* strings where they belong, and the other syntax errors, are as before */
	assert_refused("display = { device = \"/dev/fb1\" \"x\" 5 };\n", ":1: syntax error");
	assert_refused("input = { devices = [ \"a\", \"b\" ] \"c\"; };\n", "syntax error");
	assert_refused("input = { devices = ( \"a\", \"b\" ); };\ninput = 1;\n", ":2:");
	assert_int_equal(load_text(&cfg, "input = { devices = ( \"a\", \"b\" \"c\" ); };\n"
				   "display = { device = \"/dev/\" /* c */ \"fb1\"; };\n", path, err,
				   NULL), 0);
	assert_string_equal(cfg.input.devices.item[1], "bc");
	assert_string_equal(cfg.display.device, "/dev/fb1");
}

/* libconfig 1.5 adds each setting after a linear search of its group: 40000 take 20 s. */
static void test_setting_count_bounded(void **state)
{
	size_t size = CONFIG_FILE_MAX + 2, used;
	char *text = malloc(size), path[64], err[MSG_MAX], want[64];
	struct config cfg;
	int i;

	(void)state;
	assert_non_null(text);
	used = (size_t)snprintf(text, size, "extra = {\n");
	for (i = 0; used + 16 < size && i < CONFIG_SETTINGS_MAX - 1; i++)
		used += (size_t)snprintf(text + used, size - used, "k%d = 1;\n", i);
	snprintf(text + used, size - used, "};\n");
	assert_int_equal(load_text(&cfg, text, path, err, NULL), 0);	/* the group is one */

	snprintf(text + used, size - used, "k%d = 1;\n};\n", i);
	assert_refused(text, "more than 128 settings");
	snprintf(want, sizeof(want), ":%d: more than 128 settings", CONFIG_SETTINGS_MAX + 1);
	assert_refused(text, want);

	for (; used + 16 < size; i++)
		used += (size_t)snprintf(text + used, size - used, "k%d = 1;\n", i);
	memset(text + used, '#', size - 1 - used);
	text[size - 1] = '\0';
	assert_int_equal(strlen(text), CONFIG_FILE_MAX + 1);
	assert_int_equal(load_text(&cfg, text, path, err, NULL), -EFBIG);
	assert_non_null(strstr(err, ": larger than 64 KiB (expected a configuration file)"));

	used = (size_t)snprintf(text, size, "input = { calibration = (\n");
	for (i = 0; i < CONFIG_ITEMS_MAX + 1; i++)
		used += (size_t)snprintf(text + used, size - used, "1,");
	snprintf(text + used, size - used, "1); };\n");
	assert_refused(text, ":2: more than 1024 list entries");
	free(text);
}

/* Each named unknown key costs a nearest-key search: the first 16 are named, the rest counted. */
static void test_unknown_keys_counted(void **state)
{
	char text[2048], path[64], err[MSG_MAX];
	struct warnings w = { 0 };
	struct config cfg;
	size_t used = (size_t)snprintf(text, sizeof(text), "display = {\n");

	(void)state;
	for (int i = 0; i < 40; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "fsp%d = 1;\n", i);
	snprintf(text + used, sizeof(text) - used, "fps = 50; };\n");
	assert_int_equal(load_text(&cfg, text, path, err, &w), 0);
	assert_int_equal(cfg.display.fps, 50);
	assert_int_equal(w.count, 17);
	assert_string_equal(w.last + strlen(path), ": 24 more unknown keys");
}

static void test_include_and_nesting_refused(void **state)
{
	(void)state;
	assert_refused("@include \"/etc/fbripple.d/x.conf\"\n", ":1: @include is not supported");
	assert_refused("a = ((((((((((((((((((1))))))))))))))))));\n", "nested more than 16 deep");
	assert_refused("display = {\n  fps_and_then_a_name_that_goes_on_and_on_for_more_than_64_characters"
		       " = 1; };\n", ":2: a name longer than 64 characters (fps_and_then_a_n...)");
}

/* Words from outside (a device's name, a file's) stay one line in the log, their control
 * bytes written out: no forged line at a priority of their choosing, no terminal escapes. */
static void test_log_keeps_outside_words_on_one_line(void **state)
{
	char text[512] = "", out[8];
	struct tu_log log;

	(void)state;
	log_init(LOG_LEVEL_INFO);
	tu_log_open(&log);
	tu_log_start(&log);
	log_warn("input: \"%s\" gone", "x\n<2>fbripple: error: forged\x1b[31m\x7f\tend");
	tu_log_stop(&log);
	tu_log_text(&log, text, sizeof(text));
	/* the prefix is the log's own: "<4>" under journald, "fbripple: warning: " on a TTY */
	assert_non_null(strstr(text, "input: \"x\\x0a<2>fbripple: error: forged\\x1b[31m"
				     "\\x7f\tend\" gone\n"));
	assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);
	tu_log_close(&log);
	/* cut short before an escape that does not fit, never inside it */
	assert_int_equal(log_escape(out, sizeof(out), "abcd\nef"), 4);
	assert_string_equal(out, "abcd");
	assert_int_equal(log_escape(out, sizeof(out), "a\x01" "b"), 6);
	assert_string_equal(out, "a\\x01b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_file_is_the_defaults),
		cmocka_unit_test(test_default_file_documents_every_key),
		cmocka_unit_test(test_values_of_each_type),
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_damping_fraction),
		cmocka_unit_test(test_display_threads),
		cmocka_unit_test(test_spring_viscosity_above_stiffness),
		cmocka_unit_test(test_blank_after_the_show),
		cmocka_unit_test(test_input_lists),
		cmocka_unit_test(test_list_entry_line),
		cmocka_unit_test(test_log_keeps_outside_words_on_one_line),
		cmocka_unit_test(test_too_long_path),
		cmocka_unit_test(test_longest_path_fits),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_group_expected),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_unknown_key_without_callback),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_unreadable_file),
		cmocka_unit_test(test_error_leaves_config_untouched),
		cmocka_unit_test(test_reload_compares_with_memcmp),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_integers_past_32_bits),
		cmocka_unit_test(test_nul_refused),
		cmocka_unit_test(test_stray_string_does_not_leak),
		cmocka_unit_test(test_setting_count_bounded),
		cmocka_unit_test(test_unknown_keys_counted),
		cmocka_unit_test(test_include_and_nesting_refused),
		cmocka_unit_test(test_log_journal),
		cmocka_unit_test(test_log_plain),
		cmocka_unit_test(test_log_long_line),
		cmocka_unit_test(test_log_level_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
