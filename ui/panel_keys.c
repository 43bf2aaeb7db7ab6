/* SPDX-License-Identifier: GPL-2.0-or-later */
/* panel_keys: the keys of the event panel, the exclude panel, the help
 * screen and the one-line prompts (filter, interval, frequency). */
#include <curses.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evspec.h"
#include "keys.h"
#include "perfsys.h"

/* EXCL_* bit of a panel letter; 0 if it is none. */
static unsigned flag_of(int key)
{
	static const char letters[] = "ukviog"; /* EXCL_* order */
	const char *p = key > 0 && key < 128 ? strchr(letters, key) : NULL;

	return p && *p ? 1u << (p - letters) : 0;
}

static unsigned panel_move(struct ui *u, int key)
{
	size_t n = actions_panel_len(u);

	if (n == 0)
		return 0;
	if (key == KEY_UP)
		u->panel_sel = u->panel_sel ? u->panel_sel - 1 : 0;
	else if (key == KEY_DOWN)
		u->panel_sel = u->panel_sel + 1 < n ? u->panel_sel + 1 : n - 1;
	else if (key == KEY_HOME)
		u->panel_sel = 0;
	else
		u->panel_sel = n - 1;
	return UI_DRAW;
}

static unsigned panel_close(struct ui *u, int key)
{
	u->mode = MODE_MAIN;
	return UI_DRAW;
}

/* --- event panel ------------------------------------------------------- */

static unsigned event_toggle_key(struct ui *u, int key)
{
	return actions_event_toggle(u, u->panel_sel);
}

static unsigned event_flag(struct ui *u, int key)
{
	return actions_event_flip_exclude(u, u->panel_sel, flag_of(key));
}

const struct key_binding panel_keys_event[] = {
	{ KEY_UP, panel_move, { "Up Down", "select an event" } },
	{ KEY_DOWN, panel_move, { NULL, NULL } },
	{ KEY_HOME, panel_move, { NULL, NULL } },
	{ KEY_END, panel_move, { NULL, NULL } },
	{ ' ', event_toggle_key, { "Space", "switch it on or off (no re-open)" } },
	{ 'u', event_flag, { "u k v", "flip its user / kernel / hv exclude" } },
	{ 'k', event_flag, { NULL, NULL } },
	{ 'v', event_flag, { NULL, NULL } },
	{ 'i', event_flag, { "i o g", "flip its idle / host / guest exclude" } },
	{ 'o', event_flag, { NULL, NULL } },
	{ 'g', event_flag, { NULL, NULL } },
	{ KEY_ESC, panel_close, { "Esc e Enter", "close the panel" } },
	{ 'e', panel_close, { NULL, NULL } },
	{ '\n', panel_close, { NULL, NULL } },
	{ '\r', panel_close, { NULL, NULL } },
	{ KEY_ENTER, panel_close, { NULL, NULL } },
	{ 0, NULL, { NULL, NULL } },
};

/* --- exclude panel ----------------------------------------------------- */

static unsigned exclude_flag(struct ui *u, int key)
{
	unsigned bit = key == ' ' ? 1u << u->panel_sel : flag_of(key);

	return bit ? actions_exclude_toggle_all(u, bit) : 0;
}

const struct key_binding panel_keys_exclude[] = {
	{ KEY_UP, panel_move, { "Up Down", "select a flag" } },
	{ KEY_DOWN, panel_move, { NULL, NULL } },
	{ KEY_HOME, panel_move, { NULL, NULL } },
	{ KEY_END, panel_move, { NULL, NULL } },
	{ ' ', exclude_flag, { "Space", "flip the selected flag, all events" } },
	{ 'u', exclude_flag, { "u", "exclude user" } },
	{ 'k', exclude_flag, { "k", "exclude kernel" } },
	{ 'v', exclude_flag, { "v", "exclude hypervisor (hv)" } },
	{ 'i', exclude_flag, { "i", "exclude idle" } },
	{ 'o', exclude_flag, { "o", "exclude host" } },
	{ 'g', exclude_flag, { "g", "exclude guest" } },
	{ KEY_ESC, panel_close, { "Esc x Enter", "close the panel" } },
	{ 'x', panel_close, { NULL, NULL } },
	{ '\n', panel_close, { NULL, NULL } },
	{ '\r', panel_close, { NULL, NULL } },
	{ KEY_ENTER, panel_close, { NULL, NULL } },
	{ 0, NULL, { NULL, NULL } },
};

/* --- sort menu (F6) ---------------------------------------------------- */

static unsigned sort_pick(struct ui *u, int key)
{
	u->sort_col[u->view] = u->panel_sel;
	u->mode = MODE_MAIN;
	return UI_RESORT;
}

static unsigned sort_invert(struct ui *u, int key)
{
	u->sort_inv[u->view] = !u->sort_inv[u->view];
	return UI_RESORT;
}

const struct key_binding panel_keys_sort[] = {
	{ KEY_UP, panel_move, { "Up Down", "select a column" } },
	{ KEY_DOWN, panel_move, { NULL, NULL } },
	{ KEY_HOME, panel_move, { NULL, NULL } },
	{ KEY_END, panel_move, { NULL, NULL } },
	{ '\n', sort_pick, { "Enter", "sort by it" } },
	{ '\r', sort_pick, { NULL, NULL } },
	{ KEY_ENTER, sort_pick, { NULL, NULL } },
	{ 'I', sort_invert, { "I", "invert the order" } },
	{ KEY_ESC, panel_close, { "Esc F6", "close the menu" } },
	{ KEY_F(6), panel_close, { NULL, NULL } },
	{ 0, NULL, { NULL, NULL } },
};

/* --- help -------------------------------------------------------------- */

unsigned panel_keys_help_key(struct ui *u, int key)
{
	switch (key) {
	case KEY_UP:
	case 'k':
		u->help_top = u->help_top ? u->help_top - 1 : 0;
		return UI_DRAW;
	case KEY_DOWN:
	case 'j':
		u->help_top++;
		return UI_DRAW;
	case KEY_PPAGE:
		u->help_top = u->help_top > u->help_page ? u->help_top - u->help_page : 0;
		return UI_DRAW;
	case KEY_NPAGE:
	case ' ':
		u->help_top += u->help_page;
		return UI_DRAW;
	case KEY_HOME:
		u->help_top = 0;
		return UI_DRAW;
	case KEY_END:
		u->help_top = SIZE_MAX / 2; /* the draw stops it at the last page */
		return UI_DRAW;
	case KEY_F(10):
		return UI_QUIT;
	case KEY_CTRL('l'):
		return UI_CLEAR;
	case KEY_RESIZE:
		return 0;
	default: /* any other key: back where help was asked for */
		u->mode = u->prev_mode;
		return UI_DRAW;
	}
}

/* --- prompts ------------------------------------------------------------- */

const struct key_binding panel_keys_prompt[] = {
	{ 0, NULL, { "Enter", "apply (d, F: nothing typed keeps the value)" } },
	{ 0, NULL, { "Esc", "cancel (a filter reverts, a search ends)" } },
	{ 0, NULL, { "Backspace", "delete a character; Ctrl-U: all" } },
	{ 0, NULL, { NULL, NULL } },
};

/* The kernel's bound, or perf's default when it cannot be read. */
static uint64_t max_sample_rate(void)
{
	uint64_t v = session_max_sample_rate();

	return v ? v : 100000;
}

static const struct { const char *name; int sig; } signals[] = {
	{ "TERM", SIGTERM }, { "KILL", SIGKILL }, { "HUP", SIGHUP }, { "INT", SIGINT },
	{ "QUIT", SIGQUIT }, { "STOP", SIGSTOP }, { "CONT", SIGCONT }, { "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 },
};

/* "15", "TERM", "SIGTERM", "term": the signal, or 0. */
static int signal_of(const char *s)
{
	const char *errstr = NULL;
	long long n;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	n = strtonum(s, 1, 64, &errstr);
	return errstr ? 0 : (int)n;
}

/* F9, confirmed: the signal typed (nothing typed: TERM, as htop). */
static unsigned kill_apply(struct ui *u)
{
	int sig = u->input[0] ? signal_of(u->input) : SIGTERM;

	if (sig == 0) {
		ui_message(u, true, "no signal \"%s\": a number or TERM KILL HUP INT QUIT STOP CONT USR1 USR2",
			   u->input);
		return UI_DRAW;
	}
	if (u->ntags)
		return tags_signal(u, sig);
	if (kill(u->kill_pid, sig) != 0) {
		ui_message(u, true, "signal %d to PID %d: %s", sig, (int)u->kill_pid, strerror(errno));
		return UI_DRAW;
	}
	ui_message(u, false, "signal %d (%s) sent to PID %d", sig, strsignal(sig), (int)u->kill_pid);
	return UI_DRAW;
}

/* u, confirmed: a user name or uid; nothing typed: every user again. */
static unsigned user_apply(struct ui *u)
{
	const char *errstr = NULL;
	struct passwd *pw;
	long long uid;

	if (u->input[0] == '\0') {
		u->user[0] = '\0';
		ui_message(u, false, "tasks of every user");
		return UI_RESORT;
	}
	errno = 0;
	pw = getpwnam(u->input);
	if (pw) {
		uid = pw->pw_uid;
	} else {
		uid = strtonum(u->input, 0, UINT32_MAX - 1, &errstr);
		if (errstr) {
			ui_message(u, true, "no user \"%s\": a name or a uid (nothing: every user)", u->input);
			return UI_DRAW;
		}
	}
	u->user_uid = (uid_t)uid;
	strlcpy(u->user, u->input, sizeof(u->user));
	ui_message(u, false, "Tasks view: %s's tasks only (u, then Enter alone: all)", u->user);
	return UI_RESORT;
}

static unsigned prompt_apply(struct ui *u)
{
	const char *errstr = NULL;
	char *end;
	double d;
	long long f;

	u->mode = MODE_MAIN;
	if (u->prompt == PROMPT_KILL)
		return kill_apply(u);
	if (u->prompt == PROMPT_USER)
		return user_apply(u);
	if (u->prompt == PROMPT_GROUP)
		return groups_apply(u);
	if (u->prompt == PROMPT_SEARCH)
		return UI_DRAW; /* the search stays for n and N */
	if (u->prompt != PROMPT_FILTER && u->input[0] == '\0')
		return UI_DRAW; /* nothing typed: the value stays */
	switch (u->prompt) {
	case PROMPT_FILTER:
		strlcpy(u->filter[u->view], u->input, sizeof(u->filter[u->view]));
		return UI_RESORT;
	case PROMPT_INTERVAL:
		errno = 0;
		d = strtod(u->input, &end);
		if (errno || end == u->input || *end || !(d >= 0.1 && d <= 3600)) {
			ui_message(u, true, "interval: give seconds from 0.1 to 3600");
			return UI_DRAW;
		}
		return actions_interval_set(u, d);
	case PROMPT_FREQ:
		f = strtonum(u->input, 1, (long long)max_sample_rate(), &errstr);
		if (errstr) {
			ui_message(u, true, "frequency %s: from 1 to %llu Hz (kernel.perf_event_max_sample_rate)",
				   errstr, (unsigned long long)max_sample_rate());
			return UI_DRAW;
		}
		if ((uint64_t)f == u->freq && !u->period)
			return UI_DRAW;
		u->reopen = (struct ui_reopen){ .pending = true, .pid = u->focus, .freq = (uint64_t)f };
		return UI_REOPEN;
	case PROMPT_SEARCH:
	case PROMPT_KILL:
	case PROMPT_USER:
	case PROMPT_GROUP:
		break;
	}
	return UI_DRAW;
}

unsigned panel_keys_prompt_key(struct ui *u, int key)
{
	size_t len = strlen(u->input);
	bool live = u->prompt == PROMPT_FILTER, search = u->prompt == PROMPT_SEARCH;

	switch (key) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return prompt_apply(u);
	case KEY_ESC:
		if (live)
			strlcpy(u->filter[u->view], u->input_saved, sizeof(u->filter[u->view]));
		if (search)
			u->search[0] = '\0';
		u->mode = MODE_MAIN;
		return live ? UI_RESORT : UI_DRAW;
	case KEY_BACKSPACE:
	case 127:
	case KEY_CTRL('h'):
		if (len)
			u->input[len - 1] = '\0';
		break;
	case KEY_CTRL('u'):
		u->input[0] = '\0';
		break;
	case KEY_CTRL('l'):
		return UI_CLEAR;
	default:
		if (key < 0x20 || key > 0x7e || len + 1 >= sizeof(u->input))
			return 0;
		u->input[len] = (char)key;
		u->input[len + 1] = '\0';
		break;
	}
	if (search) {
		/* As typed: the first match from the top is selected. */
		strlcpy(u->search, u->input, sizeof(u->search));
		views_build(u); /* keys read in one batch: rows as they are now */
		for (size_t i = 0; u->search[0] && i < u->nrows; i++)
			if (views_match(u, u->rows[i], u->search)) {
				u->sel[u->view] = i;
				u->sel_key[u->view] = views_row_key(u, u->rows[i]);
				u->sel_valid[u->view] = true;
				u->tree.in = false;
				break;
			}
		return UI_DRAW;
	}
	if (!live)
		return UI_DRAW;
	/* The filter applies as it is typed, as in htop. */
	strlcpy(u->filter[u->view], u->input, sizeof(u->filter[u->view]));
	return UI_RESORT;
}
