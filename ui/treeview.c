/* SPDX-License-Identifier: GPL-2.0-or-later */
/* treeview: how call-tree lines read (inline under a symbol's row, and
 * F5's full screen): names from other processes sanitised here. */
#include <stdio.h>
#include <string.h>

#include "sanitize.h"
#include "ui.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "- 56.25%  75.00%  caller_a  cgwork_fp": the marker (+ more, - open), the
 * share of all samples, of the line above it, the name, the file. A wait
 * tree's first figure is its blocked ms (a second, in the interval). */
void treeview_line(const struct ui *u, const struct ui_tree *t, size_t vis, char *buf, size_t len,
	       enum ui_role *role)
{
	char name[512], dso[256];
	const struct ui_cgsnap *c = calltree_snap(u, t);
	const struct ui_tnode *n;
	const struct ui_cgsym *s;
	const char *d, *slash;
	char first[32];
	int indent;

	buf[0] = '\0';
	*role = R_NORMAL;
	if (vis >= t->nvis)
		return;
	n = &t->n[t->vis[vis]];
	sanitize(name, sizeof(name), calltree_name(u, t, t->vis[vis]));
	if (t->vis[vis] == 0) {
		*role = R_LABEL;
		if (t->kind == TREE_PATHS && t->waits)
			snprintf(buf, len, "  %7.1f   all waits (blocked ms%s)", (double)n->samples * c->ms,
				 c->scope == AGG_TOTAL ? " since start" : "/s");
		else if (t->kind == TREE_PATHS)
			snprintf(buf, len, "  %7.2f%%  all samples (%s)", pct(n->samples, c->base),
				 c->scope == AGG_TOTAL ? "since start" : "of the interval");
		else
			snprintf(buf, len, "    %s of %s  (%s, %% of the line above; r: %s)",
				 t->wakers ? (t->kind == TREE_CALLERS ? "who woke: callers" : "who woke: callees")
				 : t->kind == TREE_CALLERS ? "callers" : "callees", name,
				 !t->waits ? "% of all samples" : c->scope == AGG_TOTAL ? "blocked ms" : "blocked ms/s",
				 t->kind == TREE_CALLERS ? "callees" : "callers");
		return;
	}
	s = calltree_snap_sym(c, n->sym);
	d = s ? c->pool + s->dso : "";
	if (strcmp(d, "[kernel.kallsyms]") == 0) /* as the table says it */
		d = "[kernel]";
	slash = strrchr(d, '/');
	sanitize(dso, sizeof(dso), slash && slash[1] ? slash + 1 : d);
	if (s == NULL) {
		*role = R_DIM;
		strlcpy(name, "[other: stacks past the call-path tree's bound]", sizeof(name));
	} else if (s->kernel) {
		*role = R_KERNEL;
	}
	indent = (t->kind == TREE_PATHS ? 0 : 2) + 2 * (int)(n->depth > 40 ? 40 : n->depth);
	if (t->waits)
		snprintf(first, sizeof(first), "%7.1f", (double)n->samples * c->ms);
	else
		snprintf(first, sizeof(first), "%6.2f%%", pct(n->samples, c->base));
	snprintf(buf, len, "%*s%c %s %6.2f%%  %s%s%s%s", indent, "",
		 n->first == 0 ? ' ' : calltree_expanded(t, t->vis[vis]) ? '-' : '+', first,
		 pct(n->samples, t->n[n->parent].samples), s && s->comm ? "comm " : "", name, dso[0] ? "  " : "",
		 dso);
}

/* F5: the whole call-path tree, full screen. */
void treeview_paths_draw(struct ui *u, int h, int w)
{
	struct ui_tree *t = &u->paths;
	int rows = h - 3;
	char line[1024];

	/* Cut after a whole word, marked, as every line of prose. */
	paint_words(0, 0, w, R_HEAD, t->waits
		    ? " Wait paths (F5): blocked ms, % of the line above  Right/Enter expand  Left collapse  Esc back"
		    : " Call paths (F5): % of all samples, % of the line above  Right/Enter expand  Left collapse"
		      "  Esc back");
	if (rows < 1)
		return;
	t->page = (size_t)rows;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - (size_t)rows + 1;
	if (t->top + (size_t)rows > t->nvis)
		t->top = t->nvis > (size_t)rows ? t->nvis - (size_t)rows : 0;
	if (t->nn <= 1 && t->n && t->n[0].samples == 0) {
		paint_text(1 + rows / 2, 0, w, R_WARN, u->paused ? "paused" : t->waits ? "no waits yet" : "no call stacks yet",
			   false);
		return;
	}
	for (int r = 0; r < rows && t->top + (size_t)r < t->nvis; r++) {
		size_t i = t->top + (size_t)r;
		enum ui_role role;

		treeview_line(u, t, i, line, sizeof(line), &role);
		paint_name(1 + r, 0, w, i == t->sel ? R_SELECTED : role, line);
	}
}
