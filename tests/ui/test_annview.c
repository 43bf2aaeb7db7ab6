/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The annotate view (a) on known counts, no sampling: the real agg counts
 * samples by offset for a symbol that is not among the hottest counted
 * (so it starts counting when opened, and says so); its instructions are
 * made here, as the annotate layer would hand them. The view is drawn by
 * the real ui code into a curses screen and read back: the hottest line
 * selected, shares, Tab's order, a jump's arrow, the search, the event
 * (< >), t, S's summed source lines, a callee pushed and popped. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "annview.h"
#include "keys.h"
#include "ui.h"

static int n_tests, n_failed;

static void ok(int cond, const char *what)
{
	n_tests++;
	if (!cond)
		n_failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

/* loop: 0 mov, 3 or, 6 div (3 bytes), 9 add, c call mix, 11 jne 3, 13 ret */
static const struct annot_insn insns[] = {
	{ .offset = 0x0, .addr = 0x1000, .len = 3, .text = "movq   %rdi, %rax", .file = "/src/loop.c", .line = 10 },
	{ .offset = 0x3, .addr = 0x1003, .len = 3, .text = "orq    $1, %rax", .file = "/src/loop.c", .line = 11 },
	{ .offset = 0x6, .addr = 0x1006, .len = 3, .text = "divq   %r12", .file = "/src/loop.c", .line = 11 },
	{ .offset = 0x9, .addr = 0x1009, .len = 3, .text = "addq   %rax, %rdi", .file = "/src/loop.c", .line = 11 },
	{ .offset = 0xc, .addr = 0x100c, .len = 5, .text = "callq  0x2000", .kind = ANNOT_CALL, .has_target = true,
	  .target_addr = 0x2000, .callee = "mix", .file = "/src/loop.c", .line = 12 },
	{ .offset = 0x11, .addr = 0x1011, .len = 2, .text = "jne    0x1003", .kind = ANNOT_JUMP, .has_target = true,
	  .target_in_func = true, .target_off = 0x3, .target_addr = 0x1003, .file = "/src/loop.c", .line = 13 },
	{ .offset = 0x13, .addr = 0x1013, .len = 1, .text = "retq", .kind = ANNOT_RET, .file = "/src/loop.c", .line = 14 },
};
static const struct annot_func fn = { .sym = "loop", .dso = "/usr/bin/w", .start = 0x1000, .size = 0x14,
				      .ninsn = sizeof(insns) / sizeof(insns[0]), .insn = insns,
				      .lacks = "no source text: /src/loop.c unreadable" };

static void feed(struct agg *a, size_t ev, const char *sym, uint64_t key, uint64_t off, int n)
{
	struct sym_result r = { .sym = sym, .dso = "/usr/bin/w", .key = key, .comm = "w", .sym_start = 0x1000,
				.sym_size = 0x14, .sym_off = off };

	for (int i = 0; i < n; i++)
		agg_sample(a, ev, 0, 42, 42, &r, 1);
}

static char screen[64][256];
static int sel_row;

/* The screen as text; sel_row: the list's row in reverse (the selection). */
static void read_screen(struct ui *u, int h, int w)
{
	resizeterm(h, w);
	screen_draw(u, UI_DRAW);
	sel_row = -1;
	for (int y = 0; y < LINES && y < 64; y++) {
		mvinnstr(y, 0, screen[y], COLS < 255 ? COLS : 255);
		if (y > 3 && y < LINES - 2 && (mvinch(y, 1) & A_REVERSE))
			sel_row = y;
	}
}

static const char *sel_text(void)
{
	return sel_row >= 0 ? screen[sel_row] : "";
}

static bool shown(const char *s)
{
	for (int y = 0; y < LINES && y < 64; y++)
		if (strstr(screen[y], s))
			return true;
	return false;
}

/* A figure for doc/BENCHMARKS.md, asserted on nothing (a loaded machine
 * is slow): rebuilding and drawing a 10 000-instruction function. */
static void big_function(struct ui *u, struct annview_level *L)
{
	static struct annot_insn big[10000];
	static struct annot_func bf;
	const struct annot_func *saved = L->fn;
	struct timespec t0, t1;

	for (size_t i = 0; i < 10000; i++)
		big[i] = (struct annot_insn){ .offset = 4 * i, .addr = 0x1000 + 4 * i, .len = 4, .text = "addq   $1, %rax",
					      .file = "/src/big.c", .line = 1 + (unsigned)(i / 5) };
	bf = (struct annot_func){ .sym = "big", .dso = "/usr/bin/w", .size = 40000, .ninsn = 10000, .insn = big };
	read_screen(u, 50, 200); /* the resize outside the figure */
	L->fn = &bf;
	L->moved = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	annview_take(u, u->s->agg);
	read_screen(u, 50, 200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# 10000 instructions, 2000 source lines: counts, lines, hot order, draw at 200x50: %.2f ms\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	ok(u->annot->nlines == 10000 + 2000 && u->annot->nsrows == 2000, "10 000 instructions: their lines and source rows");
	L->fn = saved;
	free(L->cnt);
	L->cnt = NULL;
	L->cnt_cap = 0;
	annview_take(u, u->s->agg);
}

static void type(struct ui *u, const char *s)
{
	for (; *s; s++)
		keys_dispatch(u, *s == '\r' ? '\n' : *s);
}

int main(void)
{
	static const int cpus[] = { 0 };
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true };
	struct agg *a = agg_new(2, cpus, 1);
	struct annview_level *L;
	const struct agg_sym *row = NULL;
	struct session s;
	struct ui u;
	FILE *in, *dev;
	SCREEN *scr;

	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		setlocale(LC_ALL, "");
	strlcpy(agg_event(a, 0)->name, "cpu-clock", sizeof(agg_event(a, 0)->name));
	strlcpy(agg_event(a, 1)->name, "page-faults", sizeof(agg_event(a, 1)->name));
	agg_annot_keep(a, 0); /* only what is asked for is counted */
	feed(a, 0, "loop", 1, 0x9, 10);
	feed(a, 0, "other", 2, 0x0, 100);
	agg_roll(a, 0);
	memset(&s, 0, sizeof(s));
	s.agg = a;
	session_set_interval(&s, o.interval);
	ui_init(&u, &s, &o);
	u.fixed_time = 1700000000;
	in = fopen("/dev/null", "re");
	dev = fopen("/dev/null", "we");
	scr = in && dev ? newterm("xterm", dev, in) : NULL;
	ok(scr != NULL, "a curses screen on /dev/null");
	if (scr == NULL)
		return 1;
	paint_init(&u);

	feed(a, 0, "loop", 1, 0x9, 5);
	frame_take(&u, a, 1.0);
	for (size_t i = 0; i < u.fr.nsyms; i++)
		if (strcmp(u.fr.syms[i].sym, "loop") == 0)
			row = &u.fr.syms[i];
	ok(row != NULL, "loop's row in the frame");
	if (row == NULL)
		return 1;
	annview_open(&u, row);
	L = annview_top(&u);
	ok(u.mode == MODE_ANNOTATE && L != NULL, "annview_open: the annotate view");
	ok(L && L->since_open, "a symbol not counted yet: it starts counting when opened");
	/* The annotate layer's part (no session cache here): its instructions. */
	L->fn = &fn;
	agg_roll(a, 0);
	/* 70 samples on the add (one in the div's bytes counts for the div), 20 on the call, 10 on the or */
	feed(a, 0, "loop", 1, 0x9, 70);
	feed(a, 0, "loop", 1, 0xc, 20);
	feed(a, 0, "loop", 1, 0x3, 9);
	feed(a, 0, "loop", 1, 0x7, 1);
	feed(a, 0, "other", 2, 0x0, 100);
	feed(a, 1, "loop", 1, 0x0, 3); /* page-faults: on the mov */
	frame_take(&u, a, 1.0);
	u.msg[0] = '\0';
	read_screen(&u, 24, 80);
	printf("# %s\n# %s\n# %s\n", screen[0], screen[1], screen[2]);
	ok(strstr(screen[0], "Annotate loop (w)") != NULL, "80x24: the title names the symbol and its file");
	ok(strstr(screen[1], "cpu-clock: 100 samples in the interval, 50.00% of all") != NULL,
	   "the count line: the symbol's samples, its part of all");
	ok(shown("lacks: no source text"), "what the annotation lacks is shown");
	ok(shown("counting since it was opened"), "… and that its counts began when it was opened");
	ok(strstr(sel_text(), "70.00") && strstr(sel_text(), "9:  addq"),
	   "the hottest line selected: the add, 70.00 of the symbol's samples");
	ok(shown(" 1.00") && strstr(screen[sel_row - 1], "divq"), "a sample inside the div's bytes counts for it");
	ok(shown("c:  callq mix"), "a call reads by its callee's name");
	ok(shown("11:  jne 3"), "a jump in the function reads by its target's offset");
	ok(shown("loop.c:11  "), "source lines among the instructions (file:line)");

	keys_dispatch(&u, '\t');
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "20.00") && strstr(sel_text(), "callq"), "Tab: the second hottest (the call, 20.00)");
	keys_dispatch(&u, '\t');
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), " 9.00") != NULL, "Tab: the third (the or, 9.00)");
	keys_dispatch(&u, KEY_BTAB);
	keys_dispatch(&u, KEY_BTAB);
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "70.00") != NULL, "S-Tab twice: back to the hottest");

	/* The place is kept across a refresh, whatever becomes hottest. */
	keys_dispatch(&u, KEY_DOWN);
	feed(a, 0, "loop", 1, 0x0, 500);
	frame_take(&u, a, 1.0);
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "callq") != NULL, "a refresh keeps the selected line (the call)");

	/* t: shares of all samples. */
	keys_dispatch(&u, 't');
	read_screen(&u, 24, 80);
	ok(shown(" Of all ") && strstr(sel_text(), "callq"), "t: the column is Of all");
	keys_dispatch(&u, 't');

	/* The jump: Enter selects its target, the arrow from it. */
	type(&u, "/jne\r");
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "jne") != NULL, "/ jne: the jump selected");
	keys_dispatch(&u, '\n');
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), ",->") && strstr(sel_text(), "3:  orq"), "Enter on the jump: its target selected, ,-> at it");
	ok(shown("`--    11:  jne"), "… the arrow from the jump: `--");
	keys_dispatch(&u, 'n');
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "jne") != NULL, "n: the next match (the jump again)");

	/* S: the source lines, shares summed: line 11 holds or, div, add. */
	keys_dispatch(&u, 's');
	keys_dispatch(&u, 'S');
	read_screen(&u, 24, 80);
	printf("# %s\n", sel_text());
	ok(shown("Line") && strstr(sel_text(), "loop.c:10") && strstr(sel_text(), "83.33"),
	   "S: the source view, the hottest line selected (10: the mov's 500 of 600)");
	keys_dispatch(&u, '\t');
	read_screen(&u, 24, 80);
	ok(strstr(sel_text(), "loop.c:11") && strstr(sel_text(), "13.33"), "S, Tab: line 11, or+div+add summed (80 of 600)");
	keys_dispatch(&u, KEY_ESC);

	/* < >: the other event's counts. */
	keys_dispatch(&u, '>');
	keys_dispatch(&u, '\t');
	read_screen(&u, 24, 80);
	ok(strstr(screen[1], "page-faults: 3 samples") && strstr(sel_text(), "100.00") && strstr(sel_text(), "movq"),
	   "> then Tab: page-faults' counts, the mov its hottest");
	keys_dispatch(&u, '<');

	/* Enter on the call: mix on top (no annotation here), Esc back. */
	type(&u, "/call\r");
	keys_dispatch(&u, '\n');
	read_screen(&u, 24, 80);
	ok(u.annot->depth == 2 && strstr(screen[0], "loop > mix") != NULL, "Enter on the call: mix, the stack in the title");
	keys_dispatch(&u, KEY_ESC);
	read_screen(&u, 50, 200);
	ok(u.annot->depth == 1 && strstr(sel_text(), "callq") != NULL, "Esc: back to loop at 200x50, the call selected");
	big_function(&u, annview_top(&u));
	keys_dispatch(&u, KEY_LEFT);
	ok(u.mode == MODE_MAIN && u.annot->depth == 0, "Left on the last level: back to the table");

	ui_free(&u);
	endwin();
	delscreen(scr);
	agg_free(a);
	printf("1..%d\n", n_tests);
	return n_failed != 0;
}
