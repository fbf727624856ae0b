/* log.c - messages to stderr: <N> priority prefixes under journald, plain with a level on a TTY. */
#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_LINE_MAX 2048

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARNING] = "warning",
	[LOG_LEVEL_NOTICE] = "notice",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/* The only state: what log_init chose. */
static struct {
	enum log_level level;
	bool journal;
} log_state = { LOG_LEVEL_INFO, false };

/* systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connected to stderr. */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!env || sscanf(env, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(enum log_level level)
{
	log_state.journal = stderr_is_journal();
	log_set_level(level);
}

void log_set_level(enum log_level level)
{
	log_state.level = level;
}

int log_level_parse(const char *name, enum log_level *level)
{
	for (int l = LOG_LEVEL_ERROR; l <= LOG_LEVEL_DEBUG; l++) {
		if (strcmp(name, level_names[l]) == 0) {
			*level = (enum log_level)l;
			return 0;
		}
	}
	return -EINVAL;
}

const char *log_level_name(enum log_level level)
{
	if (level < LOG_LEVEL_ERROR || level > LOG_LEVEL_DEBUG)
		return "unknown";
	return level_names[level];
}

static int format_prefix(char *buf, size_t len, enum log_level level)
{
	if (log_state.journal)
		return snprintf(buf, len, "<%d>", (int)level);
	if (level == LOG_LEVEL_INFO || level == LOG_LEVEL_NOTICE)
		return snprintf(buf, len, "fbripple: ");
	return snprintf(buf, len, "fbripple: %s: ", log_level_name(level));
}

static void write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

size_t log_escape(char *out, size_t len, const char *in)
{
	size_t n = 0;

	if (len == 0)
		return 0;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		bool plain = (c >= 0x20 && c != 0x7f) || c == '\t';

		if (n + (plain ? 1 : 4) >= len)
			break;
		if (plain)
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
	}
	out[n] = '\0';
	return n;
}

/* One line, whatever the message holds: a device's name, a file's or a picture's words could
 * otherwise start a line of their own (under journald, at a priority of their choosing) or
 * drive the terminal. */
void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX], msg[LOG_LINE_MAX];
	int saved_errno = errno;
	size_t len, n;
	va_list ap;

	if (level > log_state.level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg);
	if (n > 0 && msg[n - 1] == '\n')
		msg[n - 1] = '\0';
	len = (size_t)format_prefix(line, sizeof(line), level);
	len += log_escape(line + len, sizeof(line) - 1 - len, msg);
	line[len++] = '\n';
	write_all(line, len);
	errno = saved_errno;
}
