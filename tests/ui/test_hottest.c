/* SPDX-License-Identifier: GPL-2.0-or-later */
/* F5 opens its call-path tree along the hottest path, a node's own (self)
 * samples counting as a way: a leaf that spends 99.98 % in itself does not
 * open the 0.5 % timer chain below it. The tree is built by the real code
 * from stacks fed to the agg, as bench_calltree builds its own. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "agg.h"
#include "callgraph.h"
#include "keys.h"
#include "ui.h"

/* One stack, leaf first, n times (of period 1). */
static void feed(struct agg *a, const char *const *names, size_t depth, uint64_t n)
{
	struct sym_result fr[8];

	for (size_t i = 0; i < depth; i++)
		fr[i] = (struct sym_result){ .sym = names[i], .dso = "/usr/bin/w", .key = (uint64_t)names[i][0] * 131 +
							 strlen(names[i]), .comm = "w" };
	for (uint64_t k = 0; k < n; k++)
		agg_sample_stack(a, 0, 0, 10, 10, fr, depth, 1);
}

/* The node named name on the lines shown, or UINT32_MAX. */
static uint32_t shown(struct ui *u, const char *name)
{
	for (size_t i = 0; i < u->paths.nvis; i++)
		if (strcmp(calltree_name(u, &u->paths, u->paths.vis[i]), name) == 0)
			return u->paths.vis[i];
	return UINT32_MAX;
}

int main(void)
{
	static const int cpus[] = { 0 };
	static const char *const busy[] = { "busy", "main" };
	static const char *const timer[] = { "hrtimer_fn", "timer_irq", "busy", "main" };
	static const char *const side[] = { "side_leaf", "side", "main" };
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true };
	struct agg *a = agg_new(1, cpus, 1);
	struct session s;
	struct ui u;
	uint32_t b;

	if (a == NULL)
		return 1;
	/* busy: 9998 samples of its own, 50 through a timer chain below it;
	 * side: 1000 through side_leaf. */
	feed(a, busy, 2, 9998);
	feed(a, timer, 4, 50);
	feed(a, side, 3, 1000);
	memset(&s, 0, sizeof(s));
	s.agg = a;
	ui_init(&u, &s, &o);
	u.fixed_time = 1700000000; /* no /proc reads in frame_take */
	u.callgraph = true;
	frame_take(&u, a, 1.0);
	tree_keys_paths_open(&u, KEY_F(5));
	b = shown(&u, "busy");
	CHECK(u.mode == MODE_PATHS, "F5: the call-path tree");
	CHECK(shown(&u, "main") != UINT32_MAX && calltree_expanded(&u.paths, shown(&u, "main")),
	      "main (no self, busy the hotter child) is opened");
	CHECK(b != UINT32_MAX, "busy, main's hottest child, is shown");
	CHECK(b != UINT32_MAX && !calltree_expanded(&u.paths, b), "busy, whose self outweighs its children, is not opened");
	CHECK(shown(&u, "timer_irq") == UINT32_MAX && shown(&u, "hrtimer_fn") == UINT32_MAX,
	      "its 0.5 %% timer chain stays closed");
	CHECK(shown(&u, "side") != UINT32_MAX && shown(&u, "side_leaf") == UINT32_MAX,
	      "the colder sibling is shown, not opened");
	ui_free(&u);
	agg_free(a);
	return check_done();
}
