/* config_nearest.c - the known key or group an unknown name was probably meant to be, for the
 * warning that names it. */
#include "config_nearest.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "config.h"

#define NAME_MAX_COMPARED 64	/* longer names are never near a known key */

/* Optimal string alignment distance: a swap of neighbours counts as one edit. */
static unsigned edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	unsigned d[NAME_MAX_COMPARED + 1][NAME_MAX_COMPARED + 1];

	if (n > NAME_MAX_COMPARED || m > NAME_MAX_COMPARED)
		return UINT_MAX;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned best = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[n][m];
}

/* Only a suggestion that is a few edits away and shares most of the name helps. */
static bool close_enough(unsigned dist, size_t known_len)
{
	return dist <= 3 && 2 * dist < known_len;
}

static size_t group_len(const char *key)
{
	return strcspn(key, ".");
}

/* The known key nearest to name, or NULL. A name without a group is also compared with
 * the part of each key after the dot ("fps" -> "display.fps"). */
const char *config_key_nearest(const char *name)
{
	size_t n = strlen(name);
	bool bare = strchr(name, '.') == NULL;
	const char *best = NULL;
	unsigned best_dist = UINT_MAX;

	for (size_t i = 0; i < config_key_count(); i++) {
		const char *known = config_key_name(i), *leaf = known + group_len(known) + 1;
		size_t len = strlen(known);
		unsigned dist = edit_distance(name, n, known, len);
		unsigned leaf_dist = bare ? edit_distance(name, n, leaf, strlen(leaf)) : UINT_MAX;

		if (leaf_dist < dist) {
			dist = leaf_dist;
			len = strlen(leaf);
		}
		if (dist < best_dist && close_enough(dist, len)) {
			best = known;
			best_dist = dist;
		}
	}
	return best;
}

/* The known group nearest to name; its length goes to *len. NULL if none is close. */
const char *config_group_nearest(const char *name, size_t *len)
{
	const char *best = NULL;
	unsigned best_dist = UINT_MAX;

	for (size_t i = 0; i < config_key_count(); i++) {
		size_t glen = group_len(config_key_name(i));
		unsigned dist = edit_distance(name, strlen(name), config_key_name(i), glen);

		if (dist < best_dist && close_enough(dist, glen)) {
			best = config_key_name(i);
			best_dist = dist;
			*len = glen;
		}
	}
	return best;
}
