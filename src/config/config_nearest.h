/* config_nearest.h - the known key or group nearest to an unknown name. */
#ifndef FBRIPPLE_CONFIG_NEAREST_H
#define FBRIPPLE_CONFIG_NEAREST_H

#include <stddef.h>

/* The known key ("group.key") a few edits from name, or NULL. A name without a group is also
 * compared with the part of each key after the dot ("fps" -> "display.fps"). */
const char *config_key_nearest(const char *name);

/* The known group a few edits from name, as the start of a key's name, its length in *len; or
 * NULL. */
const char *config_group_nearest(const char *name, size_t *len);

#endif
