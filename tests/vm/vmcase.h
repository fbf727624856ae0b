/* vmcase.h - the cmocka side of the VM tests: one guest image per program, one guest per case,
 * expectations that fail with what the guest said and showed. */
#ifndef FBRIPPLE_VMCASE_H
#define FBRIPPLE_VMCASE_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "vm.h"

struct vm_suite {
	int available;
	char why[512];
	char helpers[512];	/* directory of the static guest helpers, beside the test program */
	int have_fbripple;	/* $FBRIPPLE_BIN is in the guest as /usr/bin/fbripple */
	struct vm_base base;
	struct vm vm;
	long start_ms;
	int cases;
};

/* cmocka group setup and teardown: the base image holds the guest helpers, fbripple and extra
 * (NULL-terminated "HOSTFILE=/GUESTPATH" entries, may be NULL). */
int vm_suite_setup(void **state, const char *const *extra);
int vm_suite_teardown(void **state);

/* Per case: skips with "SKIP: reason" when there is no VM; the teardown always stops the guest. */
struct vm_suite *vm_case_begin(void **state);
int vm_case_teardown(void **state);

void vm_case_start(struct vm_suite *s, const struct vm_opts *o);
void vm_case_expect(struct vm_suite *s, const char *text, int timeout_ms);
void vm_case_expect_exit(struct vm_suite *s, int status);

/* Takes screendumps until check returns 0, failing the test with check's last reason after
 * timeout_ms. */
typedef int vm_screen_check(const struct image *img, void *ctx, char *why, size_t len);
void vm_case_wait_screen_at(const char *file, int line, struct vm_suite *s, int timeout_ms,
			    vm_screen_check *check, void *ctx);
/* A failure names the caller's line: a case waits for the screen at many steps. */
#define vm_case_wait_screen(s, timeout_ms, check, ctx) \
	vm_case_wait_screen_at(__FILE__, __LINE__, s, timeout_ms, check, ctx)

/* Per channel within tol. */
int vm_colour_near(uint32_t got, uint32_t want, int tol);

/* 0, or a reason: pixel (x, y) of img is not want (0xRRGGBB) within tol. */
int vm_check_pixel(const struct image *img, int x, int y, uint32_t want, int tol, char *why,
		   size_t len);

long vm_now_ms(void);

#endif
