/* screen_internal.h - what screen's own files share, and no other file includes: screen.c,
 * screen_setup.c and screen_app.c together are the part that writes struct screen (app.h). */
#ifndef FBRIPPLE_SCREEN_INTERNAL_H
#define FBRIPPLE_SCREEN_INTERNAL_H

#include "app.h"

/* screen.c */
void screen_lose_display(struct screen *s);
void screen_unwatch_display(struct screen *s);
void screen_watch_display(struct screen *s);
void screen_guard_crashes(struct screen *s);
int screen_open_display(struct display *d, const struct display_request *req);
void screen_mode_put_back(struct screen *s);
void screen_one_page_left(struct screen *s, int err);
const char *screen_acquire_error(int ret);
void screen_say_release(struct screen *s, int ret);

/* screen_app.c */
void screen_guard_app_frame(struct screen *s);
void screen_guard_new_display(struct screen *s);
void screen_put_back_frame(struct screen *s);

#endif
