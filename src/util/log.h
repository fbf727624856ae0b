/* log.h - messages to stderr: <N> priority prefixes under journald, plain with a level on a TTY.
 *
 * The util folder: what every other folder may use and that knows none of them: the log, the
 * epoll loop, the monotonic clock, the thread pool, the worker thread, file helpers and the
 * CPU's vector paths. Its files include one another at most. */
#ifndef FBRIPPLE_LOG_H
#define FBRIPPLE_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* syslog priorities */
enum log_level {
	LOG_LEVEL_ERROR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Reads JOURNAL_STREAM to choose the style; messages above level are dropped. */
void log_init(enum log_level level);
void log_set_level(enum log_level level);
int log_level_parse(const char *name, enum log_level *level);
const char *log_level_name(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* in into out (len bytes, NUL-terminated), its control bytes as \xNN, cut short where it does
 * not fit: text from outside (a device's name) made one harmless line. out's length. */
size_t log_escape(char *out, size_t len, const char *in);
#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
