/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actions: what the keys do to the state and to the session, shared by the
 * key tables of every mode; nothing here knows which key asked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "evspec.h"
#include "keys.h"

size_t actions_panel_len(const struct ui *u)
{
	if (u->mode == MODE_SORT)
		return views_ncols(u);
	return u->mode == MODE_EVENTS ? u->fr.nev : u->mode == MODE_EXCLUDE ? EXCL_COUNT : 0;
}

/* Flips one flag on every event; all or nothing: a refusal puts back the
 * events already re-opened. */
unsigned actions_exclude_toggle_all(struct ui *u, unsigned bit)
{
	unsigned old[AGG_MAX_EVENTS];
	bool all = true;
	char err[512], name[32];
	size_t i, n = u->fr.nev;
	int rc = 0;

	for (i = 0; i < n; i++) {
		old[i] = u->fr.excl[i];
		all = all && (old[i] & bit);
	}
	for (i = 0; i < n && rc == 0; i++) {
		unsigned want = all ? old[i] & ~bit : old[i] | bit;

		if (want != old[i])
			rc = session_set_exclude(u->s, i, want, err, sizeof(err));
	}
	session_exclude_format(bit, name, sizeof(name));
	if (rc) {
		for (size_t j = 0; j + 1 < i; j++)
			if (u->fr.excl[j] != old[j])
				session_set_exclude(u->s, j, old[j], NULL, 0);
		frame_events(u);
		ui_message(u, true, "exclude %s refused, flags unchanged: %s", name, err);
		return UI_DRAW;
	}
	frame_events(u);
	ui_message(u, false, "%s samples %s", name, all ? "included again" : "excluded");
	return UI_DRAW;
}

unsigned actions_event_toggle(struct ui *u, size_t i)
{
	bool on;
	int rc;

	if (i >= u->fr.nev)
		return 0;
	on = !u->fr.on[i];
	rc = session_enable_event(u->s, i, on);
	if (rc) {
		ui_message(u, true, "cannot switch %s %s: %s", u->fr.ev[i].name, on ? "on" : "off", strerror(-rc));
		session_enable_event(u->s, i, !on);
		frame_events(u);
		return UI_DRAW;
	}
	frame_events(u);
	ui_message(u, false, "%s switched %s", u->fr.ev[i].name, on ? "on" : "off");
	return UI_DRAW;
}

unsigned actions_event_flip_exclude(struct ui *u, size_t i, unsigned bit)
{
	unsigned want;
	char err[512], name[32];
	int rc;

	if (i >= u->fr.nev || bit == 0)
		return 0;
	want = u->fr.excl[i] ^ bit;
	session_exclude_format(bit, name, sizeof(name));
	rc = session_set_exclude(u->s, i, want, err, sizeof(err));
	if (rc) {
		ui_message(u, true, "%s: exclude %s refused, flags unchanged: %s", u->fr.ev[i].name, name, err);
		return UI_DRAW;
	}
	frame_events(u);
	ui_message(u, false, "%s: %s samples %s", u->fr.ev[i].name, name,
		   want & bit ? "excluded" : "included again");
	return UI_DRAW;
}

/* + and -: the next step of a ladder up or down. */
unsigned actions_interval_step(struct ui *u, bool longer)
{
	static const double steps[] = { 0.1, 0.2, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60 };
	size_t n = sizeof(steps) / sizeof(steps[0]), i = 0;

	while (i < n && steps[i] < session_interval(u->s) - 1e-9)
		i++;
	/* i: the first step at or above the interval now. */
	if (longer)
		i = i < n && steps[i] <= session_interval(u->s) + 1e-9 ? i + 1 : i;
	else
		i = i > 0 ? i - 1 : 0;
	return actions_interval_set(u, steps[i < n ? i : n - 1]);
}

unsigned actions_interval_set(struct ui *u, double secs)
{
	int rc = session_set_interval(u->s, secs);

	if (rc) {
		ui_message(u, true, "interval %g s refused: %s", secs, strerror(-rc));
		return UI_DRAW;
	}
	ui_message(u, false, "refresh every %g s", secs);
	return UI_DRAW;
}
