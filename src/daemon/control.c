/* control.c - the control socket: parsing command lines, and a non-blocking server for them. */
#include "control.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_ARGS_MAX 6

struct token {
	const char *s;
	size_t len;
};

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits line into at most CONTROL_ARGS_MAX tokens; their number, or -E2BIG. */
static int tokenize(const char *line, size_t len, struct token *tok)
{
	int n = 0;

	for (size_t i = 0; i < len;) {
		if (is_blank(line[i])) {
			i++;
			continue;
		}
		if (n == CONTROL_ARGS_MAX)
			return -E2BIG;
		tok[n].s = line + i;
		while (i < len && !is_blank(line[i]))
			i++;
		tok[n].len = (size_t)(line + i - tok[n].s);
		n++;
	}
	return n;
}

static bool token_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* A decimal integer in [min, max]; 0 or -EINVAL. */
static int token_int(const struct token *t, int min, int max, int *out)
{
	size_t i = t->s[0] == '-' || t->s[0] == '+';
	int64_t v = 0;

	/* 12 digits cannot overflow 64 bits, whatever long is on this machine */
	if (i == t->len || t->len > 12)
		return -EINVAL;
	for (; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -EINVAL;
		v = v * 10 + (t->s[i] - '0');
	}
	if (t->s[0] == '-')
		v = -v;
	if (v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int parse_coords(const struct token *t, int n, int *out, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		if (token_int(&t[i], -CONTROL_COORD_MAX, CONTROL_COORD_MAX, &out[i]) < 0)
			return fail(err, errlen, "coordinates must be integers from -65535 to 65535");
	}
	return 0;
}

static int parse_drop(const struct token *t, int n, struct control_command *cmd, char *err,
		      size_t errlen)
{
	int xy[2];

	if (n != 3 && n != 5)
		return fail(err, errlen, "usage: drop X Y [SIZE WEIGHT]");
	if (parse_coords(t + 1, 2, xy, err, errlen) < 0)
		return -EINVAL;
	cmd->x = xy[0];
	cmd->y = xy[1];
	if (n == 5 && (token_int(&t[3], 1, 100, &cmd->size) < 0 ||
		       token_int(&t[4], 1, 4096, &cmd->weight) < 0))
		return fail(err, errlen, "SIZE must be 1 to 100 and WEIGHT 1 to 4096");
	return 0;
}

static int parse_trail(const struct token *t, int n, struct control_command *cmd, char *err,
		       size_t errlen)
{
	int c[4];

	if (n != 5)
		return fail(err, errlen, "usage: trail X1 Y1 X2 Y2");
	if (parse_coords(t + 1, 4, c, err, errlen) < 0)
		return -EINVAL;
	cmd->x = c[0];
	cmd->y = c[1];
	cmd->x2 = c[2];
	cmd->y2 = c[3];
	return 0;
}

static int parse_rain(const struct token *t, int n, struct control_command *cmd, char *err,
		      size_t errlen)
{
	if (n != 2 || !(token_is(&t[1], "on") || token_is(&t[1], "off")))
		return fail(err, errlen, "usage: rain on|off");
	cmd->on = token_is(&t[1], "on");
	return 0;
}

static int parse_screenshot(const struct token *t, int n, struct control_command *cmd,
			    char *err, size_t errlen)
{
	if (n != 2 || t[1].s[0] != '/')
		return fail(err, errlen, "usage: screenshot /ABSOLUTE/PATH.png");
	memcpy(cmd->path, t[1].s, t[1].len);
	cmd->path[t[1].len] = '\0';
	return 0;
}

static int check_text(const char *line, size_t len, char *err, size_t errlen)
{
	if (len >= CONTROL_LINE_MAX)
		return fail(err, errlen, "line too long");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t' && !(c == '\r' && i == len - 1)) || c >= 0x7f)
			return fail(err, errlen, "not a text line");
	}
	return 0;
}

int control_parse(const char *line, size_t len, struct control_command *cmd, char *err,
		  size_t errlen)
{
	static const char *const words[] = { "drop", "trail", "rain", "pause", "resume",
					     "screenshot", "reload", "status" };
	struct token t[CONTROL_ARGS_MAX];
	int n;

	if (check_text(line, len, err, errlen) < 0)
		return -EINVAL;
	if (len && line[len - 1] == '\r')
		len--;
	n = tokenize(line, len, t);
	if (n < 0)
		return fail(err, errlen, "too many arguments");
	if (n == 0)
		return fail(err, errlen, "empty command");
	memset(cmd, 0, sizeof(*cmd));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!token_is(&t[0], words[i]))
			continue;
		cmd->type = (enum control_type)i;
		switch (cmd->type) {
		case CONTROL_DROP:
			return parse_drop(t, n, cmd, err, errlen);
		case CONTROL_TRAIL:
			return parse_trail(t, n, cmd, err, errlen);
		case CONTROL_RAIN:
			return parse_rain(t, n, cmd, err, errlen);
		case CONTROL_SCREENSHOT:
			return parse_screenshot(t, n, cmd, err, errlen);
		default:
			return n == 1 ? 0 : fail(err, errlen, "this command takes no arguments");
		}
	}
	return fail(err, errlen, "unknown command (drop, trail, rain, pause, resume, screenshot, "
			    "reload, status)");
}

/* The server. A client's lines are read one at a time, and the next only once the last one's
 * reply has gone out: the rest wait in its socket, so a client that pipelines commands without
 * reading its replies holds up only itself, and each wake-up reads at most CONTROL_BATCH times
 * from each client. */

enum read_result { READ_NONE, READ_MORE, READ_LINE, READ_LAST, READ_GONE };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void listen_resume(struct control *c)
{
	if (c->listen_paused && c->listen.fd >= 0 && loop_watch(c->loop, &c->listen, EPOLLIN) == 0)
		c->listen_paused = false;
}

static void client_close(struct control_client *cl)
{
	if (cl->src.fd < 0)
		return;
	loop_remove(cl->owner->loop, &cl->src);
	close(cl->src.fd);
	cl->src.fd = -1;
	listen_resume(cl->owner);
}

/* Reads while it owes nothing; waits to send a reply it has not taken; else only a hang-up. */
static bool client_watch(struct control_client *cl)
{
	uint32_t events = cl->waiting ? 0 : cl->out_len ? EPOLLOUT : EPOLLIN;

	if (events == cl->events)
		return true;
	if (loop_watch(cl->owner->loop, &cl->src, events) < 0)
		return false;
	cl->events = events;
	return true;
}

/* Sends what is left of the reply; false when the client must go. */
static bool client_flush(struct control_client *cl)
{
	while (cl->out_off < cl->out_len) {
		ssize_t n = send(cl->src.fd, cl->out + cl->out_off, cl->out_len - cl->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0)
			return false;
		cl->out_off += (size_t)n;
	}
	if (cl->out_off == cl->out_len)
		cl->out_off = cl->out_len = 0;
	return client_watch(cl);
}

static bool client_reply(struct control_client *cl, const char *reply)
{
	size_t n = strnlen(reply, sizeof(cl->out) - 1);

	memcpy(cl->out, reply, n);
	cl->out[n++] = '\n';
	cl->out_len = n;
	cl->out_off = 0;
	return client_flush(cl);
}

/* Runs one line and answers it, now or later; false when the client must go. */
static bool client_line(struct control_client *cl, const char *line, size_t len)
{
	struct control *c = cl->owner;
	struct control_ticket ticket = { (int)(cl - c->clients), cl->serial };
	struct control_command cmd;
	char reply[CONTROL_REPLY_MAX], err[160];

	cl->active = ++c->clock;
	if (cl->overflow)
		snprintf(reply, sizeof(reply), "error: line too long");
	else if (control_parse(line, len, &cmd, err, sizeof(err)) < 0)
		snprintf(reply, sizeof(reply), "error: %s", err);
	else if (c->exec(c->ctx, &cmd, ticket, reply, sizeof(reply)) == CONTROL_LATER) {
		cl->waiting = true;
		return client_watch(cl);
	}
	return client_reply(cl, reply);
}

/* One read, up to the end of the line: the lines after it stay in the socket. */
static enum read_result client_read(struct control_client *cl)
{
	size_t room = sizeof(cl->buf) - cl->len;
	ssize_t n = recv(cl->src.fd, cl->buf + cl->len, room, MSG_PEEK | MSG_DONTWAIT);
	char *nl;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? READ_NONE
										 : READ_GONE;
	if (n == 0)
		return cl->len > 0 && !cl->overflow ? READ_LAST : READ_GONE;
	nl = memchr(cl->buf + cl->len, '\n', (size_t)n);
	if (nl)
		n = nl - (cl->buf + cl->len) + 1;
	if (recv(cl->src.fd, cl->buf + cl->len, (size_t)n, MSG_DONTWAIT) != n)
		return READ_GONE;
	cl->len += (size_t)n;
	cl->spoke = true;
	cl->heard_ms = now_ms();
	if (nl)
		return READ_LINE;
	if (cl->len < sizeof(cl->buf))
		return READ_NONE;
	cl->overflow = true;	/* keep reading to the newline, then say so */
	cl->len = 0;
	return READ_MORE;
}

/* Up to CONTROL_BATCH reads; false when the client must go. */
static bool client_serve(struct control_client *cl)
{
	for (int i = 0; i < CONTROL_BATCH && !cl->waiting && !cl->out_len; i++) {
		enum read_result r = client_read(cl);
		bool ok;

		if (r == READ_NONE)
			return true;
		if (r == READ_GONE)
			return false;
		if (r == READ_MORE)
			continue;
		ok = client_line(cl, cl->buf, cl->len - (r == READ_LINE));	/* without '\n' */
		cl->overflow = false;
		cl->len = 0;
		/* the last line, its reply sent: done; else it goes once answered */
		if (!ok || (r == READ_LAST && !cl->waiting && !cl->out_len))
			return false;
	}
	return true;
}

static void on_client(struct loop_source *src, uint32_t events)
{
	struct control_client *cl = src->ctx;
	bool ok;

	if (cl->waiting)	/* only a hang-up wakes it: its reply has nobody to go to */
		ok = !(events & (EPOLLHUP | EPOLLERR));
	else if (cl->out_len)
		ok = client_flush(cl);
	else
		ok = client_serve(cl);
	if (!ok)
		client_close(cl);
	listen_resume(cl->owner);
}

void control_answer(struct control *c, struct control_ticket ticket, const char *reply)
{
	struct control_client *cl;

	if (ticket.slot < 0 || ticket.slot >= CONTROL_CLIENTS)
		return;
	cl = &c->clients[ticket.slot];
	if (cl->src.fd < 0 || cl->serial != ticket.serial || !cl->waiting)
		return;		/* it went away meanwhile */
	cl->waiting = false;
	if (!client_reply(cl, reply))
		client_close(cl);
	listen_resume(c);
}

/* How readily a client gives up its slot to a new one: -1 not now (a reply is being made for
 * it, or it is in the middle of its line or has yet to send one, and connected or sent a byte
 * less than CONTROL_GRACE_MS ago), 0 idle, 1 stuck in a line or not taking its reply, 2 with a
 * request not read yet. */
static int client_rank(const struct control_client *cl, int64_t now)
{
	bool midway = cl->len || cl->overflow || !cl->spoke;
	int unread = 0;

	if (cl->waiting || (midway && now - cl->heard_ms < CONTROL_GRACE_MS))
		return -1;
	if (cl->len || cl->overflow || cl->out_len)
		return 1;
	if (ioctl(cl->src.fd, FIONREAD, &unread) == 0 && unread > 0)
		return 2;
	return 0;
}

/* A free slot, else the client to evict for a new one: of the lowest rank, the one that sent
 * nothing for the longest; NULL when every client has a request in hand. */
static struct control_client *pick_slot(struct control *c, int64_t now)
{
	struct control_client *victim = NULL;
	int best = 2;

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_client *cl = &c->clients[i];
		int rank;

		if (cl->src.fd < 0)
			return cl;
		rank = client_rank(cl, now);
		if (rank >= 0 && (rank < best || (rank == best && victim &&
						   cl->active < victim->active))) {
			victim = cl;
			best = rank;
		}
	}
	return victim;
}

/* The earliest end of a client's grace, or -1 when none has one. */
static int64_t grace_end(const struct control *c, int64_t now)
{
	int64_t end = -1;

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		const struct control_client *cl = &c->clients[i];
		int64_t e = cl->heard_ms + CONTROL_GRACE_MS;

		if (cl->src.fd >= 0 && !cl->waiting && e > now && (end < 0 || e < end))
			end = e;
	}
	return end;
}

static void on_grace(struct loop_source *src, uint32_t events)
{
	struct control *c = src->ctx;
	uint64_t n;

	(void)events;
	if (read(src->fd, &n, sizeof(n)) == sizeof(n))
		listen_resume(c);
}

/* Every slot busy: new clients wait in the backlog until a client is answered or goes, or one's
 * grace ends. */
static void listen_pause(struct control *c, int64_t now)
{
	int64_t end = grace_end(c, now);
	struct itimerspec its = { 0 };

	if (end >= 0 && c->grace.fd < 0) {
		c->grace.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (c->grace.fd >= 0 && loop_add(c->loop, &c->grace) < 0) {
			close(c->grace.fd);
			c->grace.fd = -1;
		}
	}
	if (end >= 0 && c->grace.fd >= 0) {
		its.it_value = (struct timespec){ (time_t)((end - now) / 1000),
						  (long)((end - now) % 1000) * 1000000 };
		timerfd_settime(c->grace.fd, 0, &its, NULL);
	}
	if (loop_watch(c->loop, &c->listen, 0) == 0)
		c->listen_paused = true;
}

static void on_listen(struct loop_source *src, uint32_t events)
{
	struct control *c = src->ctx;
	int64_t now = now_ms();

	(void)events;
	for (int i = 0; i < CONTROL_BATCH; i++) {
		struct control_client *cl = pick_slot(c, now);
		int fd;

		if (!cl) {
			listen_pause(c, now);
			return;
		}
		fd = accept4(c->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		client_close(cl);
		*cl = (struct control_client){ .src = { fd, on_client, cl }, .owner = c,
					       .events = EPOLLIN, .serial = ++c->accepted,
					       .active = ++c->clock, .heard_ms = now };
		if (loop_add(c->loop, &cl->src) < 0) {
			close(fd);
			cl->src.fd = -1;
		}
	}
}

void control_init(struct control *c, struct loop *loop, control_exec_fn *exec, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->listen = (struct loop_source){ -1, on_listen, c };
	c->grace = (struct loop_source){ -1, on_grace, c };
	c->loop = loop;
	c->exec = exec;
	c->ctx = ctx;
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		c->clients[i].src.fd = -1;
}

static int control_addr(const char *path, struct sockaddr_un *addr)
{
	if (strlen(path) >= sizeof(addr->sun_path))
		return -ENAMETOOLONG;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	strcpy(addr->sun_path, path);
	return 0;
}

/* Makes the socket's directory if it is missing (one level, like /run/fbripple). */
static void make_parent(const char *path)
{
	char dir[sizeof(((struct control *)0)->path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
}

/* Whether a socket at addr still accepts connections (a full backlog counts): then another
 * fbripple is running on it, and its socket is not ours to remove. */
static bool socket_alive(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return true;	/* cannot tell: leave it alone */
	alive = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0 || errno == EAGAIN;
	close(fd);
	return alive;
}

static int bind_socket(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;
	int fd, ret = control_addr(path, &addr);

	if (ret < 0)
		return ret;
	make_parent(path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		if (socket_alive(&addr))
			return -EADDRINUSE;
		unlink(path);	/* left behind by a daemon that died */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || chmod(path, 0660) < 0 ||
	    listen(fd, CONTROL_CLIENTS) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static void close_listener(struct control *c)
{
	if (c->listen.fd < 0)
		return;
	loop_remove(c->loop, &c->listen);
	close(c->listen.fd);
	unlink(c->path);
	c->listen.fd = -1;
	c->listen_paused = false;
	c->path[0] = '\0';
}

int control_listen(struct control *c, const char *path)
{
	int fd, ret;

	if (!path[0]) {
		close_listener(c);
		return 0;
	}
	if (strlen(path) >= sizeof(c->path))
		return -ENAMETOOLONG;
	if (c->listen.fd >= 0 && strcmp(path, c->path) == 0)
		return 0;
	fd = bind_socket(path);
	if (fd < 0)
		return fd;
	close_listener(c);
	c->listen.fd = fd;
	ret = loop_add(c->loop, &c->listen);
	if (ret < 0) {
		close(fd);
		unlink(path);
		c->listen.fd = -1;
		return ret;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	return 0;
}

void control_close(struct control *c)
{
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].owner)
			client_close(&c->clients[i]);
	close_listener(c);
	if (c->grace.fd >= 0) {
		loop_remove(c->loop, &c->grace);
		close(c->grace.fd);
		c->grace.fd = -1;
	}
}

/* The client side. */

static int read_reply(int fd, char *reply, size_t len, int64_t deadline)
{
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return -ETIMEDOUT;
		n = recv(fd, reply + got, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 || reply[got] == '\n')
			break;
		got++;
	}
	reply[got] = '\0';
	return got ? 0 : -ECONNRESET;
}

/* The line and its newline in one go where they fit (too long a line is the server's to refuse). */
static int send_line(int fd, const char *line, size_t n)
{
	char buf[CONTROL_LINE_MAX + 1];

	if (n >= sizeof(buf))
		return send(fd, line, n, MSG_NOSIGNAL) == (ssize_t)n &&
		       send(fd, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
	memcpy(buf, line, n);
	buf[n] = '\n';
	return send(fd, buf, n + 1, MSG_NOSIGNAL) == (ssize_t)(n + 1) ? 0 : -1;
}

/* A server whose backlog is full holds a blocking connect (and a send to a full socket) until
 * the send timeout: the whole exchange keeps within timeout_ms. */
static int connect_within(int fd, const struct sockaddr_un *addr, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0)
		return 0;
	return errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
}

int control_send(const char *path, const char *line, char *reply, size_t len, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct sockaddr_un addr;
	size_t n = strlen(line);
	int fd, ret = control_addr(path, &addr);

	if (ret < 0)
		return ret;
	if (len == 0 || strchr(line, '\n') || timeout_ms <= 0)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect_within(fd, &addr, timeout_ms);
	if (ret == 0 && send_line(fd, line, n) < 0)
		ret = errno == EAGAIN ? -ETIMEDOUT : -errno;
	if (ret == 0)
		ret = read_reply(fd, reply, len, deadline);
	close(fd);
	return ret;
}
