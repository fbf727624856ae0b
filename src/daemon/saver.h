/* saver.h - when fbripple shows itself beside a kiosk application: hidden until nobody has
 * touched the screen for a while, shown, and faded back to hidden by a touch or a command. */
#ifndef FBRIPPLE_SAVER_H
#define FBRIPPLE_SAVER_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

enum saver_state { SAVER_HIDDEN, SAVER_SHOWN, SAVER_FADING };

enum saver_event {
	SAVER_SHOW = 1 << 0,	/* take the screen */
	SAVER_FADE = 1 << 1,	/* calm the water to the picture */
	SAVER_HIDE = 1 << 2,	/* give the screen back */
	SAVER_UNFADE = 1 << 3,	/* shown again during the fade: the water's own damping back */
};

struct saver {
	enum saver_mode mode;
	enum saver_wake wake;
	int64_t after_ms, fade_ms;
	int64_t last_ms;		/* the last input while hidden */
	int64_t fade_end_ms;
	enum saver_state state;
};

/* Starts counting from now_ms: hidden in idle mode, shown in always mode. */
void saver_init(struct saver *s, enum saver_mode mode, enum saver_wake wake, int after_s,
		double fade_s, int64_t now_ms);

/* New settings (a reload): the state stays; a new mode takes effect when fbripple restarts. */
void saver_configure(struct saver *s, enum saver_wake wake, int after_s, double fade_s);

/* A touch or press at now_ms: the saver_event bits it causes. */
unsigned saver_input(struct saver *s, int64_t now_ms);

/* "show" or "hide" from the control socket at now_ms: the saver_event bits it causes. */
unsigned saver_command(struct saver *s, bool show, int64_t now_ms);

/* The saver_event bits due at now_ms. */
unsigned saver_check(struct saver *s, int64_t now_ms);

/* Showing failed (another process holds the display): hidden again, counting anew from now_ms. */
void saver_failed(struct saver *s, int64_t now_ms);

/* When saver_check has something to do next, in the clock of now_ms; -1 for never. */
int64_t saver_next(const struct saver *s);

/* Whether touches drop stones now: not while hidden or fading. */
bool saver_ripples(const struct saver *s);

/* "shown", "hidden" or "fading". */
const char *saver_state_name(enum saver_state state);

#endif
