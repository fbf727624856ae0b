/* rss_peak.c - LD_PRELOAD for the memory test: the highest anonymous RSS a process reached. */
#include <fcntl.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * The anonymous RSS only falls when memory is given back, and big blocks are given back by
 * free(): sampling it just before every free of a large block, and at exit, finds its peak
 * (a decline inside libc, a heap trim or a thread's arena, is sampled at the next big free).
 * FBRIPPLE_RSS_PEAK names the file that gets the peak in kB when the process exits.
 */
#define BIG_BLOCK (256 * 1024)

void __libc_free(void *p);

static atomic_long peak_kb;

/* resident - shared (file and shmem) pages of /proc/self/statm, without allocating */
static long anon_kb(void)
{
	char buf[128];
	long v[3] = { 0 };
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC), n, i = 0;

	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (int k = 0; k < n && i < 3; k++) {
		if (buf[k] >= '0' && buf[k] <= '9')
			v[i] = v[i] * 10 + (buf[k] - '0');
		else if (buf[k] == ' ')
			i++;
	}
	return (v[1] - v[2]) * (sysconf(_SC_PAGESIZE) / 1024);
}

static void sample(void)
{
	long kb = anon_kb(), old = atomic_load(&peak_kb);

	while (kb > old && !atomic_compare_exchange_weak(&peak_kb, &old, kb))
		;
}

void free(void *p)
{
	if (p && malloc_usable_size(p) >= BIG_BLOCK)
		sample();
	__libc_free(p);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("FBRIPPLE_RSS_PEAK");
	char text[32];
	int fd, n = 0;
	long kb;

	sample();
	kb = atomic_load(&peak_kb);
	if (!path || (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return;
	do
		text[n++] = (char)('0' + kb % 10);
	while ((kb /= 10) && n < 30);
	for (int i = 0; i < n / 2; i++) {
		char t = text[i];

		text[i] = text[n - 1 - i];
		text[n - 1 - i] = t;
	}
	text[n++] = '\n';
	if (write(fd, text, (size_t)n) != n)
		n = 0;
	close(fd);
}
