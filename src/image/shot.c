/* shot.c - screenshot files: never through a link, never over what is there, never truncating. */
#include "shot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define SHOT_TRIES 100		/* temporary names to try before giving up */
/* A client's screenshot leaves this share (1/n) of its file system's blocks and inodes free:
 * one taking them under new names would fill /run otherwise, a tmpfs the system needs. */
#define SHOT_KEEP_FREE 8

/* One directory below dir, a link only if follow; the new fd or -errno. */
static int open_below(int dir, const char *name, bool follow)
{
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	/* O_PATH | O_NOFOLLOW names a link "not a directory": say what it is */
	if (errno == ENOTDIR && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return -errno;
}

/* The directory of path, walked from / (or the working directory) one component at a time; its
 * fd or -errno, and *name the last component. */
static int open_dir(const char *path, bool follow, const char **name)
{
	char comp[NAME_MAX + 1];
	const char *p = path, *slash;
	int dir;

	dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (;;) {
		int next;

		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (!slash)
			break;
		if ((size_t)(slash - p) > NAME_MAX) {
			close(dir);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, (size_t)(slash - p));
		comp[slash - p] = '\0';
		next = open_below(dir, comp, follow);
		close(dir);
		if (next < 0)
			return next;
		dir = next;
		p = slash;
	}
	if (!*p || strcmp(p, ".") == 0 || strcmp(p, "..") == 0) {
		close(dir);
		return -EISDIR;
	}
	*name = p;
	return dir;
}

/* Whether dir's file system keeps its free share with a PNG of img in it, bounded by its
 * pixels' bytes (a PNG is smaller); -EDQUOT if not. A file system that does not say has room. */
static int room_for(int dir, const struct image *img)
{
	struct statvfs fs;
	unsigned long long bytes = (unsigned long long)img->width * img->height * 3 + 4096;

	if (fstatvfs(dir, &fs) < 0 || !fs.f_frsize || !fs.f_blocks)	/* ramfs says nothing */
		return 0;
	if (fs.f_bavail < bytes / fs.f_frsize + 1 + fs.f_blocks / SHOT_KEEP_FREE)
		return -EDQUOT;
	if (fs.f_files && fs.f_favail < 2 + fs.f_files / SHOT_KEEP_FREE)
		return -EDQUOT;
	return 0;
}

/* A new file in dir under a name nobody uses; its fd or -errno, the name in tmp. */
static int create_temp(int dir, const char *name, char *tmp, size_t len)
{
	for (unsigned i = 0; i < SHOT_TRIES; i++) {
		int fd;

		snprintf(tmp, len, ".%.200s.%d.%u.tmp", name, (int)getpid(), i);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

static int write_temp(const struct image *img, int fd)
{
	FILE *f = fdopen(fd, "wb");
	int ret;

	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = image_write_png_file(img, f);
	/* some file systems (NFS, FUSE) tell of a full disk only when the data is written back:
	 * the file is renamed into place only once it is on the disk whole */
	if (ret == 0 && fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) != 0 && ret == 0)
		ret = errno ? -errno : -EIO;
	return ret;
}

/* tmp becomes name; without replace only where nothing is. */
static int put_in_place(int dir, const char *tmp, const char *name, bool replace)
{
	if (replace)
		return renameat(dir, tmp, dir, name) < 0 ? -errno : 0;
	if (renameat2(dir, tmp, dir, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a file system without RENAME_NOREPLACE: a hard link fails the same way on anything there */
	if (linkat(dir, tmp, dir, name, 0) < 0)
		return -errno;
	unlinkat(dir, tmp, 0);
	return 0;
}

int shot_write(const struct image *img, const char *path, bool replace)
{
	char tmp[NAME_MAX + 1];
	const char *name = NULL;
	struct stat st;
	int dir = open_dir(path, replace, &name), fd, ret;

	if (dir < 0)
		return dir;
	/* a quick answer before the work; the rename below is what holds */
	if (!replace && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		close(dir);
		return -EEXIST;
	}
	if (!replace && (ret = room_for(dir, img)) < 0) {
		close(dir);
		return ret;
	}
	fd = create_temp(dir, name, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dir);
		return fd;
	}
	ret = write_temp(img, fd);
	if (ret == 0)
		ret = put_in_place(dir, tmp, name, replace);
	if (ret < 0)
		unlinkat(dir, tmp, 0);	/* ours: made with O_EXCL above */
	close(dir);
	return ret;
}

const char *shot_strerror(int err)
{
	switch (err) {
	case -EEXIST:
		return "something is there already (a screenshot never replaces a file)";
	case -ELOOP:
		return "a symbolic link is on the way (a screenshot follows none)";
	case -EISDIR:
		return "not a file name";
	case -EDQUOT:
		return "its file system would have less than an eighth free (a screenshot leaves "
		       "that to the system), or a quota is reached";
	default:
		return strerror(-err);
	}
}
