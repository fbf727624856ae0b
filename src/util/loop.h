/* loop.h - the event loop: epoll over fds that modules register with their own handlers. */
#ifndef FBRIPPLE_LOOP_H
#define FBRIPPLE_LOOP_H

#include <stdint.h>

struct loop_source;
typedef void loop_fn(struct loop_source *src, uint32_t events);

/* Owned by the module that registers it (usually embedded in its struct): no allocation. */
struct loop_source {
	int fd;
	loop_fn *fn;
	void *ctx;
};

struct loop {
	int epfd;
	uint64_t wakeups;		/* loop_dispatch calls so far: never wraps */
};

int loop_init(struct loop *l);
void loop_free(struct loop *l);

/* Watches src->fd for input (EPOLLIN); src must stay valid until loop_remove, and a source
 * removed by another source's handler must stay valid until loop_dispatch returns (its event may
 * be in the same batch). 0 or -errno. */
int loop_add(struct loop *l, struct loop_source *src);
void loop_remove(struct loop *l, struct loop_source *src);

/* What a source waits for from now on: EPOLLIN, EPOLLOUT, or 0 for nothing but a hang-up or an
 * error. 0 or -errno. */
int loop_watch(struct loop *l, struct loop_source *src, uint32_t events);

/* Waits up to timeout_ms (-1: no limit) and runs the handlers of ready sources. 0 or -errno. */
int loop_dispatch(struct loop *l, int timeout_ms);

#endif
