/* shot.h - screenshot files: a PNG written to a new file beside the target and renamed into
 * place, the directory resolved without following any link. */
#ifndef FBRIPPLE_SHOT_H
#define FBRIPPLE_SHOT_H

#include <stdbool.h>

#include "image.h"

/*
 * Writes img as PNG to path: to a temporary file beside it, then renamed to it, so a file there
 * is never truncated. With replace false (a control-socket client's path) no directory on the way
 * may be a link, anything already at path stays untouched (-EEXIST), and the file system keeps
 * an eighth of its room free (-EDQUOT). With replace (the user's
 * own --screenshot) links are followed and a file there is replaced. On any error only the
 * temporary file is removed. 0 or -errno. Safe on any thread.
 */
int shot_write(const struct image *img, const char *path, bool replace);

/* What a shot_write error means, for a reply or a log line. */
const char *shot_strerror(int err);

#endif
