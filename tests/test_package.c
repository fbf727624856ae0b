/* test_package.c - the .deb of `make deb` (FBRIPPLE_DEB): its fields, files, conffile, unit and
 * maintainer scripts, and its manual pages: rendered by man without a warning, every config key
 * and every --help option in them. tests/test_vm_systemd installs it for real. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "config/config.h"
#include "testutil.h"

#define OUT_MAX (256 * 1024)

static char *tree;	/* the package unpacked with dpkg-deb -x */

/* Runs a shell command; its stdout (and stderr with 2>&1 in cmd) into a static buffer. */
static const char *sh(int *status, const char *fmt, ...)
{
	static char out[OUT_MAX];
	char cmd[2048];
	size_t n = 0, r;
	va_list ap;
	FILE *p;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n < sizeof(out) - 1 && (r = fread(out + n, 1, sizeof(out) - 1 - n, p)) > 0)
		n += r;
	out[n] = '\0';
	rc = pclose(p);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
	return out;
}

/* The same, failing the test unless the command exits 0. */
static const char *sh_ok(const char *fmt, ...)
{
	char cmd[2048];
	const char *out;
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out = sh(&status, "%s", cmd);
	if (status != 0)
		fail_msg("`%s` exited %d: %s", cmd, status, out);
	return out;
}

static int setup(void **state)
{
	int status;

	(void)state;
	tree = tu_tmpdir();
	sh(&status, "dpkg-deb -x '%s' '%s' 2>&1", FBRIPPLE_DEB, tree);
	if (status != 0) {
		fprintf(stderr, "cannot unpack %s (`make deb` builds it)\n", FBRIPPLE_DEB);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(tree);
	return 0;
}

static void test_fields(void **state)
{
	char arch[32], want[128];
	const char *out;

	(void)state;
	snprintf(arch, sizeof(arch), "%s", sh_ok("dpkg --print-architecture"));
	arch[strcspn(arch, "\n")] = '\0';
	out = sh_ok("dpkg-deb -f '%s' Package Version Architecture", FBRIPPLE_DEB);
	snprintf(want, sizeof(want), "Package: fbripple\nVersion: %s\nArchitecture: %s\n",
		 FBRIPPLE_VERSION, arch);
	assert_string_equal(out, want);
	/* worked out from the binary's libraries by dpkg-shlibdeps */
	out = sh_ok("dpkg-deb -f '%s' Depends", FBRIPPLE_DEB);
	for (const char *const *lib = (const char *const[]){ "libc6 (>= ", "libconfig9",
			"libevdev2", "libjpeg62-turbo", "libpng16-16", "libsystemd0", "libudev1",
			NULL }; *lib; lib++)
		if (!strstr(out, *lib))
			fail_msg("Depends has no %s: %s", *lib, out);
}

static void test_files(void **state)
{
	static const char *const want[] = {
		"./usr/bin/fbripple", "./etc/fbripple.conf", "./lib/systemd/system/fbripple.service",
		"./usr/share/man/man8/fbripple.8.gz", "./usr/share/man/man5/fbripple.conf.5.gz",
		"./usr/share/doc/fbripple/copyright", "./usr/share/doc/fbripple/changelog.gz",
		"./usr/share/doc/fbripple/examples/fbripple-kiosk.conf",
	};
	const char *out = sh_ok("dpkg-deb -c '%s' | awk '{print $6}'", FBRIPPLE_DEB);
	char line[300];

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(line, sizeof(line), "\n%s\n", want[i]);
		if (!strstr(out, line))
			fail_msg("%s is not in the package:\n%s", want[i], out);
	}
	if (strstr(out, "/usr/local"))
		fail_msg("the package has files under /usr/local:\n%s", out);
	/* the package's configuration is the repository's, its binary stripped and executable */
	sh_ok("cmp etc/fbripple.conf '%s/etc/fbripple.conf'", tree);
	/* the kiosk drop-in as the integrator copies it, uncompressed */
	sh_ok("cmp systemd/fbripple-kiosk.conf '%s/usr/share/doc/fbripple/examples/"
	      "fbripple-kiosk.conf'", tree);
	out = sh_ok("file -b '%s/usr/bin/fbripple'", tree);
	assert_non_null(strstr(out, "ELF"));
	assert_non_null(strstr(out, ", stripped"));
	out = sh_ok("zcat '%s/usr/share/doc/fbripple/changelog.gz' | head -n 1", tree);
	snprintf(line, sizeof(line), "fbripple (%s) ", FBRIPPLE_VERSION);
	if (strncmp(out, line, strlen(line)) != 0)
		fail_msg("the changelog's last entry is not %s: %s", FBRIPPLE_VERSION, out);
	snprintf(line, sizeof(line), "\nCopyright: %sLicense: Expat\n",
		 sh_ok("sed -n 's/^Copyright (c) //p' LICENSE"));
	out = sh_ok("cat '%s/usr/share/doc/fbripple/copyright'", tree);
	if (!strstr(out, line))
		fail_msg("the copyright file does not say LICENSE's \"%s\":\n%s", line, out);
	assert_non_null(strstr(out, " THE SOFTWARE IS PROVIDED \"AS IS\""));
}

/* /etc/fbripple.conf is the one conffile; the unit runs the packaged binary, and the
 * maintainer scripts handle it as dh_installsystemd does (the VM test runs them). */
static void test_conffile_and_unit(void **state)
{
	const char *out;

	(void)state;
	out = sh_ok("dpkg-deb -I '%s' conffiles", FBRIPPLE_DEB);
	assert_string_equal(out, "/etc/fbripple.conf\n");
	out = sh_ok("cat '%s/lib/systemd/system/fbripple.service'", tree);
	assert_non_null(strstr(out, "\nExecStart=/usr/bin/fbripple -c /etc/fbripple.conf\n"));
	assert_non_null(strstr(out, "\nExecReload=/usr/bin/fbripple -c /etc/fbripple.conf "
			       "--send reload\n"));
	assert_non_null(strstr(out, "\nDocumentation=man:fbripple(8) man:fbripple.conf(5)"));
	assert_null(strstr(out, "@BINDIR@"));
	assert_null(strstr(out, "@SYSCONFDIR@"));
	assert_non_null(strstr(out, "file:/etc/fbripple.conf\n"));
	out = sh_ok("dpkg-deb -I '%s' postinst", FBRIPPLE_DEB);
	assert_non_null(strstr(out, "deb-systemd-helper enable 'fbripple.service'"));
	assert_non_null(strstr(out, "_dh_action=restart"));
	out = sh_ok("dpkg-deb -I '%s' prerm", FBRIPPLE_DEB);
	assert_non_null(strstr(out, "deb-systemd-invoke stop 'fbripple.service'"));
	out = sh_ok("dpkg-deb -I '%s' postrm", FBRIPPLE_DEB);
	assert_non_null(strstr(out, "deb-systemd-helper purge 'fbripple.service'"));
}

/* man renders both pages as lintian does, without a single warning. */
static void test_man_no_warnings(void **state)
{
	static const char *const pages[] = { "man8/fbripple.8.gz", "man5/fbripple.conf.5.gz" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		int status;
		const char *out = sh(&status, "LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 "
				     "-l -Tutf8 -Z '%s/usr/share/man/%s' 2>&1 >/dev/null",
				     tree, pages[i]);

		if (status != 0 || out[0])
			fail_msg("man --warnings on %s: exit %d:\n%s", pages[i], status, out);
		out = sh(&status, "LC_ALL=C.UTF-8 MANWIDTH=80 man -l '%s/usr/share/man/%s' "
			 "2>/dev/null | wc -l", tree, pages[i]);
		if (atoi(out) < 50)
			fail_msg("%s renders to %d lines only", pages[i], atoi(out));
	}
}

/* fbripple.conf(5) has every key of the config table, at the default etc/fbripple.conf sets. */
static void test_conf_page_has_every_key(void **state)
{
	const char *page = sh_ok("zcat '%s/usr/share/man/man5/fbripple.conf.5.gz'", tree);

	(void)state;
	assert_true(config_key_count() >= 13);
	for (size_t i = 0; i < config_key_count(); i++) {
		char entry[128];

		snprintf(entry, sizeof(entry), "\n.TP\n\\fB%s\\fR = ", config_key_name(i));
		if (!strstr(page, entry))
			fail_msg("fbripple.conf(5) has no entry for %s", config_key_name(i));
	}
	assert_non_null(strstr(page, "\\fBdisplay.fps\\fR = 60\nFrames drawn per second"));
	assert_non_null(strstr(page, "\\fBstone.weight\\fR = 320\n"));
}

/* fbripple(8) has every option --help lists, each with its meaning. */
static void test_page_has_every_option(void **state)
{
	char help[8192], *line, *save = NULL;
	const char *page;
	int options = 0;

	(void)state;
	assert_int_equal(tu_run(help, sizeof(help), "--help", NULL), 0);
	page = sh_ok("zcat '%s/usr/share/man/man8/fbripple.8.gz'", tree);
	for (line = strtok_r(help, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], want[160];
		const char *at = strstr(line, "--");
		size_t n;

		if (strncmp(line, "  -", 3) != 0 && strncmp(line, "      --", 8) != 0)
			continue;
		if (!at || sscanf(at + 2, "%63[a-z-]", name) != 1)
			fail_msg("an option line of --help without a long name: %s", line);
		/* bold, every '-' escaped: "\fB\-\-check\-config\fR" */
		n = (size_t)snprintf(want, sizeof(want), "\\fB\\-\\-");
		for (const char *c = name; *c && n + 4 < sizeof(want); c++) {
			if (*c == '-')
				want[n++] = '\\';
			want[n++] = *c;
		}
		snprintf(want + n, sizeof(want) - n, "\\fR");
		if (!strstr(page, want))
			fail_msg("fbripple(8) has no --%s (looked for %s)", name, want);
		options++;
	}
	assert_true(options >= 15);
	for (const char *const *sec = (const char *const[]){ ".SH OPTIONS\n", ".SH CONTROL SOCKET\n",
			".SH SIGNALS\n", ".SH FILES\n", ".SH EXIT STATUS\n", ".SH EXAMPLES\n",
			".SH ENVIRONMENT\nFBRIPPLE_SIMD=", NULL }; *sec; sec++)
		if (!strstr(page, *sec))
			fail_msg("fbripple(8) has no \"%s\"", *sec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_conffile_and_unit),
		cmocka_unit_test(test_man_no_warnings),
		cmocka_unit_test(test_conf_page_has_every_key),
		cmocka_unit_test(test_page_has_every_option),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
