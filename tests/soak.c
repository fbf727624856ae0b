/* soak.c - `make soak`: the daemon paced for minutes on a file framebuffer under rain, drops,
 * trails, reloads, SIGHUPs, screenshots and clients that misbehave, its RSS, fds and threads
 * sampled; fails on growth or on a reply slower than it should be.
 * Usage: soak [MINUTES] (default 10), with FBRIPPLE_BIN naming the daemon (default ./fbripple). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "daemon/control.h"
#include "image/image.h"

#define REPLY_MS_MAX 100	/* a command answered on the loop */
#define SLOW_MS_MAX 5000	/* a reload (the picture decoded first) or a screenshot (encoded) */
#define RSS_GROWTH_KB 1024	/* from the end of the first sixth of the run to its end */
#define SAMPLE_MS 10000

struct soak {
	char dir[64], conf[128], sock[128], fb[128], log[128];
	pid_t daemon, pest;
	long replies, failures;
	long worst_ms, worst_slow_ms;	/* the slowest quick reply; reload or screenshot */
	char worst_cmd[64];
};

struct sample {
	long rss_kb;
	int fds, threads;
};

static uint32_t rnd(void)
{
	static uint32_t x = 2463534242u;

	x ^= x << 13, x ^= x >> 17, x ^= x << 5;
	return x;
}

static void die(const char *what)
{
	fprintf(stderr, "soak: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(path);
}

static void write_splash(const char *path, uint32_t a, uint32_t b)
{
	struct image img = { 800, 480, malloc(800 * 480 * sizeof(uint32_t)) };

	if (!img.pixels)
		die("malloc");
	for (int y = 0; y < 480; y++)
		for (int x = 0; x < 800; x++)
			img.pixels[y * 800 + x] = 0xff000000u | ((x / 16 + y / 16) % 2 ? a : b);
	if (image_write_png(&img, path) < 0)
		die(path);
	free(img.pixels);
}

/* One of two looks, each with its own splash, so that every reload changes something. */
static void write_conf(struct soak *s, int look)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "control = { socket = \"%s\"; };\n"
		 "display = { fps = 30; };\n"
		 "splash = { image = \"%s/splash%d.png\"; };\n"
		 "rain = { enabled = true; rate = %d.0; };\n"
		 "stone = { size = %d; };\n"
		 "water = { engine = \"%s\"; };\n",
		 s->sock, s->dir, look, look ? 20 : 8, look ? 12 : 8, look ? "hooke" : "classic");
	write_file(s->conf, text);
}

static void start_daemon(struct soak *s)
{
	const char *bin = getenv("FBRIPPLE_BIN") ? getenv("FBRIPPLE_BIN") : "./fbripple";

	s->daemon = fork();
	if (s->daemon < 0)
		die("fork");
	if (s->daemon == 0) {
		int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		unsetenv("NOTIFY_SOCKET");
		execl(bin, bin, "-c", s->conf, "--fbdev", s->fb, "--size", "800x480", (char *)NULL);
		_exit(127);
	}
	for (long end = now_ms() + 10000; access(s->sock, F_OK) != 0; sleep_ms(20))
		if (now_ms() > end) {
			fprintf(stderr, "soak: the daemon did not start (see %s)\n", s->log);
			exit(2);
		}
}

/* One command; its round trip is judged against max_ms. */
static void ask(struct soak *s, const char *cmd, bool slow)
{
	char reply[CONTROL_REPLY_MAX];
	long t = now_ms(), ms;
	int ret = control_send(s->sock, cmd, reply, sizeof(reply), 10000);

	ms = now_ms() - t;
	s->replies++;
	if (ret < 0 || strncmp(reply, "ok", 2) != 0) {
		printf("soak: \"%s\": %s\n", cmd, ret < 0 ? strerror(-ret) : reply);
		s->failures++;
	}
	if (slow && ms > s->worst_slow_ms)
		s->worst_slow_ms = ms;
	if (!slow && ms > s->worst_ms) {
		s->worst_ms = ms;
		snprintf(s->worst_cmd, sizeof(s->worst_cmd), "%s", cmd);
	}
	if (ms > (slow ? SLOW_MS_MAX : REPLY_MS_MAX)) {
		printf("soak: \"%s\" answered after %ld ms\n", cmd, ms);
		s->failures++;
	}
}

/* Another process that misbehaves on the control socket: it holds up to 8 connections that
 * say nothing or drip a line that never ends, and opens new ones all the time. */
static void pest(const struct soak *s)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fds[8];

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%.100s", s->sock);
	for (int i = 0; i < 8; i++)
		fds[i] = -1;
	for (unsigned i = 0;; i++) {
		int k = (int)(i % 8);

		if (fds[k] >= 0)
			close(fds[k]);
		fds[k] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		connect(fds[k], (struct sockaddr *)&addr, sizeof(addr));
		for (int j = 0; j < 8; j += 2)
			if (fds[j] >= 0)
				send(fds[j], "d", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		sleep_ms(50);
	}
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static long status_field(pid_t pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

/* The fds the lowest of a few looks within 200 ms (a reload reading its files holds one more
 * for a moment); threads likewise (a worker's job may be running). */
static struct sample take_sample(pid_t pid)
{
	char path[64];
	struct sample sm = { status_field(pid, "VmRSS:"), 1 << 30, 1 << 30 };

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	for (int i = 0; i < 5; i++, sleep_ms(50)) {
		int fds = count_dir(path), threads = (int)status_field(pid, "Threads:");

		sm.fds = fds < sm.fds ? fds : sm.fds;
		sm.threads = threads < sm.threads ? threads : sm.threads;
	}
	return sm;
}

static void remove_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "soak: could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
	struct soak s = { .daemon = 0 };
	struct sample first, base = { 0 }, last = { 0 };
	double minutes = argc > 1 ? atof(argv[1]) : 10;
	long start, end, next_sample, t;
	char cmd[256], shots[128];
	int look = 0, shot = 0;
	bool have_base = false;

	if (minutes <= 0) {
		fprintf(stderr, "usage: soak [MINUTES]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(s.dir, sizeof(s.dir), "/tmp/fbripple-soak.XXXXXX");
	if (!mkdtemp(s.dir))
		die("mkdtemp");
	snprintf(s.conf, sizeof(s.conf), "%s/fbripple.conf", s.dir);
	snprintf(s.sock, sizeof(s.sock), "%s/control", s.dir);
	snprintf(s.fb, sizeof(s.fb), "%s/fb.raw", s.dir);
	snprintf(s.log, sizeof(s.log), "%s/log", s.dir);
	snprintf(shots, sizeof(shots), "%s/shots", s.dir);
	if (mkdir(shots, 0755) < 0)
		die(shots);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s/splash%d.png", s.dir, i);
		write_splash(cmd, i ? 0x208040 : 0x2040a0, i ? 0x202020 : 0xe0e0e0);
	}
	write_conf(&s, look);
	start_daemon(&s);
	s.pest = fork();
	if (s.pest == 0)
		pest(&s);
	start = now_ms();
	end = start + (long)(minutes * 60000);
	next_sample = start;
	first = take_sample(s.daemon);
	printf("soak: %.1f min of %s on 800x480 at 30 fps; every 100 ms a client's drop, trail and "
	       "status, every 2 s a screenshot and a reload, every 5 s a SIGHUP and a pause\n",
	       minutes, getenv("FBRIPPLE_BIN") ? getenv("FBRIPPLE_BIN") : "./fbripple");
	for (long tick = 0; (t = now_ms()) < end; tick++) {
		if (waitpid(s.daemon, NULL, WNOHANG) == s.daemon) {
			printf("soak: the daemon died (see %s)\n", s.log);
			s.failures++;
			s.daemon = 0;
			break;
		}
		snprintf(cmd, sizeof(cmd), "drop %u %u", rnd() % 800, rnd() % 480);
		ask(&s, cmd, false);
		snprintf(cmd, sizeof(cmd), "trail %u %u %u %u", rnd() % 800, rnd() % 480,
			 rnd() % 800, rnd() % 480);
		ask(&s, cmd, false);
		ask(&s, "status", false);
		if (tick % 20 == 10) {
			snprintf(cmd, sizeof(cmd), "screenshot %s/%d.png", shots, shot);
			ask(&s, cmd, true);
			snprintf(cmd, sizeof(cmd), "%s/%d.png", shots, shot++);
			unlink(cmd);
		}
		if (tick % 20 == 0 && tick) {
			write_conf(&s, look ^= 1);
			ask(&s, "reload", true);
		}
		if (tick % 50 == 25) {
			kill(s.daemon, SIGHUP);
			ask(&s, "pause", false);
			ask(&s, "resume", false);
		}
		if (t >= next_sample) {
			struct sample sm = take_sample(s.daemon);

			if (!have_base && t - start >= (end - start) / 6) {
				base = sm;
				have_base = true;
			}
			last = sm;
			printf("soak: %5.1f min: VmRSS %ld kB, %d fds, %d threads; %ld replies, the "
			       "slowest %ld ms (%s), reload/screenshot %ld ms\n",
			       (t - start) / 60000.0, sm.rss_kb, sm.fds, sm.threads, s.replies,
			       s.worst_ms, s.worst_cmd, s.worst_slow_ms);
			fflush(stdout);
			next_sample += SAMPLE_MS;
		}
		sleep_ms(100 - (now_ms() - t) % 100);
	}
	kill(s.pest, SIGKILL);
	waitpid(s.pest, NULL, 0);
	if (s.daemon) {
		last = take_sample(s.daemon);
		if (!have_base)
			base = last;
		kill(s.daemon, SIGTERM);
		waitpid(s.daemon, NULL, 0);
	}
	printf("soak: VmRSS %ld kB at the start, %ld after a sixth of the run, %ld at the end; fds "
	       "%d, %d, %d; threads %d, %d, %d; %ld replies, %ld failed; the slowest %ld ms (%s), "
	       "reload or screenshot %ld ms; %d screenshots\n", first.rss_kb, base.rss_kb,
	       last.rss_kb, first.fds, base.fds, last.fds, first.threads, base.threads,
	       last.threads, s.replies, s.failures, s.worst_ms, s.worst_cmd, s.worst_slow_ms, shot);
	if (last.rss_kb - base.rss_kb > RSS_GROWTH_KB || last.fds > base.fds ||
	    last.threads > base.threads) {
		printf("soak: FAILED: the daemon grew\n");
		s.failures++;
	}
	if (count_dir(shots) != 0) {
		printf("soak: FAILED: %d files left among the screenshots' (temporary ones?)\n",
		       count_dir(shots));
		s.failures++;
	}
	if (s.failures) {
		printf("soak: FAILED (the daemon's log: %s)\n", s.log);
		return 1;
	}
	remove_tree(s.dir);
	printf("soak: passed\n");
	return 0;
}
