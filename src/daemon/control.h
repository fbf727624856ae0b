/* control.h - the control socket: one command per line in, one "ok ..." or "error: ..." line out. */
#ifndef FBRIPPLE_CONTROL_H
#define FBRIPPLE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/budget.h"
#include "util/loop.h"

#define CONTROL_LINE_MAX 512	/* longer commands are refused */
#define CONTROL_REPLY_MAX 512
#define CONTROL_CLIENTS 16	/* more evict one of the most crowded user's, then process's */
#define CONTROL_PER_PEER 4	/* connections one process may hold: its next closes its oldest */
#define CONTROL_WATCHERS 4	/* clients that may "watch" at once: only their own process evicts */
#define CONTROL_BATCH 4		/* reads per client and wake-up, so nobody starves the rest */
#define CONTROL_GRACE_MS 1000	/* a new client's time to send its line before it may be evicted */
#define CONTROL_IDLE_MS 3000	/* a connection that sends no complete line for this long goes */
#define CONTROL_COORD_MAX 65535	/* coordinates beyond the screen are clipped by the water */

enum control_type {
	CONTROL_DROP,		/* drop X Y [SIZE WEIGHT] */
	CONTROL_TRAIL,		/* trail X1 Y1 X2 Y2 */
	CONTROL_RAIN,		/* rain on|off */
	CONTROL_PAUSE,
	CONTROL_RESUME,
	CONTROL_SCREENSHOT,	/* screenshot PATH */
	CONTROL_RELOAD,
	CONTROL_STATUS,
	CONTROL_SHOW,		/* screensaver.mode idle: take the screen now */
	CONTROL_HIDE,		/* and give it back (after the fade) */
	CONTROL_WATCH,		/* this client receives "event shown" / "event hidden" lines */
};

struct control_command {
	enum control_type type;
	int x, y, x2, y2;
	int size, weight;	/* drop: 0 = the configured stone */
	bool on;		/* rain */
	char path[CONTROL_LINE_MAX];
	long progress;		/* the exec's own, kept between calls that return CONTROL_MORE */
};

/* Parses one line (len bytes, no newline; a trailing '\r' is allowed) into cmd. 0, or -EINVAL
 * with err saying what is wrong. Never reads past len; any NUL or control byte is an error. */
int control_parse(const char *line, size_t len, struct control_command *cmd, char *err,
		  size_t errlen);

/* Names the client a command came from, for a reply that comes later; a ticket whose client has
 * gone since is ignored. */
struct control_ticket {
	int slot;
	unsigned long serial;
};

#define CONTROL_LATER 1
#define CONTROL_MORE 2

/*
 * Runs cmd and writes the reply line ("ok ..." or "error: ...", no newline) into reply and
 * returns 0; or keeps the ticket, returns CONTROL_LATER and answers with control_answer. *work
 * is the stone work it may do in this wake-up (more than 0); it takes off what it did. When
 * that runs out before cmd is done, it returns CONTROL_MORE and is called again with cmd in a
 * later wake-up. The client's next command waits for the answer.
 */
typedef int control_exec_fn(void *ctx, struct control_command *cmd,
			    struct control_ticket ticket, long *work, char *reply, size_t len);

struct control;

struct control_client {
	struct loop_source src;		/* fd -1 when the slot is free */
	struct control *owner;
	char buf[CONTROL_LINE_MAX];	/* the line so far: later lines wait in the socket */
	size_t len;
	bool overflow;			/* the current line is too long: skip to its end */
	bool waiting;			/* for a reply that comes later */
	bool unfinished;		/* cmd goes on in the next wake-up (CONTROL_MORE) */
	struct control_command cmd;	/* the command being run */
	uint64_t hungry;		/* the wake-up since which it waits for work; 0: none */
	bool spoke;			/* has sent something */
	bool watching;			/* gets event lines; exempt from the idle close */
	int64_t connected_ms;		/* its grace runs from it, CLOCK_MONOTONIC */
	int64_t quiet_ms;		/* its last line, its last reply made later, or its connect */
	pid_t pid;			/* the process that connected (SO_PEERCRED); 0 if unknown */
	uid_t uid;			/* its user; -1 if unknown */
	char out[CONTROL_REPLY_MAX + 1];	/* the rest of a reply the client has not taken */
	size_t out_len, out_off;
	uint32_t events;		/* what the loop watches it for */
	unsigned long serial;		/* accept order: what a ticket checks */
	unsigned long active;		/* when it last sent a line (or connected) */
};

struct control {
	struct loop_source listen;	/* fd -1 when closed */
	bool listen_paused;		/* every slot busy: new clients wait in the backlog */
	struct loop_source timer;	/* a timerfd: a client's idle time or grace ends; fd -1 until
					 * needed */
	int64_t timer_at;		/* when it fires, CLOCK_MONOTONIC ms; 0: disarmed */
	struct loop *loop;
	control_exec_fn *exec;
	void *ctx;
	struct budget *work;		/* the stone work of a wake-up, shared with input's */
	unsigned long accepted, clock;
	char path[256];
	struct control_client clients[CONTROL_CLIENTS];
};

/* Marks everything closed; call once before control_listen. The commands' stone work is taken
 * from work, a budget of loop's wake-ups. */
void control_init(struct control *c, struct loop *loop, struct budget *work,
		  control_exec_fn *exec, void *ctx);

/* (Re)creates the listening socket at path with mode 0660, replacing a stale socket there;
 * connected clients stay. "" closes it. 0 or -errno (the old socket then stays); -EADDRINUSE
 * when a socket there still accepts connections: another fbripple is running on it;
 * -ENOTSOCK when something else is there (a file, a directory, a link: left alone); -EPERM
 * when another user could swap the socket for a link there (control_error says so). */
int control_listen(struct control *c, const char *path);

/* Whether a socket at path accepts connections: another fbripple is running on it. */
bool control_in_use(const char *path);

/* What a control_listen error means, for the log. */
const char *control_error(int ret);

/* The reply to a command its exec answered with CONTROL_LATER; then the client goes on. */
void control_answer(struct control *c, struct control_ticket ticket, const char *reply);

/* line (no newline) to every client that sent "watch". Never waits: a client that has not
 * taken what it was sent before is closed. */
void control_broadcast(struct control *c, const char *line);

/* Closes the socket and every client, and removes the socket file. */
void control_close(struct control *c);

/* The client: connects, sends line and reads the reply line, all within timeout_ms (a server
 * that does not accept in time: -ETIMEDOUT). 0 or -errno. */
int control_send(const char *path, const char *line, char *reply, size_t len, int timeout_ms);

#endif
