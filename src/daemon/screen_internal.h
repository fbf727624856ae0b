/* screen_internal.h - what screen's own files share, and no other file includes: screen.c,
 * screen_setup.c and screen_app.c together are the part that writes struct screen (app.h). */
#ifndef FBRIPPLE_SCREEN_INTERNAL_H
#define FBRIPPLE_SCREEN_INTERNAL_H

#include "app.h"

/* screen.c */
void lose_display(struct screen *s);
void unwatch_display(struct screen *s);
void watch_display(struct screen *s);
void guard_crashes(struct screen *s);
int open_display(struct display *d, const struct display_request *req);
void mode_put_back(struct screen *s);
void one_page_left(struct screen *s, int err);
const char *acquire_error(int ret);
const char *release_error(int ret);

/* screen_app.c */
void guard_app_frame(struct screen *s);
void guard_new_display(struct screen *s);
void put_back_frame(struct screen *s);

#endif
