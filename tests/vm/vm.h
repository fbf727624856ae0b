/* vm.h - boots Debian's kernel under QEMU (TCG) for end-to-end tests: a real fbdev driver, real
 * evdev/uinput, a line channel to a guest shell script, QMP screendumps and input. */
#ifndef FBRIPPLE_VM_H
#define FBRIPPLE_VM_H

#include <stddef.h>
#include <sys/types.h>

#include "image/image.h"

enum vm_display {
	VM_BOCHS,	/* -device VGA, bochs DRM, fb "bochs-drmdrmfb", 32 bpp */
	VM_VIRTIO,	/* -device virtio-gpu-pci, fb "virtio_gpudrmfb", 32 bpp */
	VM_VESA,	/* -device VGA + bzImage + vga=MODE, built-in vesafb, 16/24/32 bpp */
	VM_NONE,	/* no display device */
};

/* A host file copied into the guest at dest (an absolute guest path). */
struct vm_file {
	const char *src;
	const char *dest;
};

/* The base initramfs (busybox, modules, /init, programs and their libraries), built once. */
struct vm_base {
	char dir[64];		/* temp dir holding base.cpio.gz */
	char path[96];
	char kernel[512];	/* uncompressed ELF vmlinux (fast boot) */
	char bzimage[512];	/* compressed bzImage (needed for vga=) */
};

struct vm_opts {
	enum vm_display display;
	int width, height;		/* VM_BOCHS/VM_VIRTIO; 0: the device's 1280x800 */
	int vga_mode;			/* VM_VESA: VBE mode for vga=, e.g. 0x311 */
	const char *kernel_args;	/* appended to the kernel command line */
	const char *const *qemu_args;	/* extra QEMU arguments, NULL-terminated */
	const char *script;		/* the case: busybox sh text run as /case.sh */
	const struct vm_file *files;	/* extra files for this case, ended by { NULL } */
	int timeout_ms;			/* limit on the guest's whole life; 0: 60000 */
	const char *name;		/* for the timing line and messages */
};

struct vm {
	pid_t pid;			/* our QEMU, or 0 */
	int chan, qmp;			/* connected sockets, or -1 */
	char dir[64];			/* temp dir: console.log, qemu.log, sockets, initrd */
	char name[64];
	long start_ms, deadline_ms, first_line_ms;
	int exit_status;		/* of /case.sh once "fbvm-exit N" was seen, else -1 */
	char buf[8192];			/* channel bytes not yet split into lines */
	size_t buflen;
	char *seen;			/* every channel line so far, for failure messages */
	size_t seen_len;
};

/* 1 if QEMU and a kernel are usable (fetching the kernel through tests/vm/kernel.sh if it is
 * not cached yet); 0 with the reason in why otherwise. */
int vm_available(char *why, size_t len);

/* Builds the base initramfs with the given programs and files (NULL-terminated; "FILE" goes to
 * /bin/NAME, "FILE=/DEST" to /DEST; ELF programs bring their shared libraries). 0 or -errno. */
int vm_base_build(struct vm_base *base, const char *const *files);
void vm_base_free(struct vm_base *base);

/* Boots a guest that runs o->script. 0 or -errno (reason printed to stderr). Always pair with
 * vm_stop, also on failure. */
int vm_start(struct vm *vm, const struct vm_base *base, const struct vm_opts *o);

/* Waits for a guest line (say ... in the case) containing text; consumes lines up to it.
 * 0, -ETIMEDOUT, or -EPIPE if the guest ended. On failure prints what was seen and the
 * console tail. vm_expect_line also copies the matching line into line. */
int vm_expect(struct vm *vm, const char *text, int timeout_ms);
int vm_expect_line(struct vm *vm, const char *text, int timeout_ms, char *line, size_t len);

/* Sends one line to the guest (hear VAR in the case). 0 or -errno. */
int vm_send(struct vm *vm, const char *line);

/* Sends one QMP command (JSON text); reply gets the {"return"...} or {"error"...} line.
 * 0, -EIO for a QMP error, or -errno. */
int vm_qmp(struct vm *vm, const char *json, char *reply, size_t len);

/* The current screen via QMP screendump: 0xFFRRGGBB pixels from malloc (free with free()). */
int vm_screendump(struct vm *vm, struct image *out);

/* Waits for the case to end and the guest to power off; the case's exit status or -errno. */
int vm_wait_exit(struct vm *vm, int timeout_ms);

/* Prints the last lines of the kernel console (which also holds the case's stdout/stderr). */
void vm_print_console(const struct vm *vm, int lines);

/* Ends the guest (poweroff, else QMP quit, else SIGKILL of our PID) and removes temp files.
 * Safe on a zeroed or half-started struct vm. FBVM_KEEP=1 keeps the temp dir. */
void vm_stop(struct vm *vm);

#endif
