/* control_parse.c - the control socket's language: one command line into a control_command. */
#include "control.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CONTROL_ARGS_MAX 6

struct token {
	const char *s;
	size_t len;
};

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits line into at most CONTROL_ARGS_MAX tokens; their number, or -E2BIG. */
static int tokenize(const char *line, size_t len, struct token *tok)
{
	int n = 0;

	for (size_t i = 0; i < len;) {
		if (is_blank(line[i])) {
			i++;
			continue;
		}
		if (n == CONTROL_ARGS_MAX)
			return -E2BIG;
		tok[n].s = line + i;
		while (i < len && !is_blank(line[i]))
			i++;
		tok[n].len = (size_t)(line + i - tok[n].s);
		n++;
	}
	return n;
}

static bool token_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* A decimal integer in [min, max]; 0 or -EINVAL. */
static int token_int(const struct token *t, int min, int max, int *out)
{
	size_t i = t->s[0] == '-' || t->s[0] == '+';
	int64_t v = 0;

	/* 12 digits cannot overflow 64 bits, whatever long is on this machine */
	if (i == t->len || t->len > 12)
		return -EINVAL;
	for (; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -EINVAL;
		v = v * 10 + (t->s[i] - '0');
	}
	if (t->s[0] == '-')
		v = -v;
	if (v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int parse_coords(const struct token *t, int n, int *out, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		if (token_int(&t[i], -CONTROL_COORD_MAX, CONTROL_COORD_MAX, &out[i]) < 0)
			return fail(err, errlen, "coordinates must be integers from -65535 to 65535");
	}
	return 0;
}

static int parse_drop(const struct token *t, int n, struct control_command *cmd, char *err,
		      size_t errlen)
{
	int xy[2];

	if (n != 3 && n != 5)
		return fail(err, errlen, "usage: drop X Y [SIZE WEIGHT]");
	if (parse_coords(t + 1, 2, xy, err, errlen) < 0)
		return -EINVAL;
	cmd->x = xy[0];
	cmd->y = xy[1];
	if (n == 5 && (token_int(&t[3], 1, 100, &cmd->size) < 0 ||
		       token_int(&t[4], 1, 4096, &cmd->weight) < 0))
		return fail(err, errlen, "SIZE must be 1 to 100 and WEIGHT 1 to 4096");
	return 0;
}

static int parse_trail(const struct token *t, int n, struct control_command *cmd, char *err,
		       size_t errlen)
{
	int c[4];

	if (n != 5)
		return fail(err, errlen, "usage: trail X1 Y1 X2 Y2");
	if (parse_coords(t + 1, 4, c, err, errlen) < 0)
		return -EINVAL;
	cmd->x = c[0];
	cmd->y = c[1];
	cmd->x2 = c[2];
	cmd->y2 = c[3];
	return 0;
}

static int parse_rain(const struct token *t, int n, struct control_command *cmd, char *err,
		      size_t errlen)
{
	if (n != 2 || !(token_is(&t[1], "on") || token_is(&t[1], "off")))
		return fail(err, errlen, "usage: rain on|off");
	cmd->on = token_is(&t[1], "on");
	return 0;
}

static int parse_screenshot(const struct token *t, int n, struct control_command *cmd,
			    char *err, size_t errlen)
{
	if (n != 2 || t[1].s[0] != '/')
		return fail(err, errlen, "usage: screenshot /ABSOLUTE/PATH.png");
	memcpy(cmd->path, t[1].s, t[1].len);
	cmd->path[t[1].len] = '\0';
	return 0;
}

static int check_text(const char *line, size_t len, char *err, size_t errlen)
{
	if (len >= CONTROL_LINE_MAX)
		return fail(err, errlen, "line too long");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t' && !(c == '\r' && i == len - 1)) || c >= 0x7f)
			return fail(err, errlen, "not a text line");
	}
	return 0;
}

int control_parse(const char *line, size_t len, struct control_command *cmd, char *err,
		  size_t errlen)
{
	static const char *const words[] = { "drop", "trail", "rain", "pause", "resume",
					     "screenshot", "reload", "status", "show", "hide",
					     "watch" };
	struct token t[CONTROL_ARGS_MAX];
	int n;

	if (check_text(line, len, err, errlen) < 0)
		return -EINVAL;
	if (len && line[len - 1] == '\r')
		len--;
	n = tokenize(line, len, t);
	if (n < 0)
		return fail(err, errlen, "too many arguments");
	if (n == 0)
		return fail(err, errlen, "empty command");
	memset(cmd, 0, sizeof(*cmd));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!token_is(&t[0], words[i]))
			continue;
		cmd->type = (enum control_type)i;
		switch (cmd->type) {
		case CONTROL_DROP:
			return parse_drop(t, n, cmd, err, errlen);
		case CONTROL_TRAIL:
			return parse_trail(t, n, cmd, err, errlen);
		case CONTROL_RAIN:
			return parse_rain(t, n, cmd, err, errlen);
		case CONTROL_SCREENSHOT:
			return parse_screenshot(t, n, cmd, err, errlen);
		default:
			return n == 1 ? 0 : fail(err, errlen, "this command takes no arguments");
		}
	}
	return fail(err, errlen, "unknown command (drop, trail, rain, pause, resume, screenshot, "
			    "reload, status, show, hide, watch)");
}
