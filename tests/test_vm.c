/* test_vm.c - end-to-end tests in a QEMU guest running Debian's kernel: real fbdev drivers
 * (bochs, vesafb 16/24 bpp, virtio-gpu), uinput and virtio-tablet input, dynamic programs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vm/vmcase.h"

/* A host file handed to the guest, to prove files reach it. */
static char hello[64];

static int write_hello(void)
{
	snprintf(hello, sizeof(hello), "/tmp/fbvm-hello.XXXXXX");
	int fd = mkstemp(hello);
	if (fd < 0)
		return -errno;
	int ok = write(fd, "hello from the host\n", 20) == 20;
	close(fd);
	return ok ? 0 : -EIO;
}

static int suite_setup(void **state)
{
	static const char *const extra[] = { "/usr/bin/xz=/usr/local/bin/xz", NULL };

	if (write_hello())
		return -1;
	return vm_suite_setup(state, extra);
}

static int suite_teardown(void **state)
{
	unlink(hello);
	return vm_suite_teardown(state);
}

/* ---- pixels ---- */

/* Bands painted top to bottom by fbfill: samples each band's middle row and its edges. */
static int check_bands(const struct image *img, const uint32_t *colors, int n, int tol,
		       char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		int top = img->height * i / n, bottom = img->height * (i + 1) / n - 1;
		int xs[] = { 16, img->width / 2, img->width - 1 };
		int ys[] = { (top + bottom) / 2, bottom, top == 0 ? 20 : top };
		for (int k = 0; k < 9; k++)
			if (vm_check_pixel(img, xs[k % 3], ys[k / 3], colors[i], tol, why, len))
				return -1;
	}
	return 0;
}

struct bands {
	int width, height;
	const uint32_t *colors;
	int n, tol;
};

static int check_screen_bands(const struct image *img, void *ctx, char *why, size_t len)
{
	const struct bands *b = ctx;

	if (img->width != b->width || img->height != b->height) {
		snprintf(why, len, "screendump is %dx%d, expected %dx%d", img->width, img->height,
			 b->width, b->height);
		return -1;
	}
	return check_bands(img, b->colors, b->n, b->tol, why, len);
}

/* Screendumps until the bands show (virtio-gpu reaches the host a little after msync). */
static void expect_bands(struct vm_suite *s, int width, int height, const uint32_t *colors,
			 int n, int tol)
{
	struct bands b = { width, height, colors, n, tol };

	vm_case_wait_screen(s, 3000, check_screen_bands, &b);
}

/* ---- the cases ---- */

/* The guest reports the fb's sysfs attributes, paints bands, reports the geometry from the
 * ioctls, and keeps the screen until the host says bye. */
#define PAINT_SCRIPT(colors) \
	"fbinfo fb0\n" \
	"say \"$(/bin/fbfill -g -i " colors ")\"\n" \
	"say painted\n" \
	"hear cmd\n" \
	"[ \"$cmd\" = bye ] || exit 3\n"

/* What a display case expects: the sysfs name and depth, and fbfill's ioctl line. */
struct fb_expect {
	const char *name;
	int bpp;
	const char *ioctl_line;
	int tol;	/* per channel, in the screendump */
};

static void expect_sysfs(struct vm_suite *s, const struct vm_opts *o, const struct fb_expect *e)
{
	char line[128];

	snprintf(line, sizeof(line), "fbinfo name=%s", e->name);
	vm_case_expect(s, line, 30000);
	snprintf(line, sizeof(line), "fbinfo bits_per_pixel=%d", e->bpp);
	vm_case_expect(s, line, 2000);
	snprintf(line, sizeof(line), "fbinfo virtual_size=%d,%d", o->width, o->height);
	vm_case_expect(s, line, 2000);
	snprintf(line, sizeof(line), "fbinfo stride=%d", o->width * e->bpp / 8);
	vm_case_expect(s, line, 2000);
}

static void paint_case(void **state, struct vm_opts *o, const struct fb_expect *e)
{
	static const uint32_t colors[] = { 0xff0000, 0x00ff00, 0x0000ff, 0xffffff };
	struct vm_suite *s = vm_case_begin(state);

	o->script = PAINT_SCRIPT("ff0000 00ff00 0000ff ffffff");
	vm_case_start(s, o);
	expect_sysfs(s, o, e);
	vm_case_expect(s, e->ioctl_line, 10000);
	vm_case_expect(s, "painted", 10000);
	expect_bands(s, o->width, o->height, colors, 4, e->tol);
	assert_int_equal(vm_send(&s->vm, "bye"), 0);
	vm_case_expect_exit(s, 0);
}

static void test_bochs(void **state)
{
	struct vm_opts o = { .display = VM_BOCHS, .width = 640, .height = 480,
			     .name = "bochs 640x480" };
	struct fb_expect e = { "bochs-drmdrmfb", 32, "fb id=bochs-drmdrmfb 640x480 "
			       "virtual=640x480 bpp=32 stride=2560 red=16/8 green=8/8 blue=0/8", 0 };

	paint_case(state, &o, &e);
}

static void test_vesa_16bpp(void **state)
{
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x311, .width = 640, .height = 480,
			     .name = "vesa 0x311 640x480x16" };
	/* RGB565 expands to 8 bits in the screendump without filling the low bits. */
	struct fb_expect e = { "VESA VGA", 16, "fb id=VESA VGA 640x480 virtual=640x480 bpp=16 "
			       "stride=1280 red=11/5 green=5/6 blue=0/5", 8 };

	paint_case(state, &o, &e);
}

static void test_vesa_24bpp(void **state)
{
	struct vm_opts o = { .display = VM_VESA, .vga_mode = 0x312, .width = 640, .height = 480,
			     .name = "vesa 0x312 640x480x24" };
	struct fb_expect e = { "VESA VGA", 24, "fb id=VESA VGA 640x480 virtual=640x480 bpp=24 "
			       "stride=1920 red=16/8 green=8/8 blue=0/8", 0 };

	paint_case(state, &o, &e);
}

static void test_virtio_gpu(void **state)
{
	struct vm_opts o = { .display = VM_VIRTIO, .width = 800, .height = 600,
			     .name = "virtio-gpu 800x600" };
	struct fb_expect e = { "virtio_gpudrmfb", 32, "fb id=virtio_gpudrmfb 800x600 "
			       "virtual=800x600 bpp=32 stride=3200 red=16/8 green=8/8 blue=0/8", 0 };

	paint_case(state, &o, &e);
}

static void test_uinput_touch(void **state)
{
	struct vm_opts o = { .display = VM_NONE, .name = "uinput touchscreen", .script =
		"mkfifo /tmp/touch\n"
		"/bin/uinput-dev mt 'fbvm touch' 0 639 0 479 </tmp/touch >/tmp/node &\n"
		"exec 4>/tmp/touch\n"
		"n=0; while ! grep -q event /tmp/node && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"say \"$(cat /tmp/node)\"\n"
		"grep -A6 'Name=\"fbvm touch\"' /proc/bus/input/devices | while read -r l; do say \"dev $l\"; done\n"
		"/bin/evdump 'fbvm touch' 8 5000 >/tmp/ev &\n"
		"n=0; while ! grep -q evdump: /tmp/ev && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done\n"
		"echo 'tap 100 200' >&4\n"
		"wait $!; say \"evdump exit $?\"\n"
		"while read -r l; do say \"$l\"; done </tmp/ev\n"
		"exec 4>&-; wait\n" };
	struct vm_suite *s = vm_case_begin(state);
	char line[256], node[64];

	vm_case_start(s, &o);
	if (vm_expect_line(&s->vm, "uinput-dev: /dev/input/event", 30000, line, sizeof(line)))
		fail_msg("the uinput device got no /dev/input/event node");
	snprintf(node, sizeof(node), "%s", strrchr(line, '/') + 1);
	vm_case_expect(s, "dev N: Name=\"fbvm touch\"", 5000);
	if (vm_expect_line(&s->vm, "dev H: Handlers=", 2000, line, sizeof(line)))
		fail_msg("no Handlers line for the uinput device");
	if (!strstr(line, node))
		fail_msg("handlers '%s' do not include %s", line, node);
	vm_case_expect(s, "dev B: PROP=2", 2000);	/* INPUT_PROP_DIRECT */
	vm_case_expect(s, "evdump exit 0", 10000);
	vm_case_expect(s, "ev 3 57 0", 2000);		/* ABS_MT_TRACKING_ID */
	vm_case_expect(s, "ev 1 330 1", 2000);		/* BTN_TOUCH down */
	vm_case_expect(s, "ev 3 53 100", 2000);		/* ABS_MT_POSITION_X */
	vm_case_expect(s, "ev 3 54 200", 2000);		/* ABS_MT_POSITION_Y */
	vm_case_expect(s, "ev 0 0 0", 2000);		/* SYN_REPORT */
	vm_case_expect(s, "ev 3 57 -1", 2000);		/* contact lifted */
	vm_case_expect(s, "ev 1 330 0", 2000);
	vm_case_expect_exit(s, 0);
}

static void test_virtio_tablet(void **state)
{
	static const char *const qemu[] = { "-device", "virtio-tablet-pci", NULL };
	struct vm_opts o = { .display = VM_NONE, .qemu_args = qemu, .name = "virtio tablet",
		.script =
		"grep 'QEMU Virtio Tablet' /proc/bus/input/devices | while read -r l; do say \"dev $l\"; done\n"
		"/bin/evdump 'QEMU Virtio Tablet' 4 15000 | while read -r l; do say \"$l\"; done\n" };
	static const char *const send =
		"{\"execute\":\"input-send-event\",\"arguments\":{\"events\":["
		"{\"type\":\"abs\",\"data\":{\"axis\":\"x\",\"value\":16384}},"
		"{\"type\":\"abs\",\"data\":{\"axis\":\"y\",\"value\":8192}},"
		"{\"type\":\"btn\",\"data\":{\"down\":true,\"button\":\"left\"}}]}}";
	struct vm_suite *s = vm_case_begin(state);
	char reply[512];

	vm_case_start(s, &o);
	vm_case_expect(s, "dev N: Name=\"QEMU Virtio Tablet\"", 30000);
	vm_case_expect(s, "evdump: /dev/input/event", 5000);
	if (vm_qmp(&s->vm, send, reply, sizeof(reply)))
		fail_msg("input-send-event: %s", reply);
	vm_case_expect(s, "ev 3 0 16384", 5000);	/* ABS_X */
	vm_case_expect(s, "ev 3 1 8192", 2000);		/* ABS_Y */
	vm_case_expect(s, "ev 1 272 1", 2000);		/* BTN_LEFT */
	vm_case_expect(s, "ev 0 0 0", 2000);
	vm_case_expect_exit(s, 0);
}

static void test_dynamic_program(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	const struct vm_file files[] = { { hello, "/usr/share/fbvm-test/hello.txt" },
					 { NULL, NULL } };
	struct vm_opts o = { .display = VM_NONE, .name = "dynamic program + files", .files = files,
		.script =
		"say \"xz: $(/usr/local/bin/xz --version 2>&1 | head -n 1)\"\n"
		"say \"file: $(cat /usr/share/fbvm-test/hello.txt)\"\n"
		"if [ -x /usr/bin/fbripple ]; then\n"
		"  out=$(/usr/bin/fbripple --version 2>&1); rc=$?\n"
		"  say \"fbripple: exit $rc: $out\"\n"
		"else say 'fbripple: absent'; fi\n" };
	char line[512];

	vm_case_start(s, &o);
	vm_case_expect(s, "xz: xz (XZ Utils)", 30000);
	vm_case_expect(s, "file: hello from the host", 2000);
	if (vm_expect_line(&s->vm, "fbripple: ", 5000, line, sizeof(line)))
		fail_msg("no fbripple line");
	printf("# vm: guest %s\n", line);
	if (s->have_fbripple && !strstr(line, "exit 0"))
		fail_msg("fbripple --version failed in the guest: %s", line);
	vm_case_expect_exit(s, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_bochs, vm_case_teardown),
		cmocka_unit_test_teardown(test_vesa_16bpp, vm_case_teardown),
		cmocka_unit_test_teardown(test_vesa_24bpp, vm_case_teardown),
		cmocka_unit_test_teardown(test_virtio_gpu, vm_case_teardown),
		cmocka_unit_test_teardown(test_uinput_touch, vm_case_teardown),
		cmocka_unit_test_teardown(test_virtio_tablet, vm_case_teardown),
		cmocka_unit_test_teardown(test_dynamic_program, vm_case_teardown),
	};

	if (getenv("FBRIPPLE_TEST_FILTER"))
		cmocka_set_test_filter(getenv("FBRIPPLE_TEST_FILTER"));
	return cmocka_run_group_tests_name("vm", tests, suite_setup, suite_teardown);
}
