/* vm.c - boots Debian's kernel under QEMU for end-to-end tests: builds the initrd, runs QEMU,
 * talks to the guest over a serial line channel and to QEMU over QMP. See vm.h. */
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU "qemu-system-x86_64"
#define MAX_ARGS 64

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- files and processes ---- */

/* The directory of this harness's scripts (tests/vm): $FBVM_SRCDIR, the one the Makefile
 * compiled in, or next to this source relative to the current directory. */
static const char *script_dir(void)
{
	const char *env = getenv("FBVM_SRCDIR");
	static char dir[512];

	if (env && *env)
		return env;
#ifdef FBVM_SRCDIR
	return FBVM_SRCDIR;
#endif
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	return dir;
}

/* Waits up to timeout_ms for pid; 0 with *status, or -ETIMEDOUT. */
static int wait_pid(pid_t pid, int timeout_ms, int *status)
{
	long end = now_ms() + timeout_ms;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		sleep_ms(10);
	}
}

/* Child side of a spawn: dies with us, stdin from /dev/null, stdout to out (or inherited). */
static void child_exec(char *const argv[], const char *out)
{
	int null = open("/dev/null", O_RDONLY);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null >= 0)
		dup2(null, 0);
	if (out) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	execvp(argv[0], argv);
	fprintf(stderr, "vm: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static pid_t spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0)
		child_exec(argv, out);
	return pid < 0 ? -errno : pid;
}

/* Runs argv to completion within timeout_ms (killing it after); its exit code or -errno. */
static int run(char *const argv[], const char *out, int timeout_ms)
{
	int status, rc;
	pid_t pid = spawn(argv, out);

	if (pid < 0)
		return pid;
	rc = wait_pid(pid, timeout_ms, &status);
	if (rc) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return rc;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

/* Reads a whole (small) file into a NUL-terminated buffer from malloc; NULL on failure. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long size;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc(size + 1)))
		text[*len = fread(text, 1, size, f)] = 0;
	if (f)
		fclose(f);
	return text;
}

static void print_file_tail(const char *path, int lines, const char *title)
{
	size_t len = 0, at;
	char *text = slurp(path, &len);
	int n = 0;

	if (!text)
		return;
	for (at = len; at > 0; at--)
		if (text[at - 1] == '\n' && at < len && ++n >= lines)
			break;
	fprintf(stderr, "---- %s (last %d lines of %s) ----\n%s%s---- end ----\n", title, lines,
		path, text + at, len && text[len - 1] != '\n' ? "\n" : "");
	free(text);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	if (dir[0])
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Reads KEY=VALUE from the kernel cache's kernel.env into value. */
static int kernel_env(const char *key, char *value, size_t len)
{
	const char *c = getenv("FBRIPPLE_VM_CACHE"), *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char path[512], line[1024];
	int rc = -ENOENT;

	if (c && *c)
		snprintf(path, sizeof(path), "%s/kernel.env", c);
	else if (x && *x)
		snprintf(path, sizeof(path), "%s/fbripple-vm/kernel.env", x);
	else
		snprintf(path, sizeof(path), "%s/.cache/fbripple-vm/kernel.env", home ? home : "");
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	while (rc && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == '=') {
			line[strcspn(line, "\n")] = 0;
			snprintf(value, len, "%s", line + strlen(key) + 1);
			rc = access(value, R_OK) ? -errno : 0;
		}
	fclose(f);
	return rc;
}

/* ---- availability and the base initramfs ---- */

static int have_kernel(void)
{
	char v[512];

	return kernel_env("VMLINUX", v, sizeof(v)) == 0 && kernel_env("BZIMAGE", v, sizeof(v)) == 0;
}

int vm_available(char *why, size_t len)
{
	char script[600];
	char *ver[] = { QEMU, "--version", NULL };

	if (run(ver, "/dev/null", 10000) != 0) {
		snprintf(why, len, "%s does not run (apt-get install qemu-system-x86)", QEMU);
		return 0;
	}
	if (access("/bin/busybox", X_OK) && access("/usr/bin/busybox", X_OK)) {
		snprintf(why, len, "no busybox (apt-get install busybox-static)");
		return 0;
	}
	if (!have_kernel()) {
		snprintf(script, sizeof(script), "%s/kernel.sh", script_dir());
		char *argv[] = { "sh", script, NULL };
		int rc = run(argv, NULL, 600000);
		if (rc != 0 || !have_kernel()) {
			snprintf(why, len, "no kernel: %s failed (exit %d); see its messages above",
				 script, rc);
			return 0;
		}
	}
	return 1;
}

int vm_base_build(struct vm_base *base, const char *const *files)
{
	char script[600], *argv[MAX_ARGS];
	int n = 0, rc;

	memset(base, 0, sizeof(*base));
	if ((rc = kernel_env("VMLINUX", base->kernel, sizeof(base->kernel))) ||
	    (rc = kernel_env("BZIMAGE", base->bzimage, sizeof(base->bzimage)))) {
		fprintf(stderr, "vm: no kernel in the cache; run tests/vm/kernel.sh\n");
		return rc;
	}
	snprintf(base->dir, sizeof(base->dir), "/tmp/fbvm-base.XXXXXX");
	if (!mkdtemp(base->dir)) {
		base->dir[0] = 0;
		return -errno;
	}
	snprintf(base->path, sizeof(base->path), "%s/base.cpio.gz", base->dir);
	snprintf(script, sizeof(script), "%s/initramfs.sh", script_dir());
	argv[n++] = "sh";
	argv[n++] = script;
	argv[n++] = base->path;
	for (; files && *files && n < MAX_ARGS - 1; files++)
		argv[n++] = (char *)*files;
	argv[n] = NULL;
	rc = run(argv, NULL, 120000);
	if (rc != 0) {
		fprintf(stderr, "vm: %s failed (%d)\n", script, rc);
		vm_base_free(base);
		return -EIO;
	}
	return 0;
}

void vm_base_free(struct vm_base *base)
{
	remove_tree(base->dir);
	base->dir[0] = 0;
}

/* ---- the initrd: the base archive, then a small newc archive with the case ---- */

static int cpio_header(FILE *out, const char *name, unsigned mode, size_t size)
{
	unsigned ino = (unsigned)ftell(out);

	fprintf(out, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino, mode,
		0u, 0u, 1u, 0u, size, 0u, 0u, 0u, 0u, strlen(name) + 1, 0u);
	fwrite(name, 1, strlen(name) + 1, out);
	while (ftell(out) % 4)
		fputc(0, out);
	return ferror(out) ? -EIO : 0;
}

static int cpio_data(FILE *out, const char *name, unsigned mode, const void *data, size_t size)
{
	int rc = cpio_header(out, name, mode, size);

	fwrite(data, 1, size, out);
	while (ftell(out) % 4)
		fputc(0, out);
	return rc ? rc : ferror(out) ? -EIO : 0;
}

/* Adds dest's parent directories (the unpacker does not create them), then the file. */
static int cpio_file(FILE *out, const char *src, const char *dest)
{
	char name[512], *buf;
	struct stat st;
	int rc = 0;

	snprintf(name, sizeof(name), "%s", dest + (dest[0] == '/'));
	for (char *s = strchr(name, '/'); s && !rc; s = strchr(s + 1, '/')) {
		*s = 0;
		rc = cpio_header(out, name, 040755, 0);
		*s = '/';
	}
	FILE *in = fopen(src, "rb");
	if (!in || fstat(fileno(in), &st)) {
		rc = -errno;
		fprintf(stderr, "vm: %s: %s\n", src, strerror(-rc));
		if (in)
			fclose(in);
		return rc;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (buf && fread(buf, 1, st.st_size, in) == (size_t)st.st_size)
		rc = rc ? rc : cpio_data(out, name, 0100000 | (st.st_mode & 0777), buf, st.st_size);
	else
		rc = -EIO;
	free(buf);
	fclose(in);
	return rc;
}

static int copy_into(FILE *out, const char *path)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(path, "rb");

	if (!in)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return ferror(out) ? -EIO : 0;
}

static int write_initrd(const char *path, const struct vm_base *base, const struct vm_opts *o)
{
	const char *script = o->script ? o->script : "true\n";
	FILE *out = fopen(path, "wb");
	int rc;

	if (!out)
		return -errno;
	rc = copy_into(out, base->path);
	while (!rc && ftell(out) % 4)
		fputc(0, out);
	rc = rc ? rc : cpio_data(out, "case.sh", 0100644, script, strlen(script));
	for (const struct vm_file *f = o->files; !rc && f && f->src; f++)
		rc = cpio_file(out, f->src, f->dest);
	rc = rc ? rc : cpio_data(out, "TRAILER!!!", 0, "", 0);
	if (fclose(out) && !rc)
		rc = -errno;
	return rc;
}

/* ---- sockets ---- */

static int listen_unix(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* Accepts QEMU's connection within timeout_ms; the connected fd, -ECHILD if QEMU exited
 * (then *pid becomes 0), or -errno. */
static int accept_within(int lfd, pid_t *pid, int timeout_ms)
{
	long end = now_ms() + timeout_ms;
	int status;

	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int rc = poll(&p, 1, 100);
		if (rc > 0) {
			rc = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			return rc < 0 ? -errno : rc;
		}
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			*pid = 0;
			return -ECHILD;
		}
		if (now_ms() >= end)
			return -ETIMEDOUT;
	}
}

static int send_all(int fd, const char *data, size_t len, int timeout_ms)
{
	long end = now_ms() + timeout_ms;

	while (len > 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		if (poll(&p, 1, (int)(end - now_ms())) <= 0)
			return -ETIMEDOUT;
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n > 0) {
			data += n;
			len -= n;
		}
	}
	return 0;
}

/* Reads one '\n'-terminated line from a socket byte by byte, within the deadline end. */
static int read_line(int fd, char *line, size_t len, long end)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = end - now_ms();
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r <= 0)
			return r ? -errno : -EPIPE;
		if (c == '\n')
			break;
		if (n + 1 < len)
			line[n++] = c;
	}
	line[n] = 0;
	return 0;
}

/* ---- QEMU ---- */

static int add_arg(char **argv, int *n, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (*n >= MAX_ARGS - 1)
		return -E2BIG;
	va_start(ap, fmt);
	int rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	argv[(*n)++] = s;
	argv[*n] = NULL;
	return 0;
}

static const char *display_name(enum vm_display d)
{
	return d == VM_BOCHS ? "bochs" : d == VM_VIRTIO ? "virtio" : d == VM_VESA ? "vesa" : "none";
}

static int display_args(char **argv, int *n, const struct vm_opts *o, char *cmdline, size_t len)
{
	size_t at = strlen(cmdline);

	if (o->display == VM_VESA) {
		snprintf(cmdline + at, len - at, " vga=0x%x", o->vga_mode ? o->vga_mode : 0x311);
		return add_arg(argv, n, "-device") || add_arg(argv, n, "VGA") ? -E2BIG : 0;
	}
	if (o->display == VM_NONE)
		return 0;
	const char *dev = o->display == VM_BOCHS ? "VGA" : "virtio-gpu-pci";
	if (add_arg(argv, n, "-device"))
		return -E2BIG;
	if (o->width > 0 && o->height > 0) {
		snprintf(cmdline + at, len - at, " video=Virtual-1:%dx%d", o->width, o->height);
		return add_arg(argv, n, "%s,xres=%d,yres=%d", dev, o->width, o->height);
	}
	return add_arg(argv, n, "%s", dev);
}

static int qemu_argv(char **argv, const struct vm *vm, const struct vm_base *base,
		     const struct vm_opts *o)
{
	char cmdline[1024];
	int n = 0, rc = 0;
	const char *fixed[] = { QEMU, "-nodefaults", "-accel", "tcg", "-machine", "pc", "-smp",
				"2", "-m", "512M", "-display", "none", "-no-reboot", NULL };

	for (int i = 0; fixed[i] && !rc; i++)
		rc = add_arg(argv, &n, "%s", fixed[i]);
	snprintf(cmdline, sizeof(cmdline), "console=ttyS0 panic=-1 fbvm.display=%s",
		 display_name(o->display));
	rc = rc ? rc : display_args(argv, &n, o, cmdline, sizeof(cmdline));
	if (o->kernel_args)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), " %s",
			 o->kernel_args);
	rc = rc ? rc : add_arg(argv, &n, "-kernel");
	rc = rc ? rc : add_arg(argv, &n, "%s", o->display == VM_VESA ? base->bzimage : base->kernel);
	rc = rc ? rc : add_arg(argv, &n, "-initrd");
	rc = rc ? rc : add_arg(argv, &n, "%s/initrd", vm->dir);
	rc = rc ? rc : add_arg(argv, &n, "-append");
	rc = rc ? rc : add_arg(argv, &n, "%s", cmdline);
	rc = rc ? rc : add_arg(argv, &n, "-chardev");
	rc = rc ? rc : add_arg(argv, &n, "file,id=con,path=%s/console.log", vm->dir);
	rc = rc ? rc : add_arg(argv, &n, "-serial");
	rc = rc ? rc : add_arg(argv, &n, "chardev:con");
	rc = rc ? rc : add_arg(argv, &n, "-chardev");
	rc = rc ? rc : add_arg(argv, &n, "socket,id=chan,path=%s/chan.sock", vm->dir);
	rc = rc ? rc : add_arg(argv, &n, "-serial");
	rc = rc ? rc : add_arg(argv, &n, "chardev:chan");
	rc = rc ? rc : add_arg(argv, &n, "-chardev");
	rc = rc ? rc : add_arg(argv, &n, "socket,id=qmp,path=%s/qmp.sock", vm->dir);
	rc = rc ? rc : add_arg(argv, &n, "-mon");
	rc = rc ? rc : add_arg(argv, &n, "chardev=qmp,mode=control");
	for (const char *const *a = o->qemu_args; !rc && a && *a; a++)
		rc = add_arg(argv, &n, "%s", *a);
	return rc;
}

static void free_argv(char **argv)
{
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
}

/* Accepts QEMU's two socket connections and does the QMP handshake; on failure shows why. */
static int connect_qemu(struct vm *vm, int lchan, int lqmp)
{
	char line[4096], path[128];
	int rc;

	vm->chan = accept_within(lchan, &vm->pid, 20000);
	vm->qmp = vm->chan < 0 ? vm->chan : accept_within(lqmp, &vm->pid, 20000);
	rc = vm->chan < 0 ? vm->chan : vm->qmp < 0 ? vm->qmp : 0;
	rc = rc ? rc : read_line(vm->qmp, line, sizeof(line), now_ms() + 10000);
	rc = rc ? rc : vm_qmp(vm, "{\"execute\":\"qmp_capabilities\"}", line, sizeof(line));
	if (rc) {
		fprintf(stderr, "vm[%s]: QEMU did not start: %s\n", vm->name,
			rc == -ECHILD ? "it exited" : strerror(-rc));
		sleep_ms(200);
		snprintf(path, sizeof(path), "%s/qemu.log", vm->dir);
		print_file_tail(path, 20, "QEMU output");
	}
	return rc;
}

static int launch(struct vm *vm, const struct vm_base *base, const struct vm_opts *o)
{
	char *argv[MAX_ARGS] = { NULL }, path[128];
	int lchan, lqmp, rc;

	snprintf(path, sizeof(path), "%s/chan.sock", vm->dir);
	lchan = listen_unix(path);
	snprintf(path, sizeof(path), "%s/qmp.sock", vm->dir);
	lqmp = listen_unix(path);
	rc = lchan < 0 ? lchan : lqmp < 0 ? lqmp : qemu_argv(argv, vm, base, o);
	snprintf(path, sizeof(path), "%s/qemu.log", vm->dir);
	if (!rc) {
		vm->pid = spawn(argv, path);
		rc = vm->pid < 0 ? (int)vm->pid : 0;
		if (rc)
			vm->pid = 0;
	}
	rc = rc ? rc : connect_qemu(vm, lchan, lqmp);
	if (lchan >= 0)
		close(lchan);
	if (lqmp >= 0)
		close(lqmp);
	free_argv(argv);
	return rc;
}

int vm_start(struct vm *vm, const struct vm_base *base, const struct vm_opts *o)
{
	char path[128];
	int rc;

	memset(vm, 0, sizeof(*vm));
	vm->chan = vm->qmp = -1;
	vm->exit_status = -1;
	vm->start_ms = now_ms();
	vm->deadline_ms = vm->start_ms + (o->timeout_ms > 0 ? o->timeout_ms : 60000);
	snprintf(vm->name, sizeof(vm->name), "%s", o->name ? o->name : display_name(o->display));
	snprintf(vm->dir, sizeof(vm->dir), "/tmp/fbvm.XXXXXX");
	if (!mkdtemp(vm->dir)) {
		rc = -errno;
		vm->dir[0] = 0;
		return rc;
	}
	snprintf(path, sizeof(path), "%s/initrd", vm->dir);
	rc = write_initrd(path, base, o);
	if (rc) {
		fprintf(stderr, "vm: writing %s: %s\n", path, strerror(-rc));
		return rc;
	}
	return launch(vm, base, o);
}

/* ---- the channel ---- */

static void note_line(struct vm *vm, const char *line)
{
	size_t n = strlen(line);
	char *s = realloc(vm->seen, vm->seen_len + n + 2);

	if (!vm->first_line_ms)
		vm->first_line_ms = now_ms();
	int status;

	if (sscanf(line, "fbvm-exit %d", &status) == 1)
		vm->exit_status = status;
	if (!s)
		return;
	vm->seen = s;
	memcpy(s + vm->seen_len, line, n);
	vm->seen_len += n;
	s[vm->seen_len++] = '\n';
	s[vm->seen_len] = 0;
}

/* Takes the next complete line out of the buffer into line; 1 if there was one. */
static int next_line(struct vm *vm, char *line, size_t len)
{
	char *nl = memchr(vm->buf, '\n', vm->buflen);

	if (!nl && vm->buflen < sizeof(vm->buf))
		return 0;
	size_t n = nl ? (size_t)(nl - vm->buf) : vm->buflen;
	size_t take = nl ? n + 1 : n;
	snprintf(line, len, "%.*s", (int)n, vm->buf);
	line[strcspn(line, "\r")] = 0;
	memmove(vm->buf, vm->buf + take, vm->buflen - take);
	vm->buflen -= take;
	note_line(vm, line);
	return 1;
}

/* Reads what the guest sent within timeout_ms into the buffer. 0, -ETIMEDOUT or -EPIPE. */
static int fill(struct vm *vm, long end)
{
	struct pollfd p = { .fd = vm->chan, .events = POLLIN };
	long left = end - now_ms();

	if (vm->chan < 0)
		return -EPIPE;
	if (left <= 0 || poll(&p, 1, (int)left) <= 0)
		return -ETIMEDOUT;
	ssize_t n = read(vm->chan, vm->buf + vm->buflen, sizeof(vm->buf) - vm->buflen);
	if (n <= 0)
		return -EPIPE;
	vm->buflen += n;
	return 0;
}

static void report(const struct vm *vm, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vm[%s]: ", vm->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n---- guest channel so far ----\n%s---- end ----\n",
		vm->seen ? vm->seen : "(nothing)\n");
	vm_print_console(vm, 30);
}

static long end_of(const struct vm *vm, int timeout_ms)
{
	long end = now_ms() + timeout_ms;

	return end < vm->deadline_ms ? end : vm->deadline_ms;
}

int vm_expect_line(struct vm *vm, const char *text, int timeout_ms, char *line, size_t len)
{
	char got[sizeof(vm->buf) + 1];
	long start = now_ms(), end = end_of(vm, timeout_ms);
	int rc = 0;

	while (!rc) {
		while (next_line(vm, got, sizeof(got)))
			if (strstr(got, text)) {
				if (line)
					snprintf(line, len, "%s", got);
				return 0;
			}
		rc = fill(vm, end);
	}
	report(vm, "expected a line containing '%s' within %d ms; %s after %ld ms", text,
	       timeout_ms, rc == -EPIPE ? "the guest ended" : now_ms() >= vm->deadline_ms ?
	       "the guest's time limit is over" : "timed out", now_ms() - start);
	return rc;
}

int vm_expect(struct vm *vm, const char *text, int timeout_ms)
{
	return vm_expect_line(vm, text, timeout_ms, NULL, 0);
}

int vm_send(struct vm *vm, const char *line)
{
	int rc = vm->chan < 0 ? -EPIPE : send_all(vm->chan, line, strlen(line), 5000);

	rc = rc ? rc : send_all(vm->chan, "\n", 1, 5000);
	if (rc)
		report(vm, "sending '%s': %s", line, strerror(-rc));
	return rc;
}

int vm_wait_exit(struct vm *vm, int timeout_ms)
{
	char got[sizeof(vm->buf) + 1];
	long end = end_of(vm, timeout_ms);
	int rc = 0, status;

	while (vm->exit_status < 0 && !rc) {
		while (vm->exit_status < 0 && next_line(vm, got, sizeof(got)))
			;
		if (vm->exit_status < 0)
			rc = fill(vm, end);
	}
	if (rc) {
		report(vm, "the case did not finish within %d ms (%s)%s", timeout_ms, strerror(-rc),
		       now_ms() >= vm->deadline_ms ? "; the guest's time limit is over" : "");
		return rc;
	}
	long left = end - now_ms();
	if (wait_pid(vm->pid, left > 0 ? (int)left : 0, &status) == 0)
		vm->pid = 0;
	else
		report(vm, "the case ended but the guest did not power off");
	return vm->exit_status;
}

/* ---- QMP ---- */

int vm_qmp(struct vm *vm, const char *json, char *reply, size_t len)
{
	char line[8192];
	long end = end_of(vm, 20000);
	int rc = vm->qmp < 0 ? -EPIPE : send_all(vm->qmp, json, strlen(json), 5000);

	rc = rc ? rc : send_all(vm->qmp, "\n", 1, 5000);
	while (!rc) {
		rc = read_line(vm->qmp, line, sizeof(line), end);
		if (rc || strstr(line, "\"event\""))
			continue;
		if (reply)
			snprintf(reply, len, "%s", line);
		if (strncmp(line, "{\"return\"", 9) == 0)
			return 0;
		if (strncmp(line, "{\"error\"", 8) == 0)
			return -EIO;
	}
	fprintf(stderr, "vm[%s]: QMP %s: %s\n", vm->name, json, strerror(-rc));
	return rc;
}

/* Reads one whitespace-separated number from a PPM header, skipping # comments. */
static int ppm_number(FILE *f)
{
	int c, v = 0, digits = 0;

	while ((c = fgetc(f)) != EOF) {
		if (c == '#')
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		else if (c >= '0' && c <= '9') {
			v = v * 10 + (c - '0');
			digits++;
		} else if (digits)
			break;
	}
	return digits && v > 0 && v <= 65536 ? v : -1;
}

static int ppm_read(const char *path, struct image *out)
{
	FILE *f = fopen(path, "rb");
	int w, h, max, rc = 0;

	if (!f)
		return -errno;
	if (fgetc(f) != 'P' || fgetc(f) != '6' || (w = ppm_number(f)) < 0 ||
	    (h = ppm_number(f)) < 0 || (max = ppm_number(f)) != 255) {
		fclose(f);
		return -EINVAL;
	}
	size_t n = (size_t)w * h;
	uint8_t *rgb = malloc(n * 3);
	uint32_t *px = malloc(n * 4);
	if (!rgb || !px)
		rc = -ENOMEM;
	else if (fread(rgb, 3, n, f) != n)
		rc = -EINVAL;
	for (size_t i = 0; !rc && i < n; i++)
		px[i] = 0xff000000u | rgb[3 * i] << 16 | rgb[3 * i + 1] << 8 | rgb[3 * i + 2];
	fclose(f);
	free(rgb);
	if (rc) {
		free(px);
		return rc;
	}
	*out = (struct image){ .width = w, .height = h, .pixels = px };
	return 0;
}

int vm_screendump(struct vm *vm, struct image *out)
{
	char cmd[256], reply[1024], path[128];
	int rc;

	snprintf(path, sizeof(path), "%s/screen.ppm", vm->dir);
	snprintf(cmd, sizeof(cmd), "{\"execute\":\"screendump\",\"arguments\":{\"filename\":\"%s\"}}",
		 path);
	rc = vm_qmp(vm, cmd, reply, sizeof(reply));
	if (rc) {
		fprintf(stderr, "vm[%s]: screendump failed: %s\n", vm->name, reply);
		return rc;
	}
	rc = ppm_read(path, out);
	if (rc)
		fprintf(stderr, "vm[%s]: reading %s: %s\n", vm->name, path, strerror(-rc));
	unlink(path);
	return rc;
}

/* ---- the end ---- */

void vm_print_console(const struct vm *vm, int lines)
{
	char path[128];

	if (!vm->dir[0])
		return;
	snprintf(path, sizeof(path), "%s/console.log", vm->dir);
	print_file_tail(path, lines, "guest console");
	snprintf(path, sizeof(path), "%s/qemu.log", vm->dir);
	struct stat st;
	if (stat(path, &st) == 0 && st.st_size > 0)
		print_file_tail(path, 10, "QEMU output");
}

/* Lets the guest power off by itself if the case ended, else asks QEMU to quit, then kills. */
static void end_qemu(struct vm *vm)
{
	int status;

	if (vm->exit_status >= 0 && wait_pid(vm->pid, 5000, &status) == 0)
		return;
	if (vm->qmp >= 0)
		send_all(vm->qmp, "{\"execute\":\"quit\"}\n", 19, 1000);
	if (wait_pid(vm->pid, 2000, &status) == 0)
		return;
	kill(vm->pid, SIGKILL);
	waitpid(vm->pid, &status, 0);
}

void vm_stop(struct vm *vm)
{
	if (!vm->dir[0])
		return;
	if (vm->pid > 0)
		end_qemu(vm);
	vm->pid = 0;
	if (vm->chan >= 0)
		close(vm->chan);
	if (vm->qmp >= 0)
		close(vm->qmp);
	vm->chan = vm->qmp = -1;
	printf("# vm[%s]: %.1f s (first guest line after %.1f s)\n", vm->name,
	       (now_ms() - vm->start_ms) / 1000.0,
	       vm->first_line_ms ? (vm->first_line_ms - vm->start_ms) / 1000.0 : 0.0);
	fflush(stdout);
	if (getenv("FBVM_KEEP") && atoi(getenv("FBVM_KEEP")))
		fprintf(stderr, "vm[%s]: kept %s\n", vm->name, vm->dir);
	else
		remove_tree(vm->dir);
	vm->dir[0] = 0;
	free(vm->seen);
	vm->seen = NULL;
	vm->seen_len = 0;
}
