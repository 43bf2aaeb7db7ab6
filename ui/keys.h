/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys: the key tables' shared parts (keys.c: the tables view,
 * panel_keys.c: panels, help and prompts). */
#ifndef PERFTOP_UI_KEYS_H
#define PERFTOP_UI_KEYS_H

#include "ui.h"

#define KEY_ESC 27
#define KEY_CTRL(c) ((c) & 0x1f)

typedef unsigned (*key_fn)(struct ui *u, int key);

/* A table ends with a row without fn and doc.keys. A row with doc.keys NULL
 * is an alias of the one above; a row without fn is documentation only. */
struct key_binding {
	int key;
	key_fn fn;
	struct ui_keyhelp doc;
};

/* panel_keys.c: the panels' and prompts' tables. */
extern const struct key_binding panel_keys_event[], panel_keys_exclude[], panel_keys_sort[], panel_keys_prompt[];
extern const struct key_binding tree_keys_paths[], tree_doc_keys[];
/* annview_keys.c: the annotate view's (a). */
extern const struct key_binding annview_keys[];

unsigned panel_keys_prompt_key(struct ui *u, int key);
unsigned panel_keys_help_key(struct ui *u, int key);

/* tree_keys.c: call trees (-g). True on the symbols with call graphs: there
 * Left, Right and Enter are the inline tree's. */
bool tree_applies(const struct ui *u);
unsigned tree_right(struct ui *u);
/* 0: nothing for the tree to do here (Left then scrolls names). */
unsigned tree_left(struct ui *u);
unsigned tree_enter(struct ui *u);
unsigned tree_flip(struct ui *u, int key);
unsigned tree_keys_wakers(struct ui *u, int key);
unsigned tree_keys_paths_open(struct ui *u, int key);

/* actions.c: what keys do, whatever the key. */
/* Flips one exclude flag on every event (all or nothing). */
unsigned actions_exclude_toggle_all(struct ui *u, unsigned bit);
/* Event i on/off; one of its exclude flags flipped. */
unsigned actions_event_toggle(struct ui *u, size_t i);
unsigned actions_event_flip_exclude(struct ui *u, size_t i, unsigned bit);
unsigned actions_interval_set(struct ui *u, double secs);
unsigned actions_interval_step(struct ui *u, bool longer);
/* Rows of the open panel. */
size_t actions_panel_len(const struct ui *u);

/* Keys of the tables defined beside what they do: tags.c (Space, Y,
 * Ctrl-U), save.c (P), setup_keys.c (F2, C and the setup screen's). */
unsigned tags_key_tag(struct ui *u, int key);
unsigned tags_key_children(struct ui *u, int key);
unsigned tags_key_untag(struct ui *u, int key);
unsigned save_key(struct ui *u, int key);
unsigned setup_key_open(struct ui *u, int key);
extern const struct key_binding setup_keys[];

#endif
