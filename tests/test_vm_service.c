/* test_vm_service.c - the daemon in a QEMU guest as its unit starts it: the unit's own ExecStart
 * line against the real /dev/fb0, a reload with a changed config, a refused one, and a stop. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/image.h"
#include "testutil.h"
#include "vm/vmcase.h"

#define RED 0xd02020u
#define BLUE 0x2040e0u

/* The guest runs the ExecStart line it was given, then answers the host step by step. */
static const char script[] =
	"mkdir -p /run/fbripple\n"
	"cp /etc/fbvm/red.conf /etc/fbripple.conf\n"
	". /etc/fbvm/execstart.sh &\n"
	"pid=$!\n"
	"n=0; while [ ! -S /run/fbripple/control ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done\n"
	"say \"status $(/usr/bin/fbripple --send status)\"\n"
	"say started\n"
	"hear cmd\n"
	"cp /etc/fbvm/blue.conf /etc/fbripple.conf\n"
	"kill -HUP $pid\n"
	"n=0; until /usr/bin/fbripple --send status | grep -q target=30 || [ $n -gt 50 ]; do\n"
	"  sleep 0.1; n=$((n+1)); done\n"
	"say \"status $(/usr/bin/fbripple --send status)\"\n"
	"say reloaded\n"
	"hear cmd\n"
	"cp /etc/fbvm/bad.conf /etc/fbripple.conf\n"
	"say \"reply $(/usr/bin/fbripple --send reload)\"\n"
	"kill -HUP $pid; sleep 0.3\n"
	"say \"status $(/usr/bin/fbripple --send status)\"\n"
	"say refused\n"
	"hear cmd\n"
	"kill -TERM $pid; wait $pid; say \"stopped $?\"\n"
	"hear cmd\n";

static void write_solid(const char *path, uint32_t rgb)
{
	struct image img = { 64, 48, malloc(64 * 48 * sizeof(uint32_t)) };

	for (int i = 0; i < 64 * 48; i++)
		img.pixels[i] = 0xff000000u | rgb;
	assert_int_equal(image_write_png(&img, path), 0);
	image_free(&img);
}

/* s with its first word in at replaced by with (s holds room for it). */
static void replace_word(char *s, size_t size, const char *word, const char *with)
{
	char *at = strstr(s, word), rest[512];

	assert_non_null(at);
	snprintf(rest, sizeof(rest), "%s", at + strlen(word));
	snprintf(at, size - (size_t)(at - s), "%s%s", with, rest);
}

/* ExecStart= of systemd/fbripple.service, with @BINDIR@ and @SYSCONFDIR@ as installed in the
 * guest. */
static void write_execstart(const char *path)
{
	char line[512], out[600];
	FILE *f = fopen("systemd/fbripple.service", "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, "ExecStart=", 10) == 0;
	fclose(f);
	assert_true(found);
	replace_word(line, sizeof(line), "@BINDIR@", "/usr/bin");
	replace_word(line, sizeof(line), "@SYSCONFDIR@", "/etc");
	snprintf(out, sizeof(out), "exec %s", line + 10);
	printf("# the unit's ExecStart in the guest: %s", out + 5);
	tu_write(path, out);
}

struct colour_check {
	uint32_t want;
	bool not;
};

/* The middle and two corners of the screen are want (or, with not, the middle is not). */
static int check_colour(const struct image *img, void *ctx, char *why, size_t len)
{
	const struct colour_check *c = ctx;
	int xs[] = { img->width / 2, 40, img->width - 40 }, ys[] = { img->height / 2, 40,
								     img->height - 40 };

	if (c->not) {
		uint32_t got = img->pixels[(size_t)ys[0] * img->width + xs[0]] & 0xffffff;

		if (!vm_colour_near(got, c->want, 24))
			return 0;
		snprintf(why, len, "the middle is still #%06x", got);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (vm_check_pixel(img, xs[i], ys[i], c->want, 24, why, len))
			return -1;
	return 0;
}

static void expect_screen(struct vm_suite *s, uint32_t want, bool not)
{
	struct colour_check c = { want, not };

	vm_case_wait_screen(s, 5000, check_colour, &c);
}

static void expect_line(struct vm_suite *s, const char *text, char *line, size_t len)
{
	if (vm_expect_line(&s->vm, text, 20000, line, len))
		fail_msg("no \"%s\" from the guest", text);
}

static void test_unit_execstart(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	char dir[] = "/tmp/fbvm-svc.XXXXXX", conf[256], line[512];
	const char *paths[6];
	struct vm_file files[7];
	struct vm_opts o = { .display = VM_BOCHS, .width = 640, .height = 480, .script = script,
			     .timeout_ms = 90000, .name = "service" };

	if (!s->have_fbripple)
		fail_msg("no fbripple binary for the guest (FBRIPPLE_BIN)");
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 6; i++)
		paths[i] = strdup(tu_path(dir, (const char *[]){ "red.png", "blue.png", "red.conf",
			"blue.conf", "bad.conf", "execstart.sh" }[i]));
	write_solid(paths[0], RED);
	write_solid(paths[1], BLUE);
	snprintf(conf, sizeof(conf), "splash = { image = \"/etc/fbvm/red.png\"; };\n");
	tu_write(paths[2], conf);
	snprintf(conf, sizeof(conf), "splash = { image = \"/etc/fbvm/blue.png\"; };\n"
		 "display = { fps = 30; };\n");
	tu_write(paths[3], conf);
	snprintf(conf, sizeof(conf), "splash = { image = \"/etc/fbvm/red.png\"; };\n"
		 "stone = {\n size = 1000;\n};\n");
	tu_write(paths[4], conf);
	write_execstart(paths[5]);
	for (int i = 0; i < 6; i++) {
		char dest[64];

		snprintf(dest, sizeof(dest), "/etc/fbvm/%s", strrchr(paths[i], '/') + 1);
		files[i] = (struct vm_file){ paths[i], strdup(dest) };
	}
	files[6] = (struct vm_file){ NULL, NULL };
	o.files = files;

	vm_case_start(s, &o);
	expect_line(s, "status ", line, sizeof(line));
	printf("# started: %s\n", line);
	assert_non_null(strstr(line, "ok fps="));
	vm_case_expect(s, "started", 5000);
	expect_screen(s, RED, false);

	assert_int_equal(vm_send(&s->vm, "reload"), 0);
	expect_line(s, "status ", line, sizeof(line));
	printf("# reloaded: %s\n", line);
	assert_non_null(strstr(line, "target=30"));
	vm_case_expect(s, "reloaded", 5000);
	expect_screen(s, BLUE, false);

	assert_int_equal(vm_send(&s->vm, "bad"), 0);
	expect_line(s, "reply ", line, sizeof(line));
	printf("# refused: %s\n", line);
	assert_non_null(strstr(line, "error: /etc/fbripple.conf:3: stone.size"));
	expect_line(s, "status ", line, sizeof(line));
	assert_non_null(strstr(line, "target=30"));
	vm_case_expect(s, "refused", 5000);
	expect_screen(s, BLUE, false);

	assert_int_equal(vm_send(&s->vm, "stop"), 0);
	expect_line(s, "stopped ", line, sizeof(line));
	assert_string_equal(line, "stopped 0");
	expect_screen(s, BLUE, true);	/* the console is back */
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect_exit(s, 0);
	for (int i = 0; i < 6; i++) {
		unlink(paths[i]);
		free((void *)paths[i]);
		free((void *)files[i].dest);
	}
	rmdir(dir);
}

static int suite_setup(void **state)
{
	return vm_suite_setup(state, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_unit_execstart, vm_case_teardown),
	};

	return cmocka_run_group_tests(tests, suite_setup, vm_suite_teardown);
}
