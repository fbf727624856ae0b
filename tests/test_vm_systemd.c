/* test_vm_systemd.c - fbripple under a real systemd: Debian 12 booted in QEMU with systemd as
 * PID 1 and udev, fbripple installed from its .deb with dpkg, driven with systemctl and
 * journalctl, then upgraded over itself, removed and purged, all in the same boot. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "image/image.h"
#include "testutil.h"
#include "vm/vmcase.h"

#define W 640
#define H 480
#define RED 0xd02020u
#define BLUE 0x2040e0u
#define BOOT_MS 150000		/* systemd under TCG on a loaded machine: 15-25 s, rarely more */
#define STEP_MS 60000

/* The guest's side, step by step; every line the host checks starts with a keyword. */
static const char script[] =
	"H=/fbvm/bin F=/fbvm/files\n"
	"st() { systemctl show -P \"$1\" fbripple; }\n"
	"mono() { $H/fbfill -t | cut -d' ' -f2; }\n"
	"fds() { for f in /proc/$1/fd/*; do readlink $f 2>/dev/null; done; }\n"
	"waitfor() { n=0; until eval \"$1\"; do n=$((n+1)); [ $n -ge $(($2*10)) ] && return 1;"
	" sleep 0.1; done; }\n"
	"pkg() { dpkg-query -W -f='${Status}' fbripple 2>/dev/null | tr ' ' _; }\n"
	"md5() { md5sum <$1 | cut -d' ' -f1; }\n"
	"guards() { pgrep -c -x fbripple-guard; }\n"
	"wants() { ls /etc/systemd/system/multi-user.target.wants | grep -c '^fbripple.service$'; }\n"
	/* udev loads bochs by itself, late: wait for it as an enabled unit would have to */
	"udevadm settle -t 60; waitfor '[ -e /dev/fb0 ]' 30\n"
	"say \"booted $(systemctl is-system-running)\"\n"
	"hear install\n"
	/* the package's postinst enables and starts the unit (dh_installsystemd's snippets) */
	"t0=$(mono); out=$(dpkg -i $F/fbripple.deb 2>&1); rc=$?; ms=$((($(mono) - t0) / 1000)); [ $rc = 0 ] || echo \"$out\"\n"
	"pid=$(st MainPID)\n"
	"say \"installed rc=$rc $(systemctl is-active fbripple) $(systemctl is-enabled fbripple)"
	" exe=$(readlink /proc/$pid/exe) wants=$(wants) pkg=$(pkg) conf=$(md5 /etc/fbripple.conf)"
	" dist=$(dpkg-query -W -f='${Conffiles}' fbripple | cut -d' ' -f3) text=$(st StatusText) ms=$ms\"\n"
	/* the integrator edits the conffile, and the cases below start the unit with it */
	"systemctl stop fbripple; cp $F/red.conf /etc/fbripple.conf\n"
	"hear go\n"
	/* start: active only once the splash is in the framebuffer */
	"$H/fbfill -w d02020 >/tmp/splash & w=$!\n"
	"t0=$(mono); systemctl start fbripple; rc=$?; t1=$(mono)\n"
	"now=$($H/fbfill -w d02020 | cut -d' ' -f4); wait $w\n"
	"say \"started rc=$rc t0=$t0 t1=$t1 splash=$(cut -d' ' -f2 /tmp/splash) samples=$now"
	" main=$(st ExecMainStartTimestampMonotonic) ready=$(st ActiveEnterTimestampMonotonic)\"\n"
	"pid=$(st MainPID)\n"
	"journalctl -b -u fbripple -o short-monotonic --no-pager | while read -r l; do"
	" say \"journal $l\"; done; say journal-end\n"
	"say \"status $(st StatusText)\"\n"
	"say \"creds $(ps -o user=,supgrp= -p $pid | tr -s ' ') fb=$(fds $pid | grep -c '^/dev/fb0$')\"\n"
	/* a touchscreen plugged in after start: udev tells fbripple, which opens it */
	"mkfifo /tmp/touch\n"
	"$H/uinput-dev mt 'fbvm touch' 0 639 0 479 </tmp/touch >/tmp/touch.out 2>&1 &\n"
	"exec 4>/tmp/touch\n"
	"waitfor 'grep -q /dev/input/event /tmp/touch.out' 10\n"
	"node=$(sed -n 's|.*\\(/dev/input/event[0-9]*\\).*|\\1|p' /tmp/touch.out)\n"
	"waitfor \"fds $pid | grep -qx $node\" 20; ok=$?\n"
	"say \"touch opened=$ok $(ls -l $node | cut -d' ' -f1,3,4)\"\n"
	"hear tap\n"
	"echo 'tap 200 300' >&4; sleep 0.3\n"
	"say tapped\n"
	"hear reload\n"
	/* a reload with a change: synchronous, never a black frame */
	"cp $F/blue.conf /etc/fbripple.conf\n"
	"$H/fbfill -b 4000 >/tmp/black & w=$!\n"
	"out=$(systemctl reload fbripple 2>&1); rc=$?; now=$(st StatusText); wait $w\n"
	"say \"reloaded rc=$rc $(cat /tmp/black) status=$now out=$out"
	" nice=$(ps -L -o nice= -p $pid | sort -n | uniq | tr -d ' ' | tr '\\n' ,)\"\n"
	"hear switch\n"
	"timeout 10 chvt 1; rc=$?\n"
	/* STATUS= follows the VT switch as soon as the daemon has let go */
	"for i in $(seq 20); do t=$(st StatusText); case $t in paused*) break;; esac; sleep 0.1; done\n"
	"say \"on1 rc=$rc $($H/vtstate /dev/tty7) text=$t\"\n"
	"hear back\n"
	"timeout 10 chvt 7; rc=$?\n"
	"say \"on7 rc=$rc $($H/vtstate /dev/tty7)\"\n"
	"hear bad\n"
	/* a broken file: the reload fails and says where, the daemon goes on */
	"cp $F/bad.conf /etc/fbripple.conf\n"
	"out=$(systemctl reload fbripple 2>&1); rc=$?\n"
	"say \"badreload rc=$rc out=$(echo \"$out\" | tr '\\n' ' ')\"\n"
	"say \"badstatus $(systemctl status --no-pager -l -n 20 fbripple 2>&1 | grep -c '/etc/fbripple.conf:3')"
	" text=$(st StatusText)\"\n"
	"say \"still $(systemctl is-active fbripple) pid=$(st MainPID) was=$pid\"\n"
	"systemctl status --no-pager -l -n 20 fbripple\n"
	"hear again\n"
	"timeout 10 chvt 2; rc=$?; timeout 10 chvt 7; say \"again rc=$rc,$? $($H/vtstate /dev/tty7)\"\n"
	"cp $F/blue.conf /etc/fbripple.conf\n"
	"hear sockoff\n"
	/* an edit that turns the control socket off, and one that brings it back: ExecReload=
	 * has no socket to ask either time, and reaches the daemon by $MAINPID */
	"{ cat $F/blue.conf; echo 'control = { socket = \"\"; };'; } >/etc/fbripple.conf\n"
	"systemctl reload fbripple; rc=$?; waitfor '[ ! -S /run/fbripple/control ]' 5\n"
	"cp $F/blue.conf /etc/fbripple.conf\n"
	"systemctl reload fbripple; rc2=$?; waitfor '[ -S /run/fbripple/control ]' 5; ok=$?\n"
	"say \"sockoff rc=$rc,$rc2 back=$ok pid=$(st MainPID) was=$pid"
	" hup=$(journalctl -b -u fbripple -o cat | grep -c 'sent SIGHUP to the daemon')\"\n"
	"hear watchdog\n"
	/* a hung daemon: the watchdog restarts it */
	"kill -STOP $pid\n"
	"waitfor '[ \"$(st NRestarts)\" = 1 ] && [ \"$(systemctl is-active fbripple)\" = active ]' 60;"
	" ok=$?\n"
	"say \"watchdog ok=$ok pid=$(st MainPID) was=$pid"
	" logged=$(journalctl -b -u fbripple -o cat | grep -c 'Watchdog timeout')\"\n"
	"hear kill\n"
	/* SIGKILL, a restart, then a clean stop gives the console back in text mode */
	"pid=$(st MainPID); kill -KILL $pid\n"
	"waitfor '[ \"$(st NRestarts)\" = 2 ] && [ \"$(systemctl is-active fbripple)\" = active ]' 60;"
	" ok=$?\n"
	"say \"killed ok=$ok $($H/vtstate /dev/tty7) guards=$(guards)\"\n"
	"hear stop\n"
	"systemctl stop fbripple; rc=$?\n"
	"say \"stopped rc=$rc $($H/vtstate /dev/tty7) guards=$(guards)\"\n"
	"hear drm\n"
	/* the unit on the DRM card, as display.device = \"auto\" finds it; the edited conffile
	 * back afterwards, for the package's steps */
	"cp /etc/fbripple.conf /tmp/conf.before; cp $F/drm.conf /etc/fbripple.conf\n"
	"systemctl start fbripple; rc=$?; pid=$(st MainPID)\n"
	"say \"drm rc=$rc card=$(fds $pid | grep -c '^/dev/dri/card0$')"
	" $(fbripple -c /etc/fbripple.conf --send status)\"\n"
	"hear drmstop\n"
	"systemctl stop fbripple; rc=$?; cp /tmp/conf.before /etc/fbripple.conf\n"
	"say \"drmstopped rc=$rc $($H/vtstate /dev/tty7) guards=$(guards)\"\n"
	"hear kiosk\n"
	/* beside a kiosk application on tty1: the unit in idle mode on the DRM card (the default
	 * display.device), with the package's kiosk drop-in as the README says to install it */
	"cp /etc/fbripple.conf /tmp/conf.before; cp $F/kiosk.conf /etc/fbripple.conf\n"
	"D=/etc/systemd/system/fbripple.service.d; mkdir -p $D\n"
	"cp /usr/share/doc/fbripple/examples/fbripple-kiosk.conf $D/kiosk.conf; systemctl daemon-reload\n"
	"ss() { fbripple -c /etc/fbripple.conf --send status 2>&1 | grep -o 'screensaver=[a-z]*'; }\n"
	"front() { $H/vtstate /dev/tty1 | grep -o 'active=[0-9]*'; }\n"
	"count() { cat /tmp/app.count 2>/dev/null; }\n"
	"$H/kioskapp /dev/tty1 'fbvm touch' /run/fbripple/control >/tmp/app.out 2>&1 & app=$!\n"
	"waitfor 'grep -q drawn /tmp/app.out' 10\n"
	"t0=$(mono); systemctl start fbripple; rc=$?\n"
	"waitfor '[ \"$(ss)\" = screensaver=hidden ]' 10\n"
	"echo 'tap 100 100' >&4; sleep 0.3\n"
	"say \"kiosk hidden rc=$rc $(ss) $(front) count=$(count) tty1=$(stat -c %a:%G /dev/tty1)"
	" $(cat /tmp/app.out) exposure=$(systemd-analyze security fbripple 2>/dev/null |"
	" sed -n 's/.*exposure level for fbripple.service: *\\([0-9.]*\\).*/\\1/p')\"\n"
	"hear kioskshow\n"
	"waitfor '[ \"$(ss)\" = screensaver=shown ]' 20\n"
	"say \"kiosk shown $(ss) $(front) count=$(count)\"\n"
	"hear kiosktap\n"
	"echo 'tap 500 400' >&4\n"
	"waitfor '[ \"$(ss)\" = screensaver=hidden ]' 10; sleep 0.3\n"
	"say \"kiosk tapped $(ss) $(front) count=$(count) ms=$((($(mono) - t0) / 1000))\"\n"
	"hear kioskdrm\n"
	/* a DRM application on tty1 instead, started after the unit: the unit's descriptor was the
	 * card's first master, so it takes master back without CAP_SYS_ADMIN when shown */
	"kill $app; wait $app; $H/drmapp /dev/tty1 >/tmp/drmapp 2>&1 & app=$!\n"
	"waitfor 'grep -q drawn /tmp/drmapp' 10\n"
	"fbripple --send show >/dev/null; waitfor '[ \"$(ss)\" = screensaver=shown ]' 10\n"
	"waitfor 'tail -n 1 /tmp/drmapp | grep -q release' 5\n"
	"say \"kiosk drm shown $(ss) $(front) $(tail -n 1 /tmp/drmapp)\"\n"
	"hear kioskdrmdrop\n"
	"fbripple --send 'drop 320 240' >/dev/null; sleep 0.3\n"
	"say \"kiosk drm dropped unrippled=$(journalctl -b -o cat _SYSTEMD_INVOCATION_ID=$(st"
	" InvocationID) | grep -c 'cannot ripple')\"\n"
	"hear kioskdrmhide\n"
	"fbripple --send hide >/dev/null; waitfor '[ \"$(ss)\" = screensaver=hidden ]' 10\n"
	"waitfor 'tail -n 1 /tmp/drmapp | grep -q acquire' 5; sleep 0.3\n"
	"say \"kiosk drm hidden $(ss) $(front) $(tail -n 1 /tmp/drmapp)\"\n"
	"hear kiosknodropin\n"
	/* each line of the drop-in is needed: without it, or with one half, shown by command, the
	 * unit cannot take tty7 and says why */
	"E=/usr/share/doc/fbripple/examples/fbripple-kiosk.conf\n"
	"for v in none group cap; do systemctl stop fbripple\n"
	" case $v in none) rm $D/kiosk.conf;; group) grep -v Capabilities= $E >$D/kiosk.conf;;"
	" cap) grep -v SupplementaryGroups= $E >$D/kiosk.conf;; esac\n"
	" systemctl daemon-reload; systemctl start fbripple; fbripple --send show >/dev/null\n"
	" say \"kiosk only-$v $(ss) $(front) $(journalctl -b -o cat"
	" _SYSTEMD_INVOCATION_ID=$(st InvocationID) | grep -o 'VT 7: .*' | head -n 1 | tr ' ' _)\"\n"
	"done\n"
	"systemctl stop fbripple; rm -r $D; systemctl daemon-reload; kill $app; wait $app\n"
	"cp /tmp/conf.before /etc/fbripple.conf\n"
	"say \"kiosk done $($H/vtstate /dev/tty1)\"\n"
	"hear bench\n"
	/* fbripple's own start-up work headless, best of 3, to compare with the host */
	"best=0; for i in 1 2 3; do t0=$(mono);"
	" fbripple --fbdev /dev/shm/fb --size 640x480 --frames 0 2>/dev/null; t=$(($(mono) - t0));"
	" [ $best = 0 ] || [ $t -lt $best ] && best=$t; done\n"
	"say \"headless $best\"\n"
	"journalctl -b -u fbripple --no-pager -o short-monotonic\n"
	"hear upgrade\n"
	/* the same package over itself: the unit restarts, the edited conffile stays */
	"systemctl start fbripple; pid=$(st MainPID); sum=$(md5 /etc/fbripple.conf)\n"
	"t0=$(mono); out=$(dpkg -i $F/fbripple.deb 2>&1); rc=$?; ms=$((($(mono) - t0) / 1000)); [ $rc = 0 ] || echo \"$out\"\n"
	"say \"upgraded rc=$rc $(systemctl is-active fbripple) pid=$(st MainPID) was=$pid"
	" conf=$( [ \"$(md5 /etc/fbripple.conf)\" = $sum ] && echo kept || echo replaced) pkg=$(pkg) ms=$ms\"\n"
	"hear remove\n"
	/* removed: the unit stops, the binary goes, the edited conffile stays */
	"pid=$(st MainPID)\n"
	"t0=$(mono); out=$(dpkg -r fbripple 2>&1); rc=$?; ms=$((($(mono) - t0) / 1000)); [ $rc = 0 ] || echo \"$out\"\n"
	"say \"removed rc=$rc $(systemctl is-active fbripple)"
	" proc=$(kill -0 $pid 2>/dev/null && echo running || echo gone)"
	" bin=$( [ -e /usr/bin/fbripple ] && echo present || echo gone)"
	" conf=$( [ -f /etc/fbripple.conf ] && [ \"$(md5 /etc/fbripple.conf)\" = $sum ] && echo kept || echo lost)"
	" pkg=$(pkg) $($H/vtstate /dev/tty7) ms=$ms\"\n"
	"hear purge\n"
	/* purged: the conffile and the unit's enablement go too */
	"t0=$(mono); out=$(dpkg -P fbripple 2>&1); rc=$?; ms=$((($(mono) - t0) / 1000)); [ $rc = 0 ] || echo \"$out\"\n"
	"say \"purged rc=$rc conf=$( [ -e /etc/fbripple.conf ] && echo present || echo gone)"
	" wants=$(wants) known=$(dpkg -s fbripple >/dev/null 2>&1 && echo yes || echo no) ms=$ms\"\n"
	"hear bye\n";

/* A colour with a fine checkerboard in green: refraction shows, the middle stays near rgb. */
static void write_checker(const char *path, uint32_t rgb)
{
	struct image img = { W, H, malloc((size_t)W * H * sizeof(uint32_t)) };

	assert_non_null(img.pixels);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			img.pixels[y * W + x] = 0xff000000u | (rgb & 0xff00ffu) |
				(((rgb >> 8 & 0xff) + ((x / 4 + y / 4) % 2 ? 12 : -12)) & 0xff) << 8;
	assert_int_equal(image_write_png(&img, path), 0);
	image_free(&img);
}

struct failures {
	char text[4096];
	size_t len;
};

/* A check that lets the case go on, so that one run shows every broken item. */
static void check(struct failures *f, bool ok, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# FAILED CHECK: %s\n", msg);
	if (f->len + strlen(msg) + 2 < sizeof(f->text))
		f->len += (size_t)sprintf(f->text + f->len, "%s\n", msg);
}

static void line(struct vm_suite *s, const char *key, char *buf, size_t len)
{
	if (vm_expect_line(&s->vm, key, STEP_MS, buf, len))
		fail_msg("no \"%s\" line from the guest", key);
	printf("# guest: %s\n", buf);
}

static void send(struct vm_suite *s, const char *cmd)
{
	if (vm_send(&s->vm, cmd))
		fail_msg("cannot send \"%s\" to the guest", cmd);
}

static unsigned long long field(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

static struct image screen(struct vm_suite *s)
{
	struct image img = { 0 };

	if (vm_screendump(&s->vm, &img) || img.width != W || img.height != H)
		fail_msg("screendump failed or is not %dx%d", W, H);
	return img;
}

/* Screendumps for up to ms until the middle is (or, with not, is not) rgb. */
static bool screen_is(struct vm_suite *s, uint32_t rgb, bool not, int ms)
{
	long end = vm_now_ms() + ms;

	for (;;) {
		struct image img = screen(s);
		bool near = vm_colour_near(tu_rgb(&img, W / 2, H / 2), rgb, 24);

		free(img.pixels);
		if (near != not)
			return true;
		if (vm_now_ms() > end)
			return false;
		usleep(150000);
	}
}

/* Rings around (x, y): the centroid of what changed between two screendumps. */
static bool rings_at(const struct image *a, const struct image *b, int x, int y)
{
	double sx = 0, sy = 0;
	long n = 0;

	for (int j = 40; j < H; j++)
		for (int i = 0; i < W; i++)
			if ((a->pixels[j * W + i] ^ b->pixels[j * W + i]) & 0xffffff) {
				sx += i;
				sy += j;
				n++;
			}
	printf("# rings: %ld pixels changed, centred at (%.0f, %.0f); tap at (%d, %d)\n", n,
	       n ? sx / n : 0, n ? sy / n : 0, x, y);
	return n >= 50 && abs((int)(sx / n) - x) <= 10 && abs((int)(sy / n) - y) <= 10;
}

static int image_path(char *out, size_t len)
{
	FILE *p = popen("sh tests/vm/rootfs.sh", "r");
	char buf[600] = "";
	int rc;

	if (!p)
		return -errno;
	while (fgets(buf, sizeof(buf), p))
		if (strncmp(buf, "ROOTFS=", 7) == 0)
			snprintf(out, len, "%.*s", (int)strcspn(buf + 7, "\n"), buf + 7);
	rc = pclose(p);
	return rc == 0 && out[0] ? 0 : -ENOENT;
}

struct files {
	char *dir;
	struct vm_file list[12];
};

/* The Debian package that `make deb` built (FBRIPPLE_DEB), the test's pictures and
 * configurations; all copied into /fbvm/files of the root image by stage 1. */
static void gather_files(struct files *f)
{
	static const char *const own[] = { "red.png", "blue.png", "red.conf", "blue.conf",
					   "bad.conf", "drm.conf", "kiosk.conf" };
	int n = 0;

	f->dir = tu_tmpdir();
	if (access(FBRIPPLE_DEB, R_OK))
		fail_msg("%s: missing; `make check` builds it (make deb)", FBRIPPLE_DEB);
	f->list[n++] = (struct vm_file){ strdup(FBRIPPLE_DEB), strdup("/fbvm-root/fbvm/files/fbripple.deb") };
	write_checker(tu_path(f->dir, "red.png"), RED);
	write_checker(tu_path(f->dir, "blue.png"), BLUE);
	/* /dev/fb0 first: the guest's checks read what is shown from the framebuffer's memory */
	tu_write(tu_path(f->dir, "red.conf"), "splash = { image = \"/fbvm/files/red.png\"; };\n"
		 "display = { device = \"/dev/fb0\"; };\n");
	tu_write(tu_path(f->dir, "blue.conf"), "splash = { image = \"/fbvm/files/blue.png\"; };\n"
		 "display = { fps = 30; device = \"/dev/fb0\"; };\n");
	tu_write(tu_path(f->dir, "bad.conf"), "splash = { image = \"/fbvm/files/blue.png\"; };\n"
		 "stone = {\n size = 1000;\n};\ndisplay = { device = \"/dev/fb0\"; };\n");
	tu_write(tu_path(f->dir, "drm.conf"), "splash = { image = \"/fbvm/files/red.png\"; };\n");
	tu_write(tu_path(f->dir, "kiosk.conf"), "display = { vt = 7; };\n"
		 "splash = { image = \"@screen\"; };\n"
		 "screensaver = { mode = \"idle\"; after = 3; fade = 0.5; };\n");
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		char dest[64];

		chmod(tu_path(f->dir, own[i]), 0644);	/* the service's dynamic user reads them */
		snprintf(dest, sizeof(dest), "/fbvm-root/fbvm/files/%s", own[i]);
		f->list[n++] = (struct vm_file){ strdup(tu_path(f->dir, own[i])), strdup(dest) };
	}
	f->list[n] = (struct vm_file){ NULL, NULL };
}

static void free_files(struct files *f)
{
	for (int i = 0; f->list[i].src; i++) {
		free((void *)f->list[i].src);
		free((void *)f->list[i].dest);
	}
	tu_rmtree(f->dir);
}

/* Boots the guest; a guest stalled before stage 1 (rare, under TCG) gets one more boot. */
static void boot(struct vm_suite *s, const char *image, const struct files *f)
{
	char drive[700];
	const char *qemu[] = { "-drive", drive, NULL };
	struct vm_opts o = { .display = VM_BOCHS, .width = W, .height = H, .script = script,
			     .files = f->list, .qemu_args = qemu, .timeout_ms = 600000,
			     .kernel_args = "fbvm.root=1 systemd.show_status=0", .name = "systemd" };

	snprintf(drive, sizeof(drive), "file=%s,if=virtio,format=raw,snapshot=on", image);
	for (int attempt = 1;; attempt++) {
		long t = vm_now_ms();

		if (vm_start(&s->vm, &s->base, &o))
			fail_msg("cannot start QEMU");
		if (vm_expect(&s->vm, "booted", BOOT_MS) == 0) {
			printf("# systemd guest booted in %.1f s\n", (vm_now_ms() - t) / 1000.0);
			return;
		}
		vm_stop(&s->vm);
		if (attempt == 2)
			fail_msg("the systemd guest did not boot in %d s, twice", BOOT_MS / 1000);
	}
}

/* dpkg -i on a system that never had fbripple: the unit enabled and running from the package. */
static void check_install(struct vm_suite *s, struct failures *f)
{
	char buf[1024], conf[40] = "", dist[40] = "";
	const char *at;
	long t = vm_now_ms();

	send(s, "install");
	line(s, "installed ", buf, sizeof(buf));
	check(f, strstr(buf, "installed rc=0 active enabled exe=/usr/bin/fbripple wants=1 "
		  "pkg=install_ok_installed ") != NULL,
	      "dpkg -i did not install, enable and start fbripple from the package: %s", buf);
	if ((at = strstr(buf, " conf=")))
		sscanf(at, " conf=%32s", conf);
	if ((at = strstr(buf, " dist=")))
		sscanf(at, " dist=%32s", dist);
	check(f, strlen(conf) == 32 && strcmp(conf, dist) == 0,
	      "/etc/fbripple.conf is not the package's conffile as dpkg lists it: %s", buf);
	/* the packaged configuration's display.device = "auto": the DRM card */
	check(f, strstr(buf, " text=showing 640x480 on /dev/dri/card0") != NULL,
	      "the unit the package started shows nothing on the DRM card: %s", buf);
	printf("# TIMING dpkg -i on a fresh system, the unit started: %.1f s\n",
	       (vm_now_ms() - t) / 1000.0);
}

static double check_start(struct vm_suite *s, struct failures *f)
{
	char buf[1024];
	unsigned long long t0, t1, splash, ready, main_start;

	send(s, "go");
	line(s, "started ", buf, sizeof(buf));
	t0 = field(buf, "t0=");
	t1 = field(buf, "t1=");
	splash = field(buf, "splash=");
	ready = field(buf, "ready=");
	main_start = field(buf, "main=");
	check(f, strstr(buf, "rc=0 ") != NULL, "systemctl start failed: %s", buf);
	check(f, field(buf, "samples=") == 1,
	      "the splash was not in the framebuffer when systemctl start returned: %s", buf);
	check(f, screen_is(s, RED, false, 3000), "the splash is not on the screen after start");
	if (t0 && ready && splash) {
		printf("# TIMING start->fork %.0f ms, start->READY=1 %.0f ms, start->splash in the "
		       "framebuffer %.0f ms, fork->READY=1 %.0f ms, systemctl start returned after "
		       "%.0f ms\n", (main_start - t0) / 1000.0, (ready - t0) / 1000.0,
		       (splash - t0) / 1000.0, (ready - main_start) / 1000.0, (t1 - t0) / 1000.0);
	}
	do
		line(s, "journal", buf, sizeof(buf));
	while (strcmp(buf, "journal-end") != 0);
	line(s, "status ", buf, sizeof(buf));
	check(f, strstr(buf, "status showing 640x480 on /dev/fb0") != NULL, "status line: %s", buf);
	line(s, "creds ", buf, sizeof(buf));
	check(f, strstr(buf, "creds fbripple ") && strstr(buf, "video") && strstr(buf, "input") &&
	      strstr(buf, "fb=1"), "the dynamic user or its /dev/fb0: %s", buf);
	return ready > main_start ? (ready - main_start) / 1000.0 : 0;
}

static void check_touch(struct vm_suite *s, struct failures *f)
{
	char buf[1024];
	struct image before, after;

	line(s, "touch ", buf, sizeof(buf));
	check(f, strstr(buf, "opened=0 crw-rw---- root input") != NULL,
	      "the touchscreen plugged in after start was not opened: %s", buf);
	usleep(300000);
	before = screen(s);
	send(s, "tap");
	line(s, "tapped", buf, sizeof(buf));
	after = screen(s);
	check(f, rings_at(&before, &after, 200, 300), "a tap at (200, 300) made no rings there");
	free(before.pixels);
	free(after.pixels);
}

static void check_reload(struct vm_suite *s, struct failures *f)
{
	char buf[1024];

	send(s, "reload");
	line(s, "reloaded ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 ") != NULL, "systemctl reload failed: %s", buf);
	check(f, strstr(buf, "black 0 of ") != NULL, "a black frame during the reload: %s", buf);
	/* the reload's picture worker lowered its priority, which the unit's filter allows */
	check(f, strstr(buf, " nice=0,10,") != NULL, "the threads' niceness: %s", buf);
	check(f, strstr(buf, "status=showing 640x480 on /dev/fb0; last reload changed fps splash"),
	      "the status after the reload does not say what changed: %s", buf);
	check(f, screen_is(s, BLUE, false, 5000), "the new splash is not on the screen");
	send(s, "switch");
	line(s, "on1 ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 ") && strstr(buf, "active=1"),
	      "after a reload, switching to tty1 did not complete: %s", buf);
	check(f, strstr(buf, " text=paused while another VT is in front, 640x480 on /dev/fb0; last "
			"reload changed fps splash"), "the status on tty1: %s", buf);
	check(f, screen_is(s, BLUE, true, 5000), "tty1 is not on the screen after chvt 1");
	send(s, "back");
	line(s, "on7 ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 ") && strstr(buf, "kd=graphics switching=process active=7"),
	      "switching back to tty7: %s", buf);
	check(f, screen_is(s, BLUE, false, 5000), "the splash is not back after chvt 7");
}

static void check_refusal(struct vm_suite *s, struct failures *f)
{
	char buf[1024];

	send(s, "bad");
	line(s, "badreload ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 ") == NULL, "systemctl reload of a broken file succeeded: %s",
	      buf);
	check(f, strstr(buf, "Job for fbripple.service failed") != NULL,
	      "systemctl reload did not say that it failed: %s", buf);
	line(s, "badstatus ", buf, sizeof(buf));
	check(f, strstr(buf, "badstatus 0 ") == NULL &&
	      strstr(buf, "text=showing 640x480 on /dev/fb0; reload refused: "
			  "/etc/fbripple.conf:3: stone.size") != NULL,
	      "systemctl status does not show FILE:LINE: %s", buf);
	line(s, "still ", buf, sizeof(buf));
	check(f, strstr(buf, "still active") && field(buf, "pid=") == field(buf, "was="),
	      "the daemon did not survive the refused reload: %s", buf);
	check(f, screen_is(s, BLUE, false, 3000), "the screen changed after a refused reload");
	send(s, "again");
	line(s, "again ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0,0 vt 7 kd=graphics switching=process active=7") != NULL,
	      "after two reloads, switching to tty2 and back: %s", buf);
	check(f, screen_is(s, BLUE, false, 5000), "the splash is not back after chvt 2, chvt 7");
	send(s, "sockoff");
	line(s, "sockoff ", buf, sizeof(buf));
	check(f, strstr(buf, "sockoff rc=0,0 back=0 ") && strstr(buf, " hup=2") &&
	      field(buf, "pid=") == field(buf, "was="),
	      "systemctl reload with the socket turned off and on again: %s", buf);
}

static void check_restarts(struct vm_suite *s, struct failures *f)
{
	char buf[1024];

	send(s, "watchdog");
	line(s, "watchdog ", buf, sizeof(buf));
	check(f, strstr(buf, "ok=0 ") && field(buf, "pid=") != field(buf, "was=") &&
	      !strstr(buf, "logged=0"), "no watchdog restart of a stopped daemon: %s", buf);
	check(f, screen_is(s, BLUE, false, 5000), "no splash after the watchdog restart");
	send(s, "kill");
	line(s, "killed ", buf, sizeof(buf));
	check(f, strstr(buf, "ok=0 ") != NULL, "no restart after SIGKILL: %s", buf);
	/* the killed daemon's guard gave the console back and left; the new one has its own */
	check(f, strstr(buf, " guards=1") != NULL, "not one console guard after a restart: %s", buf);
	send(s, "stop");
	line(s, "stopped ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 vt 7 kd=text switching=auto active=7 guards=0") != NULL,
	      "after SIGKILL, restart and stop the console is not back, or a guard stays: %s", buf);
	check(f, screen_is(s, BLUE, true, 5000), "the splash stays on the screen after stop");
}

/* Upgrade over itself, remove, purge: what Debian's tools do with the unit and the conffile. */
static void check_package(struct vm_suite *s, struct failures *f)
{
	char buf[1024];
	long t = vm_now_ms();

	send(s, "upgrade");
	line(s, "upgraded ", buf, sizeof(buf));
	check(f, strstr(buf, "upgraded rc=0 active ") && field(buf, "pid=") &&
	      field(buf, "pid=") != field(buf, "was=") &&
	      strstr(buf, " conf=kept pkg=install_ok_installed"),
	      "dpkg -i over itself did not restart the unit or keep the edited conffile: %s", buf);
	check(f, screen_is(s, BLUE, false, 5000),
	      "after the upgrade the splash of the edited conffile is not on the screen");
	send(s, "remove");
	line(s, "removed ", buf, sizeof(buf));
	check(f, strstr(buf, "removed rc=0 inactive proc=gone bin=gone conf=kept "
		  "pkg=deinstall_ok_config-files vt 7 kd=text switching=auto active=7") != NULL,
	      "dpkg -r: the unit did not stop, the binary stayed, or the conffile went: %s", buf);
	check(f, screen_is(s, BLUE, true, 5000), "the splash stays on the screen after dpkg -r");
	send(s, "purge");
	line(s, "purged ", buf, sizeof(buf));
	check(f, strstr(buf, "purged rc=0 conf=gone wants=0 known=no") != NULL,
	      "dpkg -P left the conffile, the unit's enablement or the package behind: %s", buf);
	printf("# TIMING upgrade, remove and purge: %.1f s\n", (vm_now_ms() - t) / 1000.0);
}

/* The unit on DRM: the card open through DeviceAllow= and the video group, the water on it, the
 * console back in text mode after a stop. */
static void check_drm(struct vm_suite *s, struct failures *f)
{
	char buf[1024];

	send(s, "drm");
	line(s, "drm ", buf, sizeof(buf));
	check(f, strstr(buf, "drm rc=0 card=1 ok ") && strstr(buf, " display=drm "),
	      "the unit did not start on /dev/dri/card0: %s", buf);
	check(f, screen_is(s, RED, false, 10000), "the splash is not on the screen through DRM");
	send(s, "drmstop");
	line(s, "drmstopped ", buf, sizeof(buf));
	check(f, strstr(buf, "rc=0 vt 7 kd=text switching=auto active=7 guards=0") != NULL,
	      "after a stop on DRM the console is not back, or a guard stays: %s", buf);
	check(f, screen_is(s, RED, true, 5000), "the splash stays on the screen after stop");
}

/* The kiosk app's picture (tests/vm/kioskapp.c): R x*255/(W-1), G y*255/(H-1), B 0x80; the
 * DRM app's (tests/vm/drmapp.c) has B 0x40. */
#define KIOSKAPP_BLUE 0x80
#define DRMAPP_BLUE 0x40
static uint32_t app_pixel(int x, int y, uint32_t blue)
{
	return (uint32_t)(x * 255 / (W - 1)) << 16 | (uint32_t)(y * 255 / (H - 1)) << 8 | blue;
}

/* Screendumps for up to ms until the screen is the picture of the app with that blue to the
 * last pixel. */
static bool picture_within(struct vm_suite *s, int ms, const char *when, uint32_t blue)
{
	long t0 = vm_now_ms();
	int n;

	do {
		struct image img = screen(s);

		n = 0;
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				n += (img.pixels[y * W + x] & 0xffffff) != app_pixel(x, y, blue);
		free(img.pixels);
		if (n == 0) {
			printf("# %s: the screendump is the app's picture exactly (after %ld ms)\n",
			       when, vm_now_ms() - t0);
			return true;
		}
		usleep(150000);
	} while (vm_now_ms() - t0 < ms);
	printf("# %s: %d pixels are not the app's picture\n", when, n);
	return false;
}

/* One step beside an app: cmd sent, the guest's line from key (into buf) holding want, then
 * the screen the app's picture (blue: which app's); each miss a failure naming what. */
static void app_step(struct vm_suite *s, struct failures *f, const char *cmd, const char *key,
		     const char *want, const char *what, char *buf, size_t len, uint32_t blue)
{
	send(s, cmd);
	line(s, key, buf, len);
	check(f, strstr(buf, want) != NULL, "%s: want '%s', got: %s", what, want, buf);
	check(f, picture_within(s, 5000, what, blue), "%s: the screen is not the app's picture",
	      what);
}

static void kiosk_step(struct vm_suite *s, struct failures *f, const char *cmd, const char *key,
		       const char *want, const char *what, char *buf, size_t len)
{
	app_step(s, f, cmd, key, want, what, buf, len, KIOSKAPP_BLUE);
}

/* Beside a kiosk app on tty1, the unit in idle mode with display.vt = 7 and the packaged
 * drop-in: hidden, the app's picture on tty1; shown after the idle time, the same picture on
 * tty7 (the calm water over splash.image "@screen"); a tap hides it without reaching the app.
 * Without the drop-in it cannot take tty7. */
static void check_kiosk(struct vm_suite *s, struct failures *f)
{
	char buf[1024];
	long t = vm_now_ms();

	kiosk_step(s, f, "kiosk", "kiosk hidden ",
		   "kiosk hidden rc=0 screensaver=hidden active=1 count=1 ",
		   "kiosk, the unit with the drop-in started hidden on tty1", buf, sizeof(buf));
	check(f, strstr(buf, " drawn 640x480") != NULL, "the app did not draw 640x480: %s", buf);
	kiosk_step(s, f, "kioskshow", "kiosk shown ", "kiosk shown screensaver=shown active=7 count=1",
		   "kiosk, shown on tty7 after the idle time", buf, sizeof(buf));
	kiosk_step(s, f, "kiosktap", "kiosk tapped ",
		   "kiosk tapped screensaver=hidden active=1 count=1 ",
		   "kiosk, hidden by a tap that did not reach the app, tty1 in front", buf,
		   sizeof(buf));
	/* beside a DRM application: it hands master over on its VT switches, and takes it back
	 * at the hide at its first try (fbripple lets the card go before switching back);
	 * shown, "@screen" is its buffer, read once the unit is master (no CAP_SYS_ADMIN) */
	app_step(s, f, "kioskdrm", "kiosk drm shown ",
		 "kiosk drm shown screensaver=shown active=7 released",
		 "beside a DRM app, shown on tty7: calm water over the app's buffer", buf,
		 sizeof(buf), DRMAPP_BLUE);
	send(s, "kioskdrmdrop");
	line(s, "kiosk drm dropped ", buf, sizeof(buf));
	check(f, strstr(buf, "kiosk drm dropped unrippled=0") != NULL,
	      "beside a DRM app, the unit could not ripple the app's frame: %s", buf);
	check(f, !picture_within(s, 0, "beside a DRM app, shown, a stone dropped", DRMAPP_BLUE),
	      "beside a DRM app, shown, the screen is still the app's picture: no water");
	app_step(s, f, "kioskdrmhide", "kiosk drm hidden ",
		 "kiosk drm hidden screensaver=hidden active=1 acquired, its own buffer on screen",
		 "beside a DRM app, hidden, tty1 in front with the app's master back", buf,
		 sizeof(buf), DRMAPP_BLUE);
	send(s, "kiosknodropin");
	line(s, "kiosk only-none ", buf, sizeof(buf));
	check(f, strstr(buf, "screensaver=shown active=1 VT_7:_Permission_denied;_drawing_on_the_"
			  "VT_in_front") != NULL,
	      "without the drop-in the unit did not fail to open tty1 as expected: %s", buf);
	line(s, "kiosk only-group ", buf, sizeof(buf));
	check(f, strstr(buf, "screensaver=shown active=1 VT_7:_Operation_not_permitted;") != NULL,
	      "with the tty group but no CAP_SYS_TTY_CONFIG the unit did not fail to switch as "
	      "expected: %s", buf);
	line(s, "kiosk only-cap ", buf, sizeof(buf));
	check(f, strstr(buf, "screensaver=shown active=1 VT_7:_Permission_denied;") != NULL,
	      "with CAP_SYS_TTY_CONFIG but not the tty group the unit did not fail to open tty1 as "
	      "expected: %s", buf);
	line(s, "kiosk done ", buf, sizeof(buf));
	check(f, strstr(buf, "kd=text switching=auto active=1") != NULL,
	      "the app's VT is not back in text mode: %s", buf);
	printf("# TIMING beside a kiosk app, with the drop-in and without: %.1f s\n",
	       (vm_now_ms() - t) / 1000.0);
}

/* Best of three runs of fbripple's start-up work headless (load, scale, first frame, exit). */
static long headless_ms(const char *bin, const char *dir, const char *size)
{
	char cmd[1200];
	long best = -1;

	snprintf(cmd, sizeof(cmd), "%s -c %s/c.conf --fbdev /dev/shm/fbripple-vmtest.%d --size %s "
		 "--frames 0 2>/dev/null", bin, dir, (int)getpid(), size);
	for (int i = 0; i < 3; i++) {
		long t = vm_now_ms();

		if (system(cmd) != 0)
			return -1;
		t = vm_now_ms() - t;
		best = best < 0 || t < best ? t : best;
	}
	snprintf(cmd, sizeof(cmd), "/dev/shm/fbripple-vmtest.%d", (int)getpid());
	unlink(cmd);
	return best;
}

/* The same start-up work in the guest and here: how much slower the guest is, and what its
 * figures mean at the speed of this host. */
static void compare_speed(struct vm_suite *s, double fork_to_ready_ms)
{
	const char *bin = getenv("FBRIPPLE_BIN");
	char buf[256], *dir;
	long small, big;
	double guest;

	send(s, "bench");
	line(s, "headless ", buf, sizeof(buf));
	guest = field(buf, "headless ") / 1000.0;
	if (!bin)
		return;
	dir = tu_tmpdir();
	write_checker(tu_path(dir, "red.png"), RED);
	snprintf(buf, sizeof(buf), "splash = { image = \"%s\"; };\n", tu_path(dir, "red.png"));
	tu_write(tu_path(dir, "c.conf"), buf);
	small = headless_ms(bin, dir, "640x480");
	big = headless_ms(bin, dir, "1920x1080");
	if (small > 0 && big > 0)
		printf("# TIMING headless start-up (config, splash, first frame, exit), best of 3: "
		       "640x480 guest %.0f ms, host %ld ms (the guest %.1fx slower); 1920x1080 host "
		       "%ld ms. The guest's fork->READY=1 at this host's speed: %.0f ms\n", guest,
		       small, guest / small, big, fork_to_ready_ms * small / guest);
	tu_rmtree(dir);
}

static void test_systemd_unit(void **state)
{
	struct vm_suite *s = vm_case_begin(state);
	struct failures f = { .len = 0 };
	char image[600] = "";
	struct files files;

	if (image_path(image, sizeof(image))) {
		printf("SKIP: no root image: tests/vm/rootfs.sh could not build it (it needs root, "
		       "mmdebstrap and Debian's archive; its messages are above)\n");
		skip();
	}
	gather_files(&files);
	boot(s, image, &files);
	check_install(s, &f);
	double fork_to_ready = check_start(s, &f);

	check_touch(s, &f);
	check_reload(s, &f);
	check_refusal(s, &f);
	check_restarts(s, &f);
	check_drm(s, &f);
	check_kiosk(s, &f);
	compare_speed(s, fork_to_ready);
	check_package(s, &f);
	send(s, "bye");
	vm_case_expect_exit(s, 0);
	free_files(&files);
	if (f.len)
		fail_msg("fbripple under systemd:\n%s", f.text);
}

static int suite_setup(void **state)
{
	static char vtstate[600], kioskapp[600], drmapp[600];
	const char *extra[] = { vtstate, kioskapp, drmapp, NULL };
	char exe[400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(vtstate, sizeof(vtstate), "%s/vm/vtstate", exe);
	snprintf(kioskapp, sizeof(kioskapp), "%s/vm/kioskapp", exe);
	snprintf(drmapp, sizeof(drmapp), "%s/vm/drmapp", exe);
	return vm_suite_setup(state, extra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_systemd_unit, vm_case_teardown),
	};

	return cmocka_run_group_tests(tests, suite_setup, vm_suite_teardown);
}
