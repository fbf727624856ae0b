/* config_text.c - a configuration file's text, checked and prepared before libconfig parses it.
 * The tokens are libconfig's own (lib/scanner.l): comments, strings, names, numbers. */
#include "config_text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct scan {
	const char *p, *end;
	char *out;
	int line;
	int settings;
	int commas;
	int depth;
	char open[CONFIG_DEPTH_MAX];	/* the brackets around p, innermost last */
	char prev;			/* the last token: '=', '{', '[', '(', ',', '"', or 0 */
	char *why;
	size_t whylen;
};

static int scan_fail(struct scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int scan_fail(struct scan *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, s->whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*';
}

static bool is_name(char c)
{
	return is_name_start(c) || is_digit(c) || c == '-' || c == '_';
}

static bool at(const struct scan *s, size_t i, char c)
{
	return s->end - s->p > (ptrdiff_t)i && s->p[i] == c;
}

static char peek(const struct scan *s, size_t i)
{
	return s->end - s->p > (ptrdiff_t)i ? s->p[i] : '\0';
}

/* Copies one byte; 0, or -EINVAL for a NUL, which libconfig would take for the end. */
static int copy(struct scan *s)
{
	char c = *s->p++;

	if (c == '\0')
		return scan_fail(s, "a NUL byte (expected text)");
	if (c == '\n')
		s->line++;
	*s->out++ = c;
	return 0;
}

static int copy_while(struct scan *s, bool (*want)(char))
{
	int r = 0;

	while (r == 0 && s->p < s->end && want(*s->p))
		r = copy(s);
	return r;
}

static int skip_line_comment(struct scan *s)
{
	int r = 0;

	while (r == 0 && s->p < s->end && *s->p != '\n')
		r = copy(s);
	return r;
}

/* From its opening to its end, or the end of the file (which libconfig allows). */
static int skip_block_comment(struct scan *s)
{
	int r = copy(s);

	r = r ? r : copy(s);
	while (r == 0 && s->p < s->end && !(at(s, 0, '*') && at(s, 1, '/')))
		r = copy(s);
	if (r == 0 && s->p < s->end) {
		r = copy(s);
		r = r ? r : copy(s);
	}
	return r;
}

/* Where the grammar has no place for a string, libconfig 1.5 leaks it on the syntax error. */
static bool string_allowed(const struct scan *s)
{
	char top = s->depth ? s->open[s->depth - 1] : 0;

	switch (s->prev) {
	case '=':
	case '[':
	case '(':
	case '"':
		return true;
	case ',':
		return top == '[' || top == '(';
	default:
		return false;
	}
}

static int scan_string(struct scan *s)
{
	int r;

	if (!string_allowed(s))
		return scan_fail(s, "syntax error (a string where none belongs)");
	r = copy(s);
	while (r == 0 && s->p < s->end && *s->p != '"') {
		if (*s->p == '\\' && (at(s, 1, 'x') || at(s, 1, 'X')) && at(s, 2, '0') &&
		    at(s, 3, '0'))
			return scan_fail(s, "a NUL character (\\x00) in a string (expected text)");
		if (*s->p == '\\' && s->p + 1 < s->end)
			r = copy(s);
		r = r ? r : copy(s);
	}
	if (r == 0 && s->p < s->end)
		r = copy(s);
	s->prev = '"';
	return r;
}

/* The magnitude of the digits at p in base 10 or 16; false past UINT64_MAX. */
static bool digits_value(const char *p, const char *end, int base, uint64_t *v)
{
	*v = 0;
	for (; p < end; p++) {
		unsigned d = is_digit(*p) ? (unsigned)(*p - '0')
					  : (unsigned)((*p | 0x20) - 'a' + 10);

		if (*v > (UINT64_MAX - d) / (unsigned)base)
			return false;
		*v = *v * (unsigned)base + d;
	}
	return true;
}

/* A float: [0-9]* '.' [0-9]* and an exponent only if it has digits, as libconfig reads it. */
static bool float_follows(const struct scan *s, size_t i)
{
	size_t j = i;

	if (peek(s, i) == '.')
		return true;
	if (peek(s, i) != 'e' && peek(s, i) != 'E')
		return false;
	j++;
	if (peek(s, j) == '+' || peek(s, j) == '-')
		j++;
	return is_digit(peek(s, j));
}

static int copy_float(struct scan *s)
{
	int r = copy_while(s, is_digit);

	if (r == 0 && at(s, 0, '.')) {
		r = copy(s);
		r = r ? r : copy_while(s, is_digit);
	}
	if (r == 0 && float_follows(s, 0) && !at(s, 0, '.')) {
		r = copy(s);
		if (r == 0 && (at(s, 0, '+') || at(s, 0, '-')))
			r = copy(s);
		r = r ? r : copy_while(s, is_digit);
	}
	return r;
}

/*
 * An integer: past 64 bits it is refused (libconfig would wrap or clamp it even with L); past
 * 32 bits without L it gets one, so that libconfig reads it as the 64-bit integer it is.
 */
static int scan_number(struct scan *s)
{
	const char *start = s->p, *digits;
	bool neg = *s->p == '-', hex;
	size_t sign = *s->p == '-' || *s->p == '+';
	uint64_t v;
	int r = 0;

	hex = !sign && at(s, 0, '0') && (at(s, 1, 'x') || at(s, 1, 'X')) && is_hex(peek(s, 2));
	digits = s->p + sign + (hex ? 2 : 0);
	if (!hex) {
		size_t n = sign;

		while (is_digit(peek(s, n)))
			n++;
		if (float_follows(s, n)) {
			if (sign)
				r = copy(s);
			return r ? r : copy_float(s);
		}
	}
	while (r == 0 && s->p < digits)
		r = copy(s);
	r = r ? r : copy_while(s, hex ? is_hex : is_digit);
	if (r < 0)
		return r;
	if (!digits_value(digits, s->p, hex ? 16 : 10, &v) ||
	    v > (uint64_t)INT64_MAX + (neg && !hex))
		return scan_fail(s, "%.*s is out of range (expected at most 64 bits)",
				 (int)(s->p - start), start);
	if (at(s, 0, 'L'))
		return 0;
	if (v > (uint64_t)INT_MAX + (neg && !hex))
		*s->out++ = 'L';
	return 0;
}

static int scan_open(struct scan *s)
{
	if (s->depth == CONFIG_DEPTH_MAX)
		return scan_fail(s, "nested more than %d deep", CONFIG_DEPTH_MAX);
	s->open[s->depth++] = *s->p;
	s->prev = *s->p;
	return copy(s);
}

static int scan_punct(struct scan *s)
{
	char c = *s->p;

	if (c == '=' || c == ':') {
		if (++s->settings > CONFIG_SETTINGS_MAX)
			return scan_fail(s, "more than %d settings", CONFIG_SETTINGS_MAX);
		s->prev = '=';
	} else if (c == '{' || c == '[' || c == '(') {
		return scan_open(s);
	} else if (c == '}' || c == ']' || c == ')') {
		s->depth -= s->depth > 0;
		s->prev = 0;
	} else if (c == ',') {
		if (++s->commas > CONFIG_ITEMS_MAX)
			return scan_fail(s, "more than %d list entries", CONFIG_ITEMS_MAX);
		s->prev = ',';
	} else {
		s->prev = 0;
	}
	return copy(s);
}

static int scan_name(struct scan *s)
{
	const char *start = s->p;
	int r = copy_while(s, is_name);

	s->prev = 0;
	if (r == 0 && s->p - start > CONFIG_NAME_LEN_MAX)
		return scan_fail(s, "a name longer than %d characters (%.16s...)",
				 CONFIG_NAME_LEN_MAX, start);
	return r;
}

static int scan_token(struct scan *s)
{
	char c = *s->p, next = peek(s, 1);

	if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
		return copy(s);
	if (c == '#' || (c == '/' && next == '/'))
		return skip_line_comment(s);
	if (c == '/' && next == '*')
		return skip_block_comment(s);
	if (c == '"')
		return scan_string(s);
	if (c == '@' && (size_t)(s->end - s->p) >= 8 && memcmp(s->p, "@include", 8) == 0)
		return scan_fail(s, "@include is not supported");
	if (is_name_start(c))
		return scan_name(s);
	if (is_digit(c) || c == '.' || ((c == '-' || c == '+') && (is_digit(next) || next == '.'))) {
		s->prev = 0;
		return scan_number(s);
	}
	return scan_punct(s);
}

int config_text_prepare(const char *text, size_t len, char *out, int *line, char *why,
			size_t whylen)
{
	struct scan s = { .p = text, .end = text + len, .out = out, .line = 1, .why = why,
			  .whylen = whylen };
	int r = 0;

	while (r == 0 && s.p < s.end)
		r = scan_token(&s);
	*s.out = '\0';
	*line = s.line;
	return r;
}
