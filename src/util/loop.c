/* loop.c - epoll dispatch to the handlers of registered fds. */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"

#define LOOP_BATCH 16

int loop_init(struct loop *l)
{
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->wakeups = 0;
	return l->epfd < 0 ? -errno : 0;
}

void loop_free(struct loop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
}

int loop_add(struct loop *l, struct loop_source *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0 ? -errno : 0;
}

int loop_watch(struct loop *l, struct loop_source *src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, src->fd, &ev) < 0 ? -errno : 0;
}

void loop_remove(struct loop *l, struct loop_source *src)
{
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, src->fd, NULL);
}

int loop_dispatch(struct loop *l, int timeout_ms)
{
	struct epoll_event ev[LOOP_BATCH];
	int n = epoll_wait(l->epfd, ev, LOOP_BATCH, timeout_ms);

	l->wakeups++;
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct loop_source *src = ev[i].data.ptr;

		src->fn(src, ev[i].events);
	}
	return 0;
}
