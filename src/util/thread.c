/* thread.c - helper threads' signal mask. */
#include "thread.h"

#include <signal.h>

int thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT };
	sigset_t mask, old;
	int ret;

	sigfillset(&mask);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&mask, faults[i]);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	ret = -pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
