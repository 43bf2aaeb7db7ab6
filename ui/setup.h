/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup: htop's F2 screen. Sections on the left (a view's columns, the
 * colours, the meters, the defaults), their items on the right; setup.c
 * lists and draws them, setup_keys.c changes them (at once). */
#ifndef PERFTOP_UI_SETUP_H
#define PERFTOP_UI_SETUP_H

#include "ui.h"

enum setup_section {
	SETUP_COLS_SYMBOLS, SETUP_COLS_TASKS, SETUP_COLS_CPUS, /* in enum ui_view order */
	SETUP_COLORS, SETUP_METERS, SETUP_DEFAULTS, SETUP_COUNT
};

/* The defaults section's items. */
enum setup_default {
	DEF_VIEW, DEF_DELAY, DEF_SORT_SYMBOLS, DEF_SORT_TASKS, DEF_SORT_CPUS, DEF_DECAY, DEF_CUMULATIVE, DEF_COUNT
};

extern const char *const setup_section_names[SETUP_COUNT];
size_t setup_nitems(const struct ui *u, size_t sec);
/* A columns section's item i: the column (the shown ones first, in order). */
size_t setup_col_at(const struct ui *u, enum ui_view v, size_t i);
void setup_item_text(const struct ui *u, size_t sec, size_t i, char *buf, size_t len);
/* The meters' names (METER_* bit order). */
extern const char *const setup_meter_names[3];

#endif
