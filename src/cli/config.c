/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config: perftoprc's keys, one row each (as the options' table): the
 * command line's own defaults (delay, freq, event, call-graph) and the
 * live view's settings, which are checked here, read by the ui. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfsys.h"
#include "rcfile.h"

struct config_key {
	const char *key;
	/* 0, or -1 with why (the value's wanted form) in err */
	int (*apply)(struct options_state *st, const char *v, char *err, size_t len);
	const char *words;      /* for check_words: the values it takes, '|' between */
};

static int check_words(const char *words, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = words; *p;) {
		size_t k = strcspn(p, "|");

		if (k == n && strncmp(p, v, n) == 0)
			return 0;
		p += k + (p[k] == '|');
	}
	return -1;
}

static int apply_delay(struct options_state *st, const char *v, char *err, size_t len)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= 0.1 && d <= 3600)) {
		snprintf(err, len, "seconds from 0.1 to 3600");
		return -1;
	}
	st->o->live_delay = d;
	return 0;
}

static int apply_freq(struct options_state *st, const char *v, char *err, size_t len)
{
	uint64_t max = perfsys_max_sample_rate();
	const char *errstr;
	long long f = strtonum(v, 1, max ? (long long)max : 10000000, &errstr);

	if (errstr) {
		snprintf(err, len, "a rate in Hz from 1 to %llu", max ? (unsigned long long)max : 10000000ULL);
		return -1;
	}
	if (!st->freq_given)
		st->o->freq = (uint64_t)f;
	return 0;
}

static int apply_event(struct options_state *st, const char *v, char *err, size_t len)
{
	struct evspec *ev = NULL;
	size_t n = 0;
	char why[256];

	if (evspec_parse_list(v, &ev, &n, why, sizeof(why))) {
		snprintf(err, len, "events as -e takes them (%s)", why);
		return -1;
	}
	free(ev);
	if (st->events == NULL)
		st->events = v; /* the file's text lives as long as o->rc */
	return 0;
}

static int apply_call_graph(struct options_state *st, const char *v, char *err, size_t len)
{
	struct options copy = *st->o;
	struct options_state probe = { .o = &copy };
	const struct options_row *row = NULL;

	for (size_t i = 0; i < options_nrows; i++)
		if (options_rows[i].name && strcmp(options_rows[i].name, "call-graph") == 0)
			row = &options_rows[i];
	copy.cg.mode = CALLGRAPH_NONE;
	/* --call-graph's own parser, on a copy: the command line's wins. */
	if (strcmp(v, "none") != 0 && (row == NULL || row->set(&probe, row, v))) {
		snprintf(err, len, "none, fp, dwarf[,SIZE] or lbr");
		return -1;
	}
	if (!st->cg_given)
		st->o->cg = copy.cg;
	return 0;
}

/* The live view's keys: their values' form here; column names in ui/prefs.c. */
static int apply_words(struct options_state *st, const char *v, char *err, size_t len);

static const struct config_key keys[] = {
	{ "delay", apply_delay, NULL },
	{ "freq", apply_freq, NULL },
	{ "event", apply_event, NULL },
	{ "call-graph", apply_call_graph, NULL },
	{ "view", apply_words, "last|symbols|tasks|cpus" },
	{ "colors", apply_words, "default|monochrome|light|colorblind" },
	{ "decay", apply_words, "yes|no" },
	{ "cumulative", apply_words, "yes|no" },
	{ "meters", NULL, NULL },
	{ "sort.symbols", NULL, NULL },
	{ "sort.tasks", NULL, NULL },
	{ "sort.cpus", NULL, NULL },
	{ "columns.symbols", NULL, NULL },
	{ "columns.tasks", NULL, NULL },
	{ "columns.cpus", NULL, NULL },
};

static const struct config_key *current;

static int apply_words(struct options_state *st, const char *v, char *err, size_t len)
{
	if (check_words(current->words, v) == 0)
		return 0;
	snprintf(err, len, "one of %s", current->words);
	for (char *p = err; *p; p++)
		if (*p == '|')
			*p = ',';
	return -1;
}

static void warn(struct options *o, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One line on stderr; the first also for the live view's message line. */
static void warn(struct options *o, unsigned line, const char *fmt, ...)
{
	char msg[512], where[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(where, sizeof(where), "%s:%u: %s", o->rc_path, line, msg);
	else
		snprintf(where, sizeof(where), "%s: %s", o->rc_path, msg);
	fprintf(stderr, "perftop: %s\n", where);
	if (o->rc_warning[0] == '\0')
		strlcpy(o->rc_warning, where, sizeof(o->rc_warning));
}

void config_apply(struct options_state *st)
{
	struct options *o = st->o;
	struct rcfile_entry e;
	int rc;

	o->live_delay = OPTIONS_LIVE_DELAY;
	if (o->no_config)
		return;
	if (o->config)
		rc = strlcpy(o->rc_path, o->config, sizeof(o->rc_path)) < sizeof(o->rc_path) ? 0 : -ENAMETOOLONG;
	else
		rc = rcfile_path(o->rc_path, sizeof(o->rc_path), "XDG_CONFIG_HOME", ".config", "perftop/perftoprc");
	if (rc) {
		o->rc_path[0] = '\0';
		return; /* no HOME: nothing to read, nowhere to write */
	}
	rc = rcfile_load(o->rc_path, &o->rc);
	if (rc && rc != -ENOENT) {
		/* Never written over: what is there may be someone's. */
		warn(o, 0, "cannot read it: %s (defaults used; --no-config: none)",
		     rc == -EFBIG ? "over 64 KiB" : strerror(-rc));
		return;
	}
	for (size_t i = 0; rcfile_entry(o->rc, i, &e); i++) {
		char err[384];

		if (e.key == NULL) {
			warn(o, e.line, "not \"key = value\" (line ignored)");
			continue;
		}
		current = NULL;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strcmp(keys[k].key, e.key) == 0)
				current = &keys[k];
		if (current == NULL) {
			warn(o, e.line, "unknown key \"%s\" (line ignored)", e.key);
			continue;
		}
		/* Only the last line of a key counts (rcfile_get's). */
		{
			unsigned last = 0;

			rcfile_get(o->rc, e.key, &last);
			if (last != e.line)
				continue;
		}
		if (current->apply && current->apply(st, e.value, err, sizeof(err)))
			warn(o, e.line, "%s wants %s, not \"%s\" (default used)", e.key, err, e.value);
	}
}
