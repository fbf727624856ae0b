/* input.c - evdev devices through libevdev: the read loop with SYN_DROPPED resync (on the
 * reader thread), hotplug (udev or inotify), permissions that arrive late, and --list-devices. */
#include "input.h"
#include "input_reader.h"
#include "util/access.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libevdev/libevdev.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBUDEV
#include <libudev.h>
#endif

#define INPUT_DIR "/dev/input"
#define INPUT_PATTERNS_MAX 16
#define INPUT_ACTIVITY_MS 100	/* INPUT_ACTIVITY at most this often during a stream */
#define INPUT_DROPS_NOTE_MS 10000	/* the log tells of dropped events at most this often */
#define INPUT_READ_BATCH 256	/* events read from one device before the others get a turn */
/* A contact held this long after a hide (a palm resting on the panel) no longer keeps the
 * device from the application: it is let go at its next event, the rest of that contact the
 * application's without its start. */
#define INPUT_LET_GO_MS 3000

/* ---- devices ---- */

/* The loop opens and closes devices, the reader thread reads them: both with the reader's
 * lock held. Entries are never freed, only reused. */
struct input_device {
	struct input_reader_source src;
	struct input *in;
	struct libevdev *evdev;		/* NULL: a free entry */
	char path[INPUT_PATH_MAX];
	struct input_map map;
	struct input_decoder dec;
	bool axes_noted;		/* the log said the device reports on other axes */
	bool grab_due;			/* taken or let go (in->let_go) once its contacts and
					 * buttons are up: a touch under way keeps its reader */
	int64_t due_ms;			/* since when (let go after INPUT_LET_GO_MS anyway) */
	int gone;			/* the reader's -errno for a device to close, or 0 */
	int grab_failed;		/* the reader's -errno of a grab it could not take, or 0 */
	unsigned drops, drops_noted;	/* SYN_DROPPED resyncs, and those the log told */
	int64_t drops_note_ms;		/* when the log last told */
};

/* Node paths, first come first, at most max (whoever makes the hotplug events may make them
 * without end). */
struct node_list {
	char path[INPUT_DEVICES_MAX][INPUT_PATH_MAX];
	int n, max;
};
_Static_assert(INPUT_WAITING_MAX <= INPUT_DEVICES_MAX, "the waiting list fits a node_list");

struct input {
	struct input_opts opts;
	char *patterns[INPUT_PATTERNS_MAX];
	int npatterns;
	struct loop *loop;
	struct input_reader reader;
	struct loop_source watch;	/* inotify or udev monitor */
	char dir[INPUT_DIR_MAX];	/* the event nodes' folder: /dev/input, or a test's */
	int dir_wd;			/* inotify watch on dir, or -1 while it is missing */
	struct input_device dev[INPUT_DEVICES_MAX];
	int64_t activity_ms;		/* when INPUT_ACTIVITY was last reported */
	bool let_go;			/* grabs released while another VT is in front */
	struct node_list retry;		/* nodes we may not open yet */
	struct node_list waiting;	/* nodes that found no free entry */
	bool waiting_full_noted;	/* the log said a node found no place to wait either */
	input_take_fn *fn;
	input_note_fn *note;
	void *ctx;
#ifdef HAVE_LIBUDEV
	struct udev *udev;
	struct udev_monitor *mon;
#endif
};

__attribute__((format(printf, 3, 4)))
static void note(const struct input *in, enum log_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!in->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	in->note(in->ctx, level, msg);
}

static bool is_event_node(const char *name)
{
	return strncmp(name, "event", 5) == 0 && name[5] >= '0' && name[5] <= '9';
}

/* With input.devices set, a device is used only if its path or its name matches an entry. */
static bool wanted(const struct input_opts *o, const char *path, const char *name)
{
	if (!o->devices || o->ndevices == 0)
		return !o->only_listed;
	for (int i = 0; i < o->ndevices; i++) {
		const char *p = o->devices[i];

		if (fnmatch(p, p[0] == '/' ? path : name, 0) == 0)
			return true;
	}
	return false;
}

#ifdef HAVE_LIBUDEV
static bool udev_matrix(struct udev *udev, int fd, double cal[6])
{
	struct udev_device *ud;
	struct stat st;
	const char *prop;
	bool ok = false;

	if (!udev || fstat(fd, &st) < 0)
		return false;
	ud = udev_device_new_from_devnum(udev, 'c', st.st_rdev);
	if (!ud)
		return false;
	prop = udev_device_get_property_value(ud, "LIBINPUT_CALIBRATION_MATRIX");
	ok = prop && input_parse_matrix(prop, cal) == 0;
	udev_device_unref(ud);
	return ok;
}
#endif

/* The calibration for a device: the config's, else its udev property, else identity. */
static const char *device_matrix(const struct input *in, int fd, double cal[6])
{
	static const double identity[6] = { 1, 0, 0, 0, 1, 0 };

	(void)fd;
	if (in && in->opts.has_cal) {
		memcpy(cal, in->opts.cal, sizeof(in->opts.cal));
		return "input.calibration";
	}
#ifdef HAVE_LIBUDEV
	if (in && udev_matrix(in->udev, fd, cal))
		return "LIBINPUT_CALIBRATION_MATRIX";
#endif
	memcpy(cal, identity, sizeof(identity));
	return "identity";
}

static struct input_device *device_by_path(struct input *in, const char *path)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (in->dev[i].evdev && strcmp(in->dev[i].path, path) == 0)
			return &in->dev[i];
	return NULL;
}

static void device_close(struct input_device *d, const char *why)
{
	struct input *in = d->in;

	note(in, LOG_LEVEL_INFO, "%s: \"%s\" %s", d->path, libevdev_get_name(d->evdev), why);
	input_decoder_release(&d->dec);
	input_reader_remove(&in->reader, &d->src);
	libevdev_free(d->evdev);
	close(d->src.fd);
	d->evdev = NULL;
	d->src.fd = -1;
}

/* A device the reader found failed (d->gone): closed, saying why. */
static void close_failed(struct input_device *d)
{
	device_close(d, d->gone == -ENODEV ? "went away" : "failed; closed");
}

/* The first activity after a quiet spell at once, then at most every INPUT_ACTIVITY_MS: a
 * flood of events must not become a flood of wake-ups for the caller. */
static int64_t coarse_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool activity_due(struct input *in)
{
	int64_t now = coarse_ms();

	if (in->activity_ms && now - in->activity_ms < INPUT_ACTIVITY_MS)
		return false;
	in->activity_ms = now;
	return true;
}

/* A chattering panel drops events all the time: the log tells of them now and then. */
static bool drops_note_due(const struct input_device *d)
{
	return d->drops != d->drops_noted &&
	       (!d->drops_note_ms || coarse_ms() - d->drops_note_ms >= INPUT_DROPS_NOTE_MS);
}

/* Once per device: it turned out to report on ABS_Z/ABS_RX (input_decoder_watch_axes). */
static void note_axes(struct input_device *d)
{
	if (!d->dec.axes_switched || d->axes_noted)
		return;
	d->axes_noted = true;
	note(d->in, LOG_LEVEL_NOTICE, "%s: \"%s\" reports touches on ABS_Z and ABS_RX, not on "
	     "ABS_X and ABS_Y: using those (input.axes = \"ABS_Z ABS_RX\" says so from the start)",
	     d->path, libevdev_get_name(d->evdev));
}

/* On the reader thread: the resync after a SYN_DROPPED, in libevdev's sync mode. */
static int feed_dropped(struct input_device *d, struct input_event *ev)
{
	int rc = LIBEVDEV_READ_STATUS_SYNC;

	input_decoder_feed(&d->dec, ev);	/* the SYN_DROPPED */
	d->drops++;
	while (rc == LIBEVDEV_READ_STATUS_SYNC) {
		rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_SYNC, ev);
		if (rc == LIBEVDEV_READ_STATUS_SYNC)
			input_decoder_feed_sync(&d->dec, d->evdev, ev);
	}
	return rc == -EAGAIN ? LIBEVDEV_READ_STATUS_SUCCESS : rc;
}

/* Let go anyway: a contact held INPUT_LET_GO_MS past the hide. A grab is never forced on a
 * contact under way: the application would never see it lifted. */
static bool held_too_long(const struct input_device *d)
{
	return d->in->let_go && coarse_ms() - d->due_ms >= INPUT_LET_GO_MS;
}

/* Takes the device for fbripple alone, or lets it go: 0, or the -errno of a grab refused
 * (another program holds it: its events reach that program, the waking touch among them). */
static int device_grab(struct input_device *d, bool take)
{
	int rc = libevdev_grab(d->evdev, take ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB);

	return take && rc < 0 ? rc : 0;
}

static void note_grab_failed(struct input_device *d, int rc)
{
	note(d->in, LOG_LEVEL_WARNING, "%s: cannot grab: %s", d->path, strerror(-rc));
}

/* On the reader thread, with the lock held: every event the device has. The loop closes a
 * device that failed (tend_devices). */
static void feed_all(struct input_device *d)
{
	struct input_event ev;
	int rc, reads = 0;

	do {
		if (!input_reader_wait_room(&d->in->reader) || !d->evdev || d->gone)
			return;		/* stopping, or closed while we waited */
		rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_NORMAL, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SUCCESS)
			input_decoder_feed(&d->dec, &ev);
		else if (rc == LIBEVDEV_READ_STATUS_SYNC)
			rc = feed_dropped(d, &ev);
	} while (rc == LIBEVDEV_READ_STATUS_SUCCESS && ++reads < INPUT_READ_BATCH);
	if (d->dec.frames && activity_due(d->in))
		input_decoder_activity(&d->dec);
	d->dec.frames = 0;
	if (d->grab_due && (!input_decoder_held(&d->dec) || held_too_long(d))) {
		d->grab_failed = device_grab(d, !d->in->let_go);
		d->grab_due = false;
		if (d->grab_failed)
			input_reader_poke(&d->in->reader);
	}
	if (rc < 0 && rc != -EAGAIN) {
		d->gone = rc;
		input_reader_remove(&d->in->reader, &d->src);
		input_reader_poke(&d->in->reader);
	}
	if ((d->dec.axes_switched && !d->axes_noted) || drops_note_due(d))
		input_reader_poke(&d->in->reader);
}

static void on_device(struct input_reader_source *src)
{
	struct input_device *d = src->ctx;

	/* No EPOLLHUP test: evdev hangs up exactly when a read says -ENODEV, which feed_all
	 * handles. An entry closed (or reused) after its event was fetched reads nothing wrong. */
	if (d->evdev && !d->gone)
		feed_all(d);
}

static void open_waiting(struct input *in);

/* On the loop, with the lock held: what the reader thread found and cannot do itself. */
static void tend_devices(void *ctx)
{
	struct input *in = ctx;

	for (int i = 0; i < INPUT_DEVICES_MAX; i++) {
		struct input_device *d = &in->dev[i];

		if (!d->evdev)
			continue;
		if (drops_note_due(d)) {
			note(in, LOG_LEVEL_NOTICE, "%s: events dropped (%u times since the last note, "
			     "sent faster than they are taken); resynced", d->path,
			     d->drops - d->drops_noted);
			d->drops_noted = d->drops;
			d->drops_note_ms = coarse_ms();
		}
		note_axes(d);
		if (d->grab_failed)
			note_grab_failed(d, d->grab_failed);
		d->grab_failed = 0;
		if (d->gone)
			close_failed(d);
	}
	open_waiting(in);
}

static bool node_list_has(const struct node_list *l, const char *path)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->path[i], path) == 0)
			return true;
	return false;
}

/* 0, -EEXIST if path is in l already, or -ENOSPC when l is full. */
static int node_list_add(struct node_list *l, const char *path)
{
	if (node_list_has(l, path))
		return -EEXIST;
	if (l->n == l->max)
		return -ENOSPC;
	snprintf(l->path[l->n++], INPUT_PATH_MAX, "%s", path);
	return 0;
}

/* Whether path was in l. */
static bool node_list_forget(struct node_list *l, const char *path)
{
	for (int i = 0; i < l->n; i++) {
		if (strcmp(l->path[i], path) != 0)
			continue;
		memmove(l->path[i], l->path[i + 1], (size_t)(l->n - i - 1) * sizeof(l->path[0]));
		l->n--;
		return true;
	}
	return false;
}

static void waiting_forget(struct input *in, const char *path)
{
	if (node_list_forget(&in->waiting, path))
		in->waiting_full_noted = false;
}

static struct input_device *free_entry(struct input *in)
{
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (!in->dev[i].evdev)
			return &in->dev[i];
	return NULL;
}

/* Single touch and tablets with ABS_Z and ABS_RX: x and y from those if input.axes says so,
 * else watched for eGalax firmware that reports there instead of on ABS_X/Y. */
static const char *device_axes(const struct input *in, struct input_device *d)
{
	const struct input_absinfo *z = libevdev_get_abs_info(d->evdev, ABS_Z);
	const struct input_absinfo *rx = libevdev_get_abs_info(d->evdev, ABS_RX);
	struct input_axis az, arx;

	if ((d->dec.cls != INPUT_TOUCH && d->dec.cls != INPUT_TABLET) || !z || !rx)
		return "";
	az = (struct input_axis){ z->minimum, z->maximum };
	arx = (struct input_axis){ rx->minimum, rx->maximum };
	if (in->opts.axes == INPUT_AXES_Z_RX) {
		input_decoder_set_axes(&d->dec, ABS_Z, ABS_RX, &az, &arx);
		return "; x and y on ABS_Z and ABS_RX (input.axes)";
	}
	if (in->opts.axes == INPUT_AXES_AUTO)
		input_decoder_watch_axes(&d->dec, ABS_Z, ABS_RX, &az, &arx);
	return "";
}

/* Opens fd's device into d if it is one we use; 0, 1 if ignored, or -errno. */
static int device_setup(struct input *in, struct input_device *d, int fd, const char *path)
{
	struct input_axis ax, ay;
	enum input_class cls;
	char why[160];
	double cal[6];
	const char *from, *axes;
	int rc = libevdev_new_from_fd(fd, &d->evdev);

	if (rc < 0)
		return rc;
	cls = input_classify(d->evdev, why, sizeof(why), &ax, &ay);
	if (cls == INPUT_IGNORED || !wanted(&in->opts, path, libevdev_get_name(d->evdev))) {
		note(in, LOG_LEVEL_DEBUG, "%s: \"%s\" ignored: %s", path,
		     libevdev_get_name(d->evdev), cls == INPUT_IGNORED ? why : "not in input.devices");
		return 1;
	}
	if (in->opts.grab && !in->let_go && (rc = libevdev_grab(d->evdev, LIBEVDEV_GRAB)) < 0)
		note(in, LOG_LEVEL_WARNING, "%s: cannot grab: %s", path, strerror(-rc));
	from = device_matrix(in, fd, cal);
	input_map_device(&d->map, d->evdev, in->opts.fb_width, in->opts.fb_height, in->opts.rotate,
			 cal);
	input_decoder_init(&d->dec, cls, &ax, &ay, &d->map, in->opts.min_move,
			   (int)(d - in->dev) * INPUT_SLOTS, input_reader_push, &in->reader);
	axes = device_axes(in, d);
	d->axes_noted = false;
	d->grab_due = false;
	d->gone = d->grab_failed = 0;
	d->drops = d->drops_noted = 0;
	d->drops_note_ms = 0;
	libevdev_set_clock_id(d->evdev, CLOCK_MONOTONIC);	/* comparable with the frames' */
	input_decoder_seed(&d->dec, d->evdev);
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->src = (struct input_reader_source){ fd, on_device, d };
	rc = input_reader_add(&in->reader, &d->src);
	if (rc == 0)
		note(in, LOG_LEVEL_INFO, "%s: \"%s\": %s (%s); calibration: %s%s", path,
		     libevdev_get_name(d->evdev), input_class_name(cls), why, from, axes);
	return rc;
}

/* Opens path if it is a device we use. 0 or -errno (-EACCES: retried on a change; -ENOSPC:
 * every entry in use). */
static int device_open(struct input *in, const char *path)
{
	struct input_device *d;
	int fd, rc;

	d = device_by_path(in, path);
	if (d && !d->gone)
		return 0;
	if (d)		/* failed and not tended yet (its notice lost): the node is a new device */
		close_failed(d);
	d = free_entry(in);
	if (!d)		/* not open()'s EMFILE (out of descriptors): open() of a node to read
			 * never says ENOSPC */
		return -ENOSPC;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -EACCES || rc == -EPERM)
			node_list_add(&in->retry, path);	/* full: retried on a rescan only */
		return rc;
	}
	node_list_forget(&in->retry, path);
	d->in = in;
	rc = device_setup(in, d, fd, path);
	if (rc != 0) {
		libevdev_free(d->evdev);
		d->evdev = NULL;
		close(fd);
	}
	if (rc == -ENOSPC)	/* epoll's max_user_watches, not a free entry lacking */
		rc = -EMFILE;
	return rc < 0 ? rc : 0;
}

const char *input_open_error(const char *path, int ret, char *why, size_t len)
{
	if (ret != -EACCES || access_explain(path, R_OK, why, len) < 0)
		snprintf(why, len, "%s", strerror(-ret));
	return why;
}

/* Every entry is in use: path is opened when one frees (open_waiting). Said once per node,
 * and once while the waiting list is full, however often the node is seen. */
static void wait_for_room_noted(struct input *in, const char *path)
{
	int rc = node_list_add(&in->waiting, path);

	if (rc == 0) {
		note(in, LOG_LEVEL_WARNING, "%s: all %d devices fbripple reads are in use; it is "
		     "opened when one goes away", path, INPUT_DEVICES_MAX);
	} else if (rc == -ENOSPC && !in->waiting_full_noted) {
		in->waiting_full_noted = true;
		note(in, LOG_LEVEL_WARNING, "%s: not opened: all %d devices fbripple reads are in "
		     "use and %d more wait for one to go away (plug it in again then)", path,
		     INPUT_DEVICES_MAX, INPUT_WAITING_MAX);
	}
}

/* The log told what kept path from being used (rc from device_open), and a node that found
 * no free entry put to wait. Any other error (EMFILE among them: out of descriptors) drops the
 * node until it is seen again. The waiting list is the loop's alone: no lock needed. */
static void device_open_noted(struct input *in, const char *path, int rc)
{
	char why[256];

	if (rc == -ENOSPC)
		wait_for_room_noted(in, path);
	else if (rc == -EACCES || rc == -EPERM)
		note(in, LOG_LEVEL_WARNING, "%s: %s; retrying when its permissions change", path,
		     input_open_error(path, rc, why, sizeof(why)));
	else if (rc < 0 && rc != -ENOENT && rc != -ENODEV)
		note(in, LOG_LEVEL_WARNING, "%s: %s", path, strerror(-rc));
}

/* The log, and access_explain's lookups, wait until the reader thread has its lock back. */
static void device_add_noted(struct input *in, const char *path)
{
	int rc;

	input_reader_lock(&in->reader);
	rc = device_open(in, path);
	input_reader_unlock(&in->reader);
	device_open_noted(in, path, rc);
}

/* With the lock held, once entries freed: the nodes that found none, in the order they came.
 * One that went meanwhile fails to open, and is forgotten. Each is tried once a call: one put
 * back (no entry after all) waits for the next. The log is told under the lock here, rarely:
 * only when devices go away with others waiting. */
static void open_waiting(struct input *in)
{
	char path[INPUT_PATH_MAX];

	for (int n = in->waiting.n; n > 0 && in->waiting.n > 0 && free_entry(in); n--) {
		snprintf(path, sizeof(path), "%s", in->waiting.path[0]);
		waiting_forget(in, path);
		device_open_noted(in, path, device_open(in, path));
	}
}

static int scan_filter(const struct dirent *e)
{
	return is_event_node(e->d_name);
}

static int scan_compare(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 5) - atoi((*b)->d_name + 5);
}

static const char *nodes_dir(const struct input_opts *o)
{
	return o->dir ? o->dir : INPUT_DIR;
}

static void node_path(char path[INPUT_PATH_MAX], const char *dir, const char *name)
{
	snprintf(path, INPUT_PATH_MAX, "%s/%.32s", dir, name);
}

/* Calls fn for every eventN in dir, in numeric order. */
static int scan(const char *dir, void (*fn)(void *ctx, const char *path), void *ctx)
{
	struct dirent **list;
	char path[INPUT_PATH_MAX];
	int n = scandir(dir, &list, scan_filter, scan_compare);

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		node_path(path, dir, list[i]->d_name);
		fn(ctx, path);
		free(list[i]);
	}
	free(list);
	return 0;
}

static void scan_add(void *ctx, const char *path)
{
	device_add_noted(ctx, path);
}

/* ---- hotplug ---- */

static void node_removed(struct input *in, const char *path)
{
	struct input_device *d = device_by_path(in, path);

	node_list_forget(&in->retry, path);
	waiting_forget(in, path);
	input_reader_lock(&in->reader);
	if (d)
		device_close(d, "unplugged");
	open_waiting(in);
	input_reader_unlock(&in->reader);
}

static void node_changed(struct input *in, const char *path)
{
	if (node_list_has(&in->retry, path))
		device_add_noted(in, path);
}

static int watch_dir(struct input *in)
{
	char parent[INPUT_DIR_MAX];
	int parent_len = (int)(strrchr(in->dir, '/') - in->dir);

	in->dir_wd = inotify_add_watch(in->watch.fd, in->dir,
				       IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO);
	if (in->dir_wd >= 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	/* no input device yet: wait for the directory in its parent (/dev) */
	snprintf(parent, sizeof(parent), "%.*s", parent_len > 0 ? parent_len : 1, in->dir);
	return inotify_add_watch(in->watch.fd, parent, IN_CREATE | IN_ONLYDIR) < 0 ? -errno : 0;
}

static void inotify_event(struct input *in, const struct inotify_event *e)
{
	char path[INPUT_PATH_MAX];

	if (e->mask & IN_Q_OVERFLOW) {	/* events lost: what came meanwhile is found by a look */
		scan(in->dir, scan_add, in);
		return;
	}
	if (e->wd == in->dir_wd && (e->mask & IN_IGNORED)) {
		/* /dev/input went (devtmpfs removes it with its last node): wait for it anew */
		in->dir_wd = -1;
		if (watch_dir(in) == 0 && in->dir_wd >= 0)
			scan(in->dir, scan_add, in);
		return;
	}
	if (e->wd != in->dir_wd) {
		if ((e->mask & IN_CREATE) && strcmp(e->name, strrchr(in->dir, '/') + 1) == 0 &&
		    watch_dir(in) == 0 && in->dir_wd >= 0)
			scan(in->dir, scan_add, in);
		return;
	}
	if (!e->len || !is_event_node(e->name))
		return;
	node_path(path, in->dir, e->name);
	if (e->mask & (IN_CREATE | IN_MOVED_TO))
		device_add_noted(in, path);
	else if (e->mask & IN_ATTRIB)
		node_changed(in, path);
	else if (e->mask & IN_DELETE)
		node_removed(in, path);
}

static void on_inotify(struct loop_source *src, uint32_t events)
{
	struct input *in = src->ctx;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	(void)events;
	while ((n = read(src->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			inotify_event(in, e);
			p += sizeof(*e) + e->len;
		}
	}
}

#ifdef HAVE_LIBUDEV
static void on_udev(struct loop_source *src, uint32_t events)
{
	struct input *in = src->ctx;
	struct udev_device *ud;

	(void)events;
	while ((ud = udev_monitor_receive_device(in->mon))) {
		const char *node = udev_device_get_devnode(ud), *action = udev_device_get_action(ud);
		const char *base = node ? strrchr(node, '/') : NULL;

		if (base && action && is_event_node(base + 1)) {
			if (strcmp(action, "add") == 0)
				device_add_noted(in, node);
			else if (strcmp(action, "remove") == 0)
				node_removed(in, node);
			else if (strcmp(action, "change") == 0)
				node_changed(in, node);
		}
		udev_device_unref(ud);
	}
}

/* A udev monitor sees nodes only after udevd has set their permissions; needs udevd. */
static int open_udev_monitor(struct input *in)
{
	if (!in->udev || access("/run/udev/control", F_OK) < 0)
		return -ENOENT;
	in->mon = udev_monitor_new_from_netlink(in->udev, "udev");
	if (!in->mon || udev_monitor_filter_add_match_subsystem_devtype(in->mon, "input", NULL) < 0 ||
	    udev_monitor_enable_receiving(in->mon) < 0)
		return -EIO;
	in->watch = (struct loop_source){ udev_monitor_get_fd(in->mon), on_udev, in };
	return 0;
}
#endif

static int open_watch(struct input *in)
{
	int rc;

#ifdef HAVE_LIBUDEV
	in->udev = udev_new();
	/* udev names the nodes in /dev/input: a test's folder is watched itself */
	if (strcmp(in->dir, INPUT_DIR) == 0 && open_udev_monitor(in) == 0)
		return loop_add(in->loop, &in->watch);
	if (in->mon)
		udev_monitor_unref(in->mon);
	in->mon = NULL;
#endif
	in->watch = (struct loop_source){ inotify_init1(IN_NONBLOCK | IN_CLOEXEC), on_inotify, in };
	if (in->watch.fd < 0)
		return -errno;
	rc = watch_dir(in);
	return rc ? rc : loop_add(in->loop, &in->watch);
}

static int copy_patterns(struct input *in, const struct input_opts *o)
{
	for (int i = 0; i < in->npatterns; i++)
		free(in->patterns[i]);
	in->npatterns = 0;
	in->opts.devices = (const char *const *)in->patterns;
	in->opts.ndevices = 0;
	for (int i = 0; o->devices && i < o->ndevices && i < INPUT_PATTERNS_MAX; i++) {
		in->patterns[i] = strdup(o->devices[i]);
		if (!in->patterns[i])
			return -ENOMEM;
		in->opts.ndevices = ++in->npatterns;
	}
	return 0;
}

int input_open(struct input **out, const struct input_opts *opts, struct loop *loop,
	       input_take_fn *fn, input_note_fn *note_fn, void *ctx)
{
	struct input *in = calloc(1, sizeof(*in));
	int rc;

	*out = NULL;
	if (!in)
		return -ENOMEM;
	if (nodes_dir(opts)[0] != '/' || strlen(nodes_dir(opts)) >= sizeof(in->dir)) {
		free(in);
		return -EINVAL;
	}
	snprintf(in->dir, sizeof(in->dir), "%s", nodes_dir(opts));
	in->retry.max = INPUT_DEVICES_MAX;
	in->waiting.max = INPUT_WAITING_MAX;
	in->opts = *opts;
	in->opts.dir = in->dir;
	in->let_go = opts->released;
	in->loop = loop;
	in->fn = fn;
	in->note = note_fn;
	in->ctx = ctx;
	in->dir_wd = -1;
	in->watch.fd = -1;
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		in->dev[i].src.fd = -1;
	rc = input_reader_start(&in->reader, loop, fn, ctx, tend_devices, in);
	if (rc == 0)
		rc = copy_patterns(in, opts);
	if (rc == 0)
		rc = open_watch(in);
	if (rc < 0) {
		input_close(in);
		return rc;
	}
	*out = in;
	scan(in->dir, scan_add, in);
	return 0;
}

void input_grab(struct input *in, bool grab)
{
	int64_t now = coarse_ms();

	if (!in)
		return;
	input_reader_lock(&in->reader);
	/* the reader reads it for the devices due; kept with grabs off too, for the devices a
	 * reload that turns them on opens */
	in->let_go = !grab;
	for (int i = 0; in->opts.grab && i < INPUT_DEVICES_MAX; i++) {
		struct input_device *d = &in->dev[i];
		int rc;

		if (!d->evdev)
			continue;
		/* a touch under way keeps its reader to its end: the other program would get the
		 * rest of ours without its start, or never see its own lifted */
		d->grab_due = input_decoder_held(&d->dec);
		d->due_ms = now;
		if (!d->grab_due && (rc = device_grab(d, grab)) < 0)
			note_grab_failed(d, rc);
	}
	input_reader_unlock(&in->reader);
}

void input_close(struct input *in)
{
	if (!in)
		return;
	input_reader_stop(&in->reader);		/* the thread is gone: no lock from here */
	for (int i = 0; i < INPUT_DEVICES_MAX; i++) {
		struct input_device *d = &in->dev[i];

		if (!d->evdev)
			continue;
		libevdev_free(d->evdev);
		close(d->src.fd);
	}
#ifdef HAVE_LIBUDEV
	if (in->mon)
		udev_monitor_unref(in->mon);	/* closes the watch fd */
	else if (in->watch.fd >= 0)
		close(in->watch.fd);
	if (in->udev)
		udev_unref(in->udev);
#else
	if (in->watch.fd >= 0)
		close(in->watch.fd);
#endif
	for (int i = 0; i < in->npatterns; i++)
		free(in->patterns[i]);
	free(in);
}

int input_reconfigure(struct input *in, const struct input_opts *opts)
{
	int rc;

	input_reader_lock(&in->reader);
	for (int i = 0; i < INPUT_DEVICES_MAX; i++)
		if (in->dev[i].evdev)
			device_close(&in->dev[i], "closed for the new configuration");
	input_reader_unlock(&in->reader);
	in->retry.n = 0;
	in->waiting.n = 0;	/* the scan finds those still without an entry */
	in->waiting_full_noted = false;
	in->opts = *opts;
	in->opts.dir = in->dir;		/* the folder watched since input_open */
	rc = copy_patterns(in, opts);
	if (rc == 0)
		rc = scan(in->dir, scan_add, in);
	return rc == -ENOENT ? 0 : rc;
}

int input_count(const struct input *in)
{
	int n = 0;

	for (int i = 0; in && i < INPUT_DEVICES_MAX; i++)
		n += in->dev[i].evdev != NULL;
	return n;
}

/* ---- --list-devices ---- */

struct lister {
	FILE *out;
	const struct input_opts *opts;
	struct input *in;	/* for udev calibration only */
};

static void list_ranges(const struct lister *l, const struct libevdev *dev, int fd,
			enum input_class cls, const struct input_axis *ax,
			const struct input_axis *ay)
{
	struct input_map map;
	double cal[6];
	const char *from;
	int x0, y0, x1, y1;

	if (cls == INPUT_MOUSE) {
		fprintf(l->out, "    relative motion; the pointer starts at the screen centre\n");
		return;
	}
	from = device_matrix(l->in, fd, cal);
	input_map_device(&map, dev, l->opts->fb_width, l->opts->fb_height, l->opts->rotate, cal);
	fprintf(l->out, "    x %d..%d, y %d..%d", ax->min, ax->max, ay->min, ay->max);
	if (l->opts->fb_width > 0) {
		input_map_point(&map, 0, 0, &x0, &y0);
		input_map_point(&map, 0.999999, 0.999999, &x1, &y1);
		fprintf(l->out, " -> screen (%d,%d)..(%d,%d) of %dx%d", x0, y0, x1, y1, map.width,
			map.height);
	}
	fprintf(l->out, "; calibration %s [%g %g %g %g %g %g], rotate %d\n", from, cal[0], cal[1],
		cal[2], cal[3], cal[4], cal[5], map.rotate);
}

static void list_one(void *ctx, const char *path)
{
	const struct lister *l = ctx;
	struct libevdev *dev = NULL;
	struct input_axis ax, ay;
	enum input_class cls;
	char why[160], name[256];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int rc = fd < 0 ? -errno : libevdev_new_from_fd(fd, &dev);

	if (rc < 0) {
		fprintf(l->out, "%s: cannot open: %s\n", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return;
	}
	cls = input_classify(dev, why, sizeof(why), &ax, &ay);
	if (cls != INPUT_IGNORED && !wanted(l->opts, path, libevdev_get_name(dev))) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; not in input.devices");
		cls = INPUT_IGNORED;
	}
	log_escape(name, sizeof(name), libevdev_get_name(dev));
	fprintf(l->out, "%s: \"%s\": %s: %s\n", path, name, input_class_name(cls), why);
	if (cls != INPUT_IGNORED)
		list_ranges(l, dev, fd, cls, &ax, &ay);
	libevdev_free(dev);
	close(fd);
}

int input_list_devices(FILE *out, const struct input_opts *opts)
{
	struct input in = { .opts = *opts };
	struct lister l = { out, opts, &in };
	int rc;

#ifdef HAVE_LIBUDEV
	in.udev = udev_new();
#endif
	rc = scan(nodes_dir(opts), list_one, &l);
	if (rc < 0)
		fprintf(out, "%s: %s\n", nodes_dir(opts), strerror(-rc));
#ifdef HAVE_LIBUDEV
	if (in.udev)
		udev_unref(in.udev);
#endif
	return rc;
}
