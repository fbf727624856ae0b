/* control.c - the control socket's server: non-blocking clients, one command line at a time. */
#include "control.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "control_socket.h"
#include "util/clock.h"

/* The server. A client's lines are read one at a time, and the next only once the last one's
 * reply has gone out: the rest wait in its socket, so a client that pipelines commands without
 * reading its replies holds up only itself, and each wake-up reads at most CONTROL_BATCH times
 * from each client. The commands of all clients take their stone work from the wake-up's
 * budget, which input's contacts share: once it is spent no line is read until the next
 * wake-up, where the clients that waited longest go first, and a command that needs more goes
 * on there before its client's next line. */

enum read_result { READ_NONE, READ_MORE, READ_LINE, READ_LAST, READ_GONE };

static void listen_resume(struct control *c)
{
	if (c->listen_paused && c->listen.fd >= 0 && loop_watch(c->loop, &c->listen, EPOLLIN) == 0)
		c->listen_paused = false;
}

static int timer_open(struct control *c)
{
	int ret;

	if (c->timer.fd >= 0)
		return 0;
	c->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->timer.fd < 0)
		return -errno;
	ret = loop_add(c->loop, &c->timer);
	if (ret < 0) {
		close(c->timer.fd);
		c->timer.fd = -1;
	}
	return ret;
}

/* The timer fires at the earliest of what it was asked for; 0 or -errno. */
static int timer_arm(struct control *c, int64_t when)
{
	struct itimerspec its = { 0 };
	int ret;

	if (c->timer_at && c->timer_at <= when)
		return 0;
	ret = timer_open(c);
	if (ret < 0)
		return ret;
	its.it_value = (struct timespec){ (time_t)(when / 1000), (long)(when % 1000) * 1000000 };
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;	/* zero would disarm it */
	if (timerfd_settime(c->timer.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	c->timer_at = when;
	return 0;
}

/* No client left but watchers: nothing to wake up for (calm means no wake-up at all). */
static void timer_disarm_if_unused(struct control *c)
{
	struct itimerspec its = { 0 };

	/* a watcher is never closed for being idle: it needs no timer either */
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].src.fd >= 0 && !c->clients[i].watching)
			return;
	if (c->timer_at && timerfd_settime(c->timer.fd, 0, &its, NULL) == 0)
		c->timer_at = 0;
}

static void client_close(struct control_client *cl)
{
	if (cl->src.fd < 0)
		return;
	loop_remove(cl->owner->loop, &cl->src);
	close(cl->src.fd);
	cl->src.fd = -1;
	listen_resume(cl->owner);
	timer_disarm_if_unused(cl->owner);
}

/* Reads while it owes nothing; waits to send a reply it has not taken; else only a hang-up. */
static bool client_watch(struct control_client *cl)
{
	/* an unfinished command wakes the next loop round as a socket with room to write */
	uint32_t events = cl->waiting ? 0 : cl->out_len || cl->unfinished ? EPOLLOUT : EPOLLIN;

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

/* A reply is one line: a newline in it (a path's, in an error) would answer the client's next
 * command with the rest. */
static bool client_reply(struct control_client *cl, const char *reply)
{
	size_t n = strnlen(reply, sizeof(cl->out) - 1);

	for (size_t i = 0; i < n; i++)
		cl->out[i] = (unsigned char)reply[i] < ' ' ? ' ' : reply[i];
	cl->out[n++] = '\n';
	cl->out_len = n;
	cl->out_off = 0;
	return client_flush(cl);
}

/* "watch": the client hears the broadcast lines from now on. Watchers keep their slots, so
 * there are at most CONTROL_WATCHERS, or they could lock every other client out. */
static void start_watching(struct control_client *cl, char *reply, size_t len)
{
	const struct control *c = cl->owner;
	int watchers = 0;

	for (int i = 0; i < CONTROL_CLIENTS; i++)
		watchers += c->clients[i].src.fd >= 0 && c->clients[i].watching;
	if (cl->watching || watchers < CONTROL_WATCHERS) {
		cl->watching = true;
		timer_disarm_if_unused(cl->owner);
		snprintf(reply, len, "ok watching");
	} else {
		snprintf(reply, len, "error: %d clients are watching already", watchers);
	}
}

/* Whether the loop wakes up for cl's work: a line (or the end) in its socket to read, or an
 * unfinished command and room in its socket to go on. A client that has had its turn and sent
 * nothing more is not woken, and must not hold up those that are. */
static bool wants_work(const struct control_client *cl)
{
	struct pollfd p = { cl->src.fd, cl->unfinished ? POLLOUT : POLLIN, 0 };

	return !cl->waiting && !cl->out_len && poll(&p, 1, 0) > 0;
}

/* The earliest wake-up since which a client has waited for stone work; 0: none waits. A mark
 * whose client no longer wants work is dropped. */
static uint64_t hungry_since(struct control *c)
{
	for (;;) {
		struct control_client *first = NULL;

		for (int i = 0; i < CONTROL_CLIENTS; i++) {
			struct control_client *cl = &c->clients[i];

			if (cl->src.fd >= 0 && cl->hungry && (!first || cl->hungry < first->hungry))
				first = cl;
		}
		if (!first || wants_work(first))
			return first ? first->hungry : 0;
		first->hungry = 0;
	}
}

/* Whether cl may run a command now: work is left in this wake-up and no client has waited for
 * it longer. Else, if it has more to do, it waits, its line unread, and goes before those that
 * wait after it. */
static bool may_work(struct control_client *cl)
{
	struct control *c = cl->owner;
	uint64_t now = c->loop->wakeups, since = hungry_since(c);

	if (budget_left(c->work, c) > 0 && (!since || since >= (cl->hungry ? cl->hungry : now))) {
		cl->hungry = 0;
		return true;
	}
	if (!wants_work(cl))
		cl->hungry = 0;
	else if (!cl->hungry)
		cl->hungry = now;
	return false;
}

/* Runs cl->cmd, or goes on with it, and answers it, now or later; false when the client must
 * go. */
static bool client_run(struct control_client *cl)
{
	struct control *c = cl->owner;
	struct control_ticket ticket = { (int)(cl - c->clients), cl->serial };
	char reply[CONTROL_REPLY_MAX];
	long left = budget_left(c->work, c), work = left;
	int ret = c->exec(c->ctx, &cl->cmd, ticket, &work, reply, sizeof(reply));

	budget_spend(c->work, left - work);

	if (cl->unfinished && ret != CONTROL_MORE) {
		/* its time to take the reply starts now; the timer skipped it meanwhile */
		cl->quiet_ms = clock_ms();
		if (!cl->watching)
			timer_arm(c, cl->quiet_ms + CONTROL_IDLE_MS);
	}
	cl->unfinished = ret == CONTROL_MORE;
	cl->waiting = ret == CONTROL_LATER;
	return ret ? client_watch(cl) : client_reply(cl, reply);
}

/* Runs one line and answers it, now or later; false when the client must go. */
static bool client_line(struct control_client *cl, const char *line, size_t len)
{
	struct control *c = cl->owner;
	char reply[CONTROL_REPLY_MAX], err[160];

	cl->active = ++c->clock;
	cl->quiet_ms = clock_ms();
	if (cl->overflow)
		snprintf(reply, sizeof(reply), "error: line too long");
	else if (control_parse(line, len, &cl->cmd, err, sizeof(err)) < 0)
		snprintf(reply, sizeof(reply), "error: %s", err);
	else if (cl->cmd.type == CONTROL_WATCH)
		start_watching(cl, reply, sizeof(reply));
	else
		return client_run(cl);
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
	if (n == 0)	/* a last line without its newline is answered too, a long one refused */
		return cl->len > 0 || cl->overflow ? READ_LAST : READ_GONE;
	nl = memchr(cl->buf + cl->len, '\n', (size_t)n);
	if (nl)
		n = nl - (cl->buf + cl->len) + 1;
	if (recv(cl->src.fd, cl->buf + cl->len, (size_t)n, MSG_DONTWAIT) != n)
		return READ_GONE;
	cl->len += (size_t)n;
	cl->spoke = true;
	if (nl)
		return READ_LINE;
	if (cl->len < sizeof(cl->buf))
		return READ_NONE;
	cl->overflow = true;	/* keep reading to the newline, then say so */
	cl->len = 0;
	return READ_MORE;
}

/* Up to CONTROL_BATCH reads, or turns of an unfinished command, while the wake-up has work
 * left for it; false when the client must go. */
static bool client_serve(struct control_client *cl)
{
	for (int i = 0; i < CONTROL_BATCH && !cl->waiting && !cl->out_len; i++) {
		enum read_result r;
		bool ok;

		if (i > 0 && budget_left(cl->owner->work, cl->owner) <= 0)
			return true;	/* it had its turn: it waits from the next wake-up on */
		if (!may_work(cl))
			return true;
		if (cl->unfinished) {
			if (!client_run(cl))
				return false;
			continue;
		}
		r = client_read(cl);
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
		if (!ok || (r == READ_LAST && !cl->waiting && !cl->unfinished && !cl->out_len))
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
	else if (cl->unfinished && (events & (EPOLLHUP | EPOLLERR)))
		ok = false;	/* nobody to finish it for */
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
	if (cl->out_len) {	/* a watcher that has not taken its event */
		client_close(cl);
		return;
	}
	cl->quiet_ms = clock_ms();	/* its time to take the reply and go on starts now */
	if (!client_reply(cl, reply))
		client_close(cl);
	else
		timer_arm(c, cl->quiet_ms + CONTROL_IDLE_MS);
	listen_resume(c);
}

/* Who connected: SO_PEERCRED's process (0: unknown) and user (-1: unknown). */
struct peer {
	pid_t pid;
	uid_t uid;
};

/* How many of the clients the process pid connected. */
static int peer_count(const struct control *c, pid_t pid)
{
	int n = 0;

	for (int i = 0; i < CONTROL_CLIENTS; i++)
		n += c->clients[i].src.fd >= 0 && c->clients[i].pid == pid;
	return n;
}

/* How many of the clients the user uid connected. */
static int user_count(const struct control *c, uid_t uid)
{
	int n = 0;

	for (int i = 0; i < CONTROL_CLIENTS; i++)
		n += c->clients[i].src.fd >= 0 && c->clients[i].uid == uid;
	return n;
}

/* How readily a client gives up its slot to a new one: -1 never (a reply is being made for it
 * off the loop, or it watches: watchers are few, CONTROL_WATCHERS), 0 idle, 1 stuck in a line
 * or not taking its reply, 2 with a request not read yet or not done, 3 in its grace: in the
 * middle of its line or yet to send one, and connected less than CONTROL_GRACE_MS ago. Counted
 * from the connect, not from its last byte: a client that drips its lines would keep its grace
 * for good. */
static int client_rank(const struct control_client *cl, int64_t now)
{
	bool midway = cl->len || cl->overflow || !cl->spoke;
	int unread = 0;

	if (cl->waiting || cl->watching)
		return -1;
	if (midway && now - cl->connected_ms < CONTROL_GRACE_MS)
		return 3;
	if (cl->len || cl->overflow || cl->out_len)
		return 1;
	if (cl->unfinished || (ioctl(cl->src.fd, FIONREAD, &unread) == 0 && unread > 0))
		return 2;
	return 0;
}

struct candidate {
	struct control_client *cl;
	int crowd;		/* its user's connections, the newcomer's counted with its own */
	int load;		/* its process's connections, the newcomer's counted with its own */
	bool own;		/* the newcomer's process's */
	int rank;
};

/* Whether a is the better one to evict: the most crowded user's, then process's (the
 * newcomer's own first), then the most readily given up, then the one quiet longest. The user
 * comes first so that many processes of one user give up their slots before another user's
 * only one, a kiosk app's, idle between its commands. */
static bool better_victim(const struct candidate *a, const struct candidate *b)
{
	if (!b->cl)
		return true;
	if (a->crowd != b->crowd)
		return a->crowd > b->crowd;
	if (a->load != b->load)
		return a->load > b->load;
	if (a->own != b->own)
		return a->own;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	return a->cl->active < b->cl->active;
}

/*
 * The client to evict for a newcomer from peer (pid -1: a process not seen yet), only of its
 * own process with own_only. A process with more than one connection gives one up even in its
 * grace, so no process can fill the slots with fresh connections; the only connection of a
 * process goes only after its grace. NULL when no client may go.
 */
static struct control_client *pick_victim(struct control *c, struct peer peer, bool own_only,
					  int64_t now)
{
	struct candidate best = { 0 };

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_client *cl = &c->clients[i];
		struct candidate cand = { .cl = cl, .own = cl->pid == peer.pid };

		if (cl->src.fd < 0 || (own_only && !cand.own))
			continue;
		cand.rank = client_rank(cl, now);
		cand.crowd = user_count(c, cl->uid) + (cl->uid == peer.uid);
		cand.load = peer_count(c, cl->pid) + cand.own;
		if (cand.rank < 0 || (cand.load < 2 && cand.rank == 3))
			continue;
		if (better_victim(&cand, &best))
			best = cand;
	}
	return best.cl;
}

static struct control_client *free_slot(struct control *c)
{
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].src.fd < 0)
			return &c->clients[i];
	return NULL;
}

/* The oldest of pid's watchers, or NULL. */
static struct control_client *oldest_watcher(struct control *c, pid_t pid)
{
	struct control_client *oldest = NULL;

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_client *cl = &c->clients[i];

		if (cl->src.fd >= 0 && cl->pid == pid && cl->watching && !cl->waiting &&
		    (!oldest || cl->active < oldest->active))
			oldest = cl;
	}
	return oldest;
}

/* The slot for a newcomer from peer: its own oldest when it holds CONTROL_PER_PEER already (a
 * watcher only when all it holds watch or wait, so that its watchers cannot shut it out),
 * else a free one, else a victim's. NULL: the newcomer is refused. */
static struct control_client *slot_for(struct control *c, struct peer peer, int64_t now)
{
	struct control_client *cl;

	if (peer_count(c, peer.pid) >= CONTROL_PER_PEER) {
		cl = pick_victim(c, peer, true, now);
		/* pid 0: no credentials, or not in our namespace: not one process, maybe many */
		return cl || peer.pid <= 0 ? cl : oldest_watcher(c, peer.pid);
	}
	cl = free_slot(c);
	return cl ? cl : pick_victim(c, peer, false, now);
}

/* The earliest end of a client's grace, or -1 when none has one. */
static int64_t grace_end(const struct control *c, int64_t now)
{
	int64_t end = -1;

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		const struct control_client *cl = &c->clients[i];
		int64_t e = cl->connected_ms + CONTROL_GRACE_MS;

		if (cl->src.fd >= 0 && !cl->waiting && e > now && (end < 0 || e < end))
			end = e;
	}
	return end;
}

/* Closes the clients that sent no complete line for CONTROL_IDLE_MS; when the next one's time
 * is up, or -1 when no client has a clock running (a reply being made, or a command going on,
 * stops it; one that cannot go on for want of room in its socket does not). */
static int64_t close_idle(struct control *c, int64_t now)
{
	int64_t next = -1;

	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_client *cl = &c->clients[i];
		int64_t end = cl->quiet_ms + CONTROL_IDLE_MS;

		if (cl->src.fd < 0 || cl->waiting || cl->watching ||
		    (cl->unfinished && wants_work(cl)))
			continue;
		if (end <= now)
			client_close(cl);
		else if (next < 0 || end < next)
			next = end;
	}
	return next;
}

static void on_timer(struct loop_source *src, uint32_t events)
{
	struct control *c = src->ctx;
	int64_t now = clock_ms(), next;
	uint64_t n;

	(void)events;
	if (read(src->fd, &n, sizeof(n)) != sizeof(n) && c->timer_at > now)
		return;		/* not yet: woken for another reason */
	c->timer_at = 0;
	next = close_idle(c, now);
	if (next >= 0)
		timer_arm(c, next);
	listen_resume(c);
}

/* Every slot busy: new clients wait in the backlog until a client is answered or goes, or one's
 * grace ends. */
static void listen_pause(struct control *c, int64_t now)
{
	int64_t end = grace_end(c, now);

	if (end >= 0)
		timer_arm(c, end);
	if (loop_watch(c->loop, &c->listen, 0) == 0)
		c->listen_paused = true;
}

/* Whether a newcomer from a process not seen yet could have a slot now. */
static bool admits(struct control *c, int64_t now)
{
	return free_slot(c) || pick_victim(c, (struct peer){ -1, (uid_t)-1 }, false, now);
}

static struct peer peer_of(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return (struct peer){ 0, (uid_t)-1 };
	return (struct peer){ cred.pid, cred.uid };
}

static void on_listen(struct loop_source *src, uint32_t events)
{
	struct control *c = src->ctx;
	int64_t now = clock_ms();

	(void)events;
	for (int i = 0; i < CONTROL_BATCH; i++) {
		struct control_client *cl;
		struct peer peer;
		int fd;

		if (!admits(c, now)) {
			listen_pause(c, now);
			return;
		}
		fd = accept4(c->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		peer = peer_of(fd);
		cl = slot_for(c, peer, now);
		if (!cl) {	/* every connection of its process has a reply being made */
			close(fd);
			continue;
		}
		client_close(cl);
		*cl = (struct control_client){ .src = { fd, on_client, cl }, .owner = c,
					       .events = EPOLLIN, .serial = ++c->accepted,
					       .active = ++c->clock, .connected_ms = now,
					       .quiet_ms = now, .pid = peer.pid, .uid = peer.uid };
		if (loop_add(c->loop, &cl->src) < 0) {
			close(fd);
			cl->src.fd = -1;
			continue;
		}
		timer_arm(c, now + CONTROL_IDLE_MS);
	}
}

void control_broadcast(struct control *c, const char *line)
{
	for (int i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_client *cl = &c->clients[i];

		if (cl->src.fd < 0 || !cl->watching)
			continue;
		/* the last line not taken yet: it does not read, and nothing may pile up */
		if (cl->out_len || !client_reply(cl, line))
			client_close(cl);
	}
	listen_resume(c);
}

void control_init(struct control *c, struct loop *loop, struct budget *work,
		  control_exec_fn *exec, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->work = work;
	c->listen = (struct loop_source){ -1, on_listen, c };
	c->timer = (struct loop_source){ -1, on_timer, c };
	c->loop = loop;
	c->exec = exec;
	c->ctx = ctx;
	for (int i = 0; i < CONTROL_CLIENTS; i++)
		c->clients[i].src.fd = -1;
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
	fd = control_socket_bind(path);
	if (fd < 0)
		return fd;
	close_listener(c);
	c->listen.fd = fd;
	ret = timer_open(c);	/* now, not with the first client: a daemon's fds stay level */
	if (ret == 0)
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
	if (c->timer.fd >= 0) {
		loop_remove(c->loop, &c->timer);
		close(c->timer.fd);
		c->timer.fd = -1;
	}
	c->timer_at = 0;
}
