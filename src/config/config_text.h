/* config_text.h - a configuration file's text, checked and prepared before libconfig parses it. */
#ifndef FBRIPPLE_CONFIG_TEXT_H
#define FBRIPPLE_CONFIG_TEXT_H

#include <stddef.h>

#define CONFIG_FILE_MAX (64 * 1024)	/* bytes: the shipped file with every comment is 6 KiB */
#define CONFIG_SETTINGS_MAX 128		/* "name =" pairs: libconfig 1.5 adds each in linear time */
#define CONFIG_NAME_LEN_MAX 64		/* characters in a setting's name, for the same reason */
#define CONFIG_ITEMS_MAX 1024		/* commas: list entries, each a libconfig allocation */
#define CONFIG_DEPTH_MAX 16		/* groups, lists and arrays inside each other */

/*
 * libconfig 1.5 wraps integers past 32 bits without an L suffix (`fps = 4294967356` reads as
 * 60), cuts strings at a NUL, leaks a string that stands where the grammar wants none, and
 * takes quadratic time in the number of settings in a group. Before it sees text (len bytes),
 * this refuses NUL bytes and "\x00" escapes, integers past 64 bits, more than
 * CONFIG_SETTINGS_MAX settings or CONFIG_ITEMS_MAX commas, longer names than CONFIG_NAME_LEN_MAX, nesting deeper than
 * CONFIG_DEPTH_MAX, @include and a misplaced string, and writes into out (room for 2 * len + 1 bytes) the text with an L after every
 * integer past 32 bits, so that range checks see its true value. 0, or -EINVAL with *line
 * (1 for the first) and why saying what is wrong.
 */
int config_text_prepare(const char *text, size_t len, char *out, int *line, char *why,
			size_t whylen);

#endif
