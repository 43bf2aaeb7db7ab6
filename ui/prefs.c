/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prefs: the live view's settings in perftoprc (read by the command line
 * first, src/cli/config.c, which checked their form) and its volatile
 * state apart, in $XDG_STATE_HOME/perftop/state (the last view and
 * selection), as btop keeps them apart: a person edits the one, perftop
 * rewrites the other. A key is written back only when the live view
 * changed it (its value at the start against its value at the quit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columns.h"
#include "rcfile.h"

const char *const prefs_scheme_names[SCHEME_COUNT] = { "default", "monochrome", "light", "colorblind" };
static const char *const view_keys[VIEW_COUNT] = { "symbols", "tasks", "cpus", "waits" };
static const char *const meter_names[] = { "events", "system", "cpus" }; /* METER_* bit order */

struct pref_key {
	const char *key;
	enum ui_view v;            /* for the per-view keys */
	void (*get)(const struct ui *u, enum ui_view v, char *buf, size_t len);
};

static void get_delay(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	snprintf(buf, len, "%g", session_interval(u->s));
}

static void get_freq(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)u->freq);
}

static void get_view(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	strlcpy(buf, u->start_view < 0 ? "last" : view_keys[u->start_view], len);
}

static void get_colors(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	strlcpy(buf, prefs_scheme_names[u->scheme], len);
}

static void get_decay(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	strlcpy(buf, u->decay ? "yes" : "no", len);
}

static void get_cumulative(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	strlcpy(buf, u->cumulative ? "yes" : "no", len);
}

static void get_meters(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(meter_names) / sizeof(meter_names[0]); i++)
		if (u->meters & (1u << i)) {
			if (buf[0])
				strlcat(buf, ",", len);
			strlcat(buf, meter_names[i], len);
		}
	if (buf[0] == '\0')
		strlcpy(buf, "none", len);
}

static void get_sort(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	prefs_sort_text(u, v, buf, len);
}

static void get_columns(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	size_t l[UI_MAX_COLS], n = colset_list(u, v, l, UI_MAX_COLS);

	buf[0] = '\0';
	if (!u->col_custom[v])
		return; /* the table's own: nothing to write */
	for (size_t i = 0; i < n; i++) {
		if (i)
			strlcat(buf, ",", len);
		strlcat(buf, colset_name(v, l[i]), len);
	}
}

static const struct pref_key keys[] = {
	{ "delay", 0, get_delay }, { "freq", 0, get_freq }, { "view", 0, get_view },
	{ "colors", 0, get_colors }, { "decay", 0, get_decay }, { "cumulative", 0, get_cumulative },
	{ "meters", 0, get_meters },
	{ "sort.symbols", VIEW_SYMBOLS, get_sort }, { "sort.tasks", VIEW_TASKS, get_sort },
	{ "sort.cpus", VIEW_CPUS, get_sort },
	{ "columns.symbols", VIEW_SYMBOLS, get_columns }, { "columns.tasks", VIEW_TASKS, get_columns },
	{ "columns.cpus", VIEW_CPUS, get_columns },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

#define RC_HEAD "# perftop settings: key = value. perftop writes back the keys changed in\n" \
	"# the live view (F2, d, F, sorts) at q; edits, comments and order are kept.\n" \
	"# See FILES in man perftop.\n"

/* The values at the start (one live view a process). */
static char at_start[NKEYS][256];

void prefs_sort_text(const struct ui *u, enum ui_view v, char *buf, size_t len)
{
	struct ui *w = (struct ui *)u; /* views_ read the view shown: it is set back */
	enum ui_view was = w->view;

	w->view = v;
	views_col_name(w, w->sort_col[v], buf, len);
	w->view = was;
	if (u->sort_inv[v])
		strlcat(buf, ", inverted", len);
}

/* A complaint about a line of the file: the message line's, and stderr's
 * while the terminal is not yet taken. */
static void warn(struct ui *u, bool early, const char *key, const char *fmt, const char *arg)
{
	char what[160];
	unsigned line = 0;

	rcfile_get(u->o->rc, key, &line);
	snprintf(what, sizeof(what), fmt, arg);
	if (early)
		fprintf(stderr, "perftop: %s:%u: %s: %s (default used)\n", u->o->rc_path, line, key, what);
	if (!u->msg[0])
		ui_message(u, true, "%s:%u: %s: %s (default used)", u->o->rc_path, line, key, what);
}

static const char *get(const struct ui *u, const char *key)
{
	return rcfile_get(u->o->rc, key, NULL);
}

static void load_columns(struct ui *u, enum ui_view v)
{
	char key[32], list[256], *save = NULL;
	const char *val;
	size_t n = 0;

	snprintf(key, sizeof(key), "columns.%s", view_keys[v]);
	if ((val = get(u, key)) == NULL || strlcpy(list, val, sizeof(list)) >= sizeof(list))
		return;
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int c;

		while (*w == ' ')
			w++;
		for (char *e = w + strlen(w); e > w && e[-1] == ' ';)
			*--e = '\0';
		c = colset_find(v, w);
		if (c < 0 || n == UI_MAX_COLS) {
			warn(u, true, key, "no column \"%s\" in this view", w);
			return;
		}
		u->col_order[v][n++] = (uint8_t)c;
	}
	if (n == 0)
		return;
	u->ncol_order[v] = n;
	u->col_custom[v] = true;
}

static void load_meters(struct ui *u)
{
	char list[128], *save = NULL;
	const char *val = get(u, "meters");
	unsigned m = 0;

	if (val == NULL || strlcpy(list, val, sizeof(list)) >= sizeof(list))
		return;
	for (char *w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		size_t i = 0;

		while (i < sizeof(meter_names) / sizeof(meter_names[0]) && strcmp(w, meter_names[i]))
			i++;
		if (i < sizeof(meter_names) / sizeof(meter_names[0]))
			m |= 1u << i;
		else if (strcmp(w, "none") != 0) {
			warn(u, true, "meters", "\"%s\" is none of events, system, cpus, none", w);
			return;
		}
	}
	u->meters = m;
}

/* The state file: the last view, the selected task and CPU. */
static void load_state(struct ui *u)
{
	struct rcfile *st = NULL;
	const char *v;

	if (u->o->no_config ||
	    rcfile_path(u->state_path, sizeof(u->state_path), "XDG_STATE_HOME", ".local/state", "perftop/state")) {
		u->state_path[0] = '\0';
		return;
	}
	if (rcfile_load(u->state_path, &st) != 0) {
		rcfile_free(st);
		return; /* none yet, or unreadable: it is only the last view */
	}
	for (int i = 0; i < VIEW_WAITS && (v = rcfile_get(st, "view", NULL)); i++)
		if (u->start_view < 0 && strcmp(v, view_keys[i]) == 0)
			u->view = (enum ui_view)i;
	for (int i = VIEW_TASKS; i <= VIEW_CPUS; i++) {
		char key[32];
		const char *errstr = NULL;
		long long k;

		snprintf(key, sizeof(key), "select.%s", view_keys[i]);
		if ((v = rcfile_get(st, key, NULL)) == NULL)
			continue;
		k = strtonum(v, 0, INT32_MAX, &errstr);
		if (errstr == NULL) {
			u->sel_key[i] = (uint64_t)k;
			u->sel_valid[i] = true;
		}
	}
	rcfile_free(st);
}

void prefs_load(struct ui *u)
{
	const char *v;

	if ((v = get(u, "view")) != NULL) /* not Waits: it shows only with --off-cpu */
		for (int i = 0; i < VIEW_WAITS; i++)
			if (strcmp(v, view_keys[i]) == 0)
				u->start_view = i;
	if (u->start_view >= 0)
		u->view = (enum ui_view)u->start_view;
	if ((v = get(u, "colors")) != NULL)
		for (int i = 0; i < SCHEME_COUNT; i++)
			if (strcmp(v, prefs_scheme_names[i]) == 0)
				u->scheme = (enum ui_scheme)i;
	if ((v = get(u, "decay")) != NULL)
		u->decay = strcmp(v, "yes") == 0;
	if ((v = get(u, "cumulative")) != NULL)
		u->cumulative = strcmp(v, "yes") == 0;
	load_meters(u);
	for (int i = 0; i < VIEW_COUNT; i++)
		load_columns(u, (enum ui_view)i);
	load_state(u);
	if (u->o->rc_warning[0]) /* the command line's reading of the file */
		ui_message(u, true, "%s", u->o->rc_warning);
}

static void load_sort(struct ui *u, enum ui_view v)
{
	char key[32], name[128], col[64];
	const char *val, *comma;
	size_t n;

	snprintf(key, sizeof(key), "sort.%s", view_keys[v]);
	if ((val = get(u, key)) == NULL)
		return;
	comma = strrchr(val, ',');
	n = comma ? (size_t)(comma - val) : strlen(val);
	snprintf(name, sizeof(name), "%.*s", (int)n, val);
	if (comma) {
		while (*++comma == ' ')
			;
		if (strcmp(comma, "inverted") != 0) {
			warn(u, false, key, "\"%s\": a column, then \", inverted\" or nothing", val);
			return;
		}
	}
	u->view = v;
	n = views_ncols(u);
	for (size_t i = 0; i < n; i++) {
		views_col_name(u, i, col, sizeof(col));
		if (strcasecmp(col, name) == 0) {
			u->sort_col[v] = i;
			u->sort_inv[v] = comma != NULL;
			return;
		}
	}
	/* Not shown in this run (IPC with no counters, an event not sampled
	 * now): the default, quietly, and the file keeps its line. */
}

void prefs_load_sort(struct ui *u)
{
	enum ui_view was = u->view;

	for (int v = 0; v < VIEW_COUNT; v++)
		load_sort(u, (enum ui_view)v);
	u->view = was;
	for (size_t k = 0; k < NKEYS; k++)
		keys[k].get(u, keys[k].v, at_start[k], sizeof(at_start[k]));
}

static void save_state(struct ui *u)
{
	struct rcfile *st = NULL;
	char num[32];
	int err;

	if (u->state_path[0] == '\0')
		return;
	err = rcfile_load(u->state_path, &st);
	if (err && err != -ENOENT)
		st = rcfile_new(); /* unreadable: written anew, it is perftop's own */
	if (st == NULL)
		return;
	err = rcfile_set(st, "view", view_keys[u->view]);
	for (int i = VIEW_TASKS; i <= VIEW_CPUS && err == 0; i++) {
		char key[32];

		if (!u->sel_valid[i])
			continue;
		snprintf(key, sizeof(key), "select.%s", view_keys[i]);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)u->sel_key[i]);
		err = rcfile_set(st, key, num);
	}
	if (err == 0 && rcfile_dirty(st))
		err = rcfile_save(st, u->state_path);
	if (err)
		fprintf(stderr, "perftop: cannot write %s: %s (the last view is not kept)\n", u->state_path,
			strerror(-err));
	rcfile_free(st);
}

void prefs_save(struct ui *u)
{
	struct rcfile *rc = u->o->rc;
	char now[256];
	int err = 0;

	if (u->o->no_config)
		return;
	save_state(u);
	if (rc == NULL)
		return; /* unreadable at the start: never written over */
	for (size_t k = 0; k < NKEYS && err == 0; k++) {
		keys[k].get(u, keys[k].v, now, sizeof(now));
		if (strcmp(now, at_start[k]) != 0 && now[0] && !rcfile_entry(rc, 0, &(struct rcfile_entry){ 0 })) {
			char *text = rcfile_text(rc, NULL);

			/* A new file says what it is, once. */
			if (text && text[0] == '\0')
				err = rcfile_parse(rc, RC_HEAD, strlen(RC_HEAD));
			free(text);
		}
		if (strcmp(now, at_start[k]) != 0 && now[0])
			err = rcfile_set(rc, keys[k].key, now);
	}
	if (err == 0 && rcfile_dirty(rc))
		err = rcfile_save(rc, u->o->rc_path);
	if (err)
		fprintf(stderr, "perftop: cannot write the settings to %s: %s\n", u->o->rc_path, strerror(-err));
}
