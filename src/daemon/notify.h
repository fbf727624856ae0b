/* notify.h - telling systemd how the service is doing: READY, RELOADING, STOPPING, WATCHDOG. */
#ifndef FBRIPPLE_NOTIFY_H
#define FBRIPPLE_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Sends state ("READY=1", "STATUS=...", lines joined by '\n') to $NOTIFY_SOCKET.
 * 1 if sent, 0 when not run by a service manager, or -errno. Through libsystemd's sd_notify when
 * built with it, else a built-in datagram sender speaking the same protocol. */
int notify_send(const char *state);
int notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a service manager listens ($NOTIFY_SOCKET set). */
bool notify_wanted(void);

/* "RELOADING=1" with the MONOTONIC_USEC that systemd 253+ wants beside it. */
int notify_reloading(void);

/* The watchdog period systemd asks for in microseconds ($WATCHDOG_USEC, for this process), or 0. */
uint64_t notify_watchdog_usec(void);

#endif
