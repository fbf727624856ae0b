/* thread.h - a helper thread that takes no signal but the faults it causes itself. */
#ifndef FBRIPPLE_THREAD_H
#define FBRIPPLE_THREAD_H

#include <pthread.h>

/*
 * Starts fn(arg) on a new thread with every signal blocked but the synchronous ones (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT): the loop's signalfd stays the taker of
 * the rest, and a crash on the thread still runs the crash handler, which a fault the thread
 * blocks never does (the kernel kills the process outright). 0 or -errno.
 */
int thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
