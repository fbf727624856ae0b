/* test_access.c - the hint after "Permission denied" on a display device (read and written) or
 * an input device (read) names a group only where joining it would let fbripple's user in: not
 * where an ACL refuses the group, nor where the user is in the group already. A temp file
 * stands in for the device; the hint is taken as an unprivileged user in a child (root opens
 * everything). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "display/display.h"
#include "input/input.h"

/* The user that tries, and the device's group, which has no name: the hint gives its number. */
#define USER 65534
#define USER_GROUP 65534
#define DEVICE_GROUP 4242

struct fixture {
	char dir[64], path[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (geteuid() != 0) {	/* the device's owner and the user who tries need root */
		free(f);
		return 0;
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/fbripple-access-XXXXXX");
	if (!mkdtemp(f->dir) || chmod(f->dir, 0755) < 0)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/fb", f->dir);
	if (close(open(f->path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) < 0 ||
	    chown(f->path, 0, DEVICE_GROUP) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f) {
		unlink(f->path);
		rmdir(f->dir);
	}
	free(f);
	return 0;
}

static struct fixture *device(void **state, mode_t mode)
{
	struct fixture *f = *state;

	if (!f)
		skip();
	assert_int_equal(chmod(f->path, mode), 0);
	removexattr(f->path, "system.posix_acl_access");
	assert_int_equal(chmod(f->path, mode), 0);
	return f;
}

/* An access ACL as setfacl writes it: the owner rw, the owning group group_perm, the named
 * user (-1: none) user_perm, the mask rw, others nothing. Skips where the file system keeps
 * no ACLs. */
static void set_acl(const struct fixture *f, int group_perm, int user, int user_perm)
{
	struct {
		struct posix_acl_xattr_header head;
		struct posix_acl_xattr_entry e[5];
	} acl;
	int n = 0;

	memset(&acl, 0, sizeof(acl));
	acl.head.a_version = POSIX_ACL_XATTR_VERSION;

	acl.e[n++] = (struct posix_acl_xattr_entry){ ACL_USER_OBJ, 6, ACL_UNDEFINED_ID };
	if (user >= 0)
		acl.e[n++] = (struct posix_acl_xattr_entry){ ACL_USER, (uint16_t)user_perm,
							     (uint32_t)user };
	acl.e[n++] = (struct posix_acl_xattr_entry){ ACL_GROUP_OBJ, (uint16_t)group_perm,
						     ACL_UNDEFINED_ID };
	acl.e[n++] = (struct posix_acl_xattr_entry){ ACL_MASK, 6, ACL_UNDEFINED_ID };
	acl.e[n++] = (struct posix_acl_xattr_entry){ ACL_OTHER, 0, ACL_UNDEFINED_ID };
	if (setxattr(f->path, "system.posix_acl_access", &acl,
		     sizeof(acl.head) + (size_t)n * sizeof(acl.e[0]), 0) < 0) {
		print_message("%s: no ACLs here (%s)\n", f->path, strerror(errno));
		skip();
	}
}

/* The text of display_open_error, or input_open_error where input, for EACCES on path, as USER
 * sees it, in group also (besides USER_GROUP; 0: none). */
static void hint_of(bool input, const char *path, gid_t also, char *text, size_t len)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		gid_t groups[2] = { USER_GROUP, also };
		char err[512] = "cannot become the user";
		bool user = setgroups(also ? 2 : 1, groups) == 0 && setgid(USER_GROUP) == 0 &&
			    setuid(USER) == 0;

		if (user && input)
			input_open_error(path, -EACCES, err, sizeof(err));
		else if (user)
			display_open_error(path, -EACCES, err, sizeof(err));
		_exit(write(fds[1], err, strlen(err)) < 0);
	}
	close(fds[1]);
	n = read(fds[0], text, len - 1);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(n > 0);
	text[n] = '\0';
}

/* The hint for f as USER (in group also) is want: display_open_error's, or input's. */
static void expect_hint(bool input, const struct fixture *f, gid_t also, const char *want)
{
	char text[512];

	hint_of(input, f->path, also, text, sizeof(text));
	assert_string_equal(text, want);
}

/* The plain case: joining the group is what it takes. */
static void test_group_named(void **state)
{
	struct fixture *f = device(state, 0660);

	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 660: fbripple's "
		    "user needs to be in group 4242)");
}

/* Only the owner may: no group would help. */
static void test_owner_only(void **state)
{
	struct fixture *f = device(state, 0600);

	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 600: only root may "
		    "open it)");
}

/* An ACL refuses the owning group (group::---), while the mode shows its mask, 660: joining
 * the group would not help. */
static void test_acl_refuses_the_group(void **state)
{
	struct fixture *f = device(state, 0660);

	set_acl(f, 0, -1, 0);
	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 660 and an ACL that "
		    "does not let fbripple's user in: getfacl lists whom it lets in)");
}

/* An ACL entry of the user's own, with nothing granted, comes before the group's. */
static void test_acl_refuses_the_user(void **state)
{
	struct fixture *f = device(state, 0660);

	set_acl(f, 6, USER, 0);
	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 660 and an ACL that "
		    "does not let fbripple's user in: getfacl lists whom it lets in)");
}

/* An ACL that lets the owning group in: joining it is still what it takes. */
static void test_acl_lets_the_group_in(void **state)
{
	struct fixture *f = device(state, 0660);

	set_acl(f, 6, 1234, 6);
	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 660 and an ACL: "
		    "fbripple's user needs to be in group 4242)");
}

/* The user is in the group already, and the mode lets it in: the refusal comes from elsewhere
 * (a mount with nodev, a security module), and joining the group would change nothing. */
static void test_member_refused_elsewhere(void **state)
{
	struct fixture *f = device(state, 0660);

	expect_hint(false, f, DEVICE_GROUP, "Permission denied (owned by root:4242, mode 660, "
		    "which lets fbripple's user open it: something else refuses it, such as a "
		    "mount with nodev or a security module)");
}

/* Not EACCES: the error alone. */
static void test_other_errors_plain(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(display_open_error("/nonexistent/fb", -ENOENT, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, strerror(ENOENT));
}

/* An input device is only read: a group that may read it is the one to join, where a display
 * (read and written) has no group to name. */
static void test_input_group_that_reads(void **state)
{
	struct fixture *f = device(state, 0640);

	expect_hint(true, f, 0, "Permission denied (owned by root:4242, mode 640: fbripple's user "
		    "needs to be in group 4242)");
	expect_hint(false, f, 0, "Permission denied (owned by root:4242, mode 640: only root may "
		    "open it)");
}

/* An input device the group may not read (udev's ACL not applied yet, no udev at all): only
 * its owner may. */
static void test_input_owner_only(void **state)
{
	struct fixture *f = device(state, 0600);

	expect_hint(true, f, 0, "Permission denied (owned by root:4242, mode 600: only root may "
		    "open it)");
}

/* An ACL that refuses the owning group of an input device. */
static void test_input_acl_refuses_the_group(void **state)
{
	struct fixture *f = device(state, 0660);

	set_acl(f, 0, -1, 0);
	expect_hint(true, f, 0, "Permission denied (owned by root:4242, mode 660 and an ACL that "
		    "does not let fbripple's user in: getfacl lists whom it lets in)");
}

/* A member of the group refused all the same: something else refuses it. */
static void test_input_member_refused_elsewhere(void **state)
{
	struct fixture *f = device(state, 0640);

	expect_hint(true, f, DEVICE_GROUP, "Permission denied (owned by root:4242, mode 640, "
		    "which lets fbripple's user open it: something else refuses it, such as a "
		    "mount with nodev or a security module)");
}

/* Not EACCES: the error alone, in the buffer returned. */
static void test_input_other_errors_plain(void **state)
{
	char err[256];

	(void)state;
	assert_ptr_equal(input_open_error("/nonexistent/event0", -EPERM, err, sizeof(err)), err);
	assert_string_equal(err, strerror(EPERM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_named),
		cmocka_unit_test(test_owner_only),
		cmocka_unit_test(test_acl_refuses_the_group),
		cmocka_unit_test(test_acl_refuses_the_user),
		cmocka_unit_test(test_acl_lets_the_group_in),
		cmocka_unit_test(test_member_refused_elsewhere),
		cmocka_unit_test(test_other_errors_plain),
		cmocka_unit_test(test_input_group_that_reads),
		cmocka_unit_test(test_input_owner_only),
		cmocka_unit_test(test_input_acl_refuses_the_group),
		cmocka_unit_test(test_input_member_refused_elsewhere),
		cmocka_unit_test(test_input_other_errors_plain),
	};

	return cmocka_run_group_tests_name("device access", tests, setup, teardown);
}
