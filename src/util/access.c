/* access.c - why a device node would not open for fbripple's user: whose it is, and what
 * would let the user in, said only where it is true. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "access.h"

/* What the file's permissions say of the owning group and of us. */
struct access_facts {
	bool acl;		/* a POSIX access ACL, whose mask the mode's group bits show */
	int group;		/* what the owning group may: ACL_READ | ACL_WRITE | ... */
	bool named;		/* an ACL entry names our user: the groups are never asked */
};

/* The access ACL of path, as the kernel keeps it (system.posix_acl_access), into f: the
 * owning group's entry under the mask, and whether an entry names uid. One too long to read
 * is an ACL whose group grants nothing known. */
static void access_read_acl(const char *path, uid_t uid, struct access_facts *f)
{
	struct {
		struct posix_acl_xattr_header head;
		struct posix_acl_xattr_entry e[32];
	} acl;
	ssize_t n = getxattr(path, "system.posix_acl_access", &acl, sizeof(acl));
	int mask = ACL_READ | ACL_WRITE | ACL_EXECUTE;

	if (n < 0 && errno == ERANGE)
		*f = (struct access_facts){ .acl = true };
	if (n < (ssize_t)sizeof(acl.head) || le32toh(acl.head.a_version) != POSIX_ACL_XATTR_VERSION)
		return;
	f->acl = true;
	for (size_t i = 0; i < ((size_t)n - sizeof(acl.head)) / sizeof(acl.e[0]); i++) {
		unsigned tag = le16toh(acl.e[i].e_tag), perm = le16toh(acl.e[i].e_perm);

		if (tag == ACL_GROUP_OBJ)
			f->group = (int)perm;
		else if (tag == ACL_MASK)
			mask = (int)perm;
		else if (tag == ACL_USER && le32toh(acl.e[i].e_id) == uid)
			f->named = true;
	}
	f->group &= mask;
}

/* Whether we are in group gid already; as if not, where the list cannot be had. */
static bool access_in_group(gid_t gid)
{
	int n = getgroups(0, NULL);
	gid_t *list = n > 0 ? calloc((size_t)n, sizeof(*list)) : NULL;
	bool in = getegid() == gid;

	n = list ? getgroups(n, list) : 0;
	for (int i = 0; i < n && !in; i++)
		in = list[i] == gid;
	free(list);
	return in;
}

/* Whether joining st's group would let us open path for need (ACL_READ | ACL_WRITE bits, as
 * the mode's): the group may (by its ACL entry, where it has an ACL), we are not in it yet,
 * and neither the owner's permissions nor an ACL entry of our own answer for us before the
 * group's are asked. */
static bool access_group_would(const char *path, const struct stat *st, int need,
			       struct access_facts *f)
{
	uid_t uid = geteuid();

	f->group = (int)(st->st_mode >> 3 & 7);
	access_read_acl(path, uid, f);
	return uid != st->st_uid && !f->named && (f->group & need) == need &&
	       !access_in_group(st->st_gid);
}

/* The permission bits need asks of how: R_OK, W_OK. */
static int access_need(int how)
{
	return (how & R_OK ? ACL_READ : 0) | (how & W_OK ? ACL_WRITE : 0);
}

/* Whether only the owner may, by the mode alone. */
static bool access_owner_only(unsigned bits, int need)
{
	return (int)(bits >> 6 & 7 & (unsigned)need) == need &&
	       (int)(bits >> 3 & 7 & (unsigned)need) != need && (int)(bits & 7 & (unsigned)need) != need;
}

/* The name of user id, or of group id where group, else its number. */
static void id_name(bool group, unsigned id, char *name, size_t len)
{
	struct passwd pw, *user = NULL;
	struct group gr, *grp = NULL;
	char buf[1024];
	const char *found = NULL;

	if (group && getgrgid_r(id, &gr, buf, sizeof(buf), &grp) == 0 && grp)
		found = grp->gr_name;
	else if (!group && getpwuid_r(id, &pw, buf, sizeof(buf), &user) == 0 && user)
		found = user->pw_name;
	if (found)
		snprintf(name, len, "%s", found);
	else
		snprintf(name, len, "%u", id);
}

int access_explain(const char *path, int how, char *why, size_t len)
{
	struct access_facts f = { 0 };
	char owner[64], group[64];
	int need = access_need(how);
	unsigned bits;
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	id_name(false, st.st_uid, owner, sizeof(owner));
	id_name(true, st.st_gid, group, sizeof(group));
	bits = (unsigned)st.st_mode & 0777;
	if (faccessat(AT_FDCWD, path, how, AT_EACCESS) == 0)
		snprintf(why, len, "%s (owned by %s:%s, mode %03o, which lets fbripple's user open "
			 "it: something else refuses it, such as a mount with nodev or a security "
			 "module)", strerror(EACCES), owner, group, bits);
	else if (access_group_would(path, &st, need, &f))
		snprintf(why, len, "%s (owned by %s:%s, mode %03o%s: fbripple's user needs to be in "
			 "group %s)", strerror(EACCES), owner, group, bits,
			 f.acl ? " and an ACL" : "", group);
	else if (f.acl)
		snprintf(why, len, "%s (owned by %s:%s, mode %03o and an ACL that does not let "
			 "fbripple's user in: getfacl lists whom it lets in)", strerror(EACCES), owner,
			 group, bits);
	else if (access_owner_only(bits, need))
		snprintf(why, len, "%s (owned by %s:%s, mode %03o: only %s may open it)",
			 strerror(EACCES), owner, group, bits, owner);
	else
		snprintf(why, len, "%s (owned by %s:%s, mode %03o)", strerror(EACCES), owner, group,
			 bits);
	return 0;
}
