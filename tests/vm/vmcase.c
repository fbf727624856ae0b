/* vmcase.c - the cmocka side of the VM tests: suites, cases, expectations on guest and screen. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmcase.h"

#define BOOT_MS 30000

long vm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* The guest helpers are built next to the test program, in vm/ (see the Makefile). */
static int find_helpers(struct vm_suite *s)
{
	char exe[400], path[600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -errno;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(s->helpers, sizeof(s->helpers), "%s/vm", exe);
	snprintf(path, sizeof(path), "%s/fbfill", s->helpers);
	return access(path, X_OK) ? -errno : 0;
}

static int build_base(struct vm_suite *s, const char *const *extra)
{
	static const char *const helpers[] = { "fbfill", "evdump", "uinput-dev", "ctlping",
						"drmhold", "vtstate" };
	enum { NHELPERS = sizeof(helpers) / sizeof(helpers[0]) };
	char paths[NHELPERS + 1][600];
	const char *files[32];
	const char *bin = getenv("FBRIPPLE_BIN");
	int n = 0;

	for (int i = 0; i < NHELPERS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", s->helpers, helpers[i]);
		files[n++] = paths[i];
	}
	s->have_fbripple = bin && access(bin, X_OK) == 0;
	if (s->have_fbripple) {
		snprintf(paths[NHELPERS], sizeof(paths[NHELPERS]), "%s=/usr/bin/fbripple", bin);
		files[n++] = paths[NHELPERS];
	}
	for (; extra && *extra && n < 31; extra++)
		files[n++] = *extra;
	files[n] = NULL;
	return vm_base_build(&s->base, files);
}

int vm_suite_setup(void **state, const char *const *extra)
{
	struct vm_suite *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	*state = s;
	s->start_ms = vm_now_ms();
	s->available = vm_available(s->why, sizeof(s->why));
	if (!s->available)
		return 0;
	if (find_helpers(s)) {
		fprintf(stderr, "vm: guest helpers missing in %s (build them with make)\n",
			s->helpers);
		return -1;
	}
	if (build_base(s, extra))
		return -1;
	printf("# vm: base initramfs ready in %.1f s\n", (vm_now_ms() - s->start_ms) / 1000.0);
	return 0;
}

int vm_suite_teardown(void **state)
{
	struct vm_suite *s = *state;

	vm_stop(&s->vm);
	vm_base_free(&s->base);
	printf("# vm: %d cases, %.1f s in all\n", s->cases, (vm_now_ms() - s->start_ms) / 1000.0);
	free(s);
	return 0;
}

struct vm_suite *vm_case_begin(void **state)
{
	struct vm_suite *s = *state;

	if (!s->available) {
		printf("SKIP: %s\n", s->why);
		skip();
	}
	s->cases++;
	return s;
}

int vm_case_teardown(void **state)
{
	vm_stop(&((struct vm_suite *)*state)->vm);
	return 0;
}

/*
 * Under TCG a guest now and then stalls in early boot and never reaches /init (seen once in
 * a few hundred boots). That says nothing about fbripple, so such a guest is booted once more;
 * one that reached /init and then failed is never retried.
 */
void vm_case_start(struct vm_suite *s, const struct vm_opts *o)
{
	for (int attempt = 1;; attempt++) {
		int rc = vm_start(&s->vm, &s->base, o);

		if (rc)
			fail_msg("vm_start(%s): %s", o->name, strerror(-rc));
		if (vm_expect(&s->vm, "fbvm-boot", BOOT_MS) == 0)
			return;
		vm_stop(&s->vm);
		if (attempt == 2)
			fail_msg("%s: the guest did not reach /init in %d s, twice", o->name,
				 BOOT_MS / 1000);
		printf("# vm[%s]: the guest did not reach /init in %d s; booting it once more\n",
		       o->name, BOOT_MS / 1000);
	}
}

void vm_case_expect(struct vm_suite *s, const char *text, int timeout_ms)
{
	int rc = vm_expect(&s->vm, text, timeout_ms);

	if (rc)
		fail_msg("%s: expected '%s' from the guest: %s", s->vm.name, text, strerror(-rc));
}

void vm_case_expect_exit(struct vm_suite *s, int status)
{
	int rc = vm_wait_exit(&s->vm, 15000);

	if (rc != status) {
		vm_print_console(&s->vm, 30);
		fail_msg("%s: case exit status: expected %d, got %d", s->vm.name, status, rc);
	}
}

void vm_case_wait_screen_at(const char *file, int line, struct vm_suite *s, int timeout_ms,
			    vm_screen_check *check, void *ctx)
{
	char why[256] = "no screendump yet";
	long end = vm_now_ms() + timeout_ms;

	for (;;) {
		struct image img = { 0 };
		int rc = vm_screendump(&s->vm, &img);
		bool seen;

		if (rc)
			fail_msg("%s: screendump: %s", s->vm.name, strerror(-rc));
		seen = check(&img, ctx, why, sizeof(why)) == 0;
		free(img.pixels);
		if (seen)
			return;
		if (vm_now_ms() > end)
			break;
		usleep(150000);
	}
	vm_print_console(&s->vm, 20);
	fail_msg("%s:%d: %s: after %.1f s of screendumps: %s", file, line, s->vm.name,
		 timeout_ms / 1000.0, why);
}

int vm_colour_near(uint32_t got, uint32_t want, int tol)
{
	for (int sh = 0; sh < 24; sh += 8) {
		int d = (int)(got >> sh & 0xff) - (int)(want >> sh & 0xff);

		if (d > tol || d < -tol)
			return 0;
	}
	return 1;
}

int vm_check_pixel(const struct image *img, int x, int y, uint32_t want, int tol, char *why,
		   size_t len)
{
	uint32_t got = img->pixels[(size_t)y * img->width + x] & 0xffffff;

	if (vm_colour_near(got, want, tol))
		return 0;
	snprintf(why, len, "pixel (%d,%d) is #%06x, expected #%06x (+-%d per channel)", x, y, got,
		 want, tol);
	return -1;
}
