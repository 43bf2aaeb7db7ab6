/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Render test: one fixed aggregation snapshot (no sampling) drawn by the real
 * ui code into a curses screen 100x30 (and a few other states and sizes),
 * read back as text and compared with tests/ui/render_expected.txt.
 * PERFTOP_UPDATE_EXPECTED=1 rewrites the expected file instead. */
#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "agg.h"
#include "counters.h"
#include "evspec.h"
#include "columns.h"
#include "ui.h"

static int n_tests, n_failed;

static void ok(int cond, const char *what)
{
	n_tests++;
	if (!cond)
		n_failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

static const char *comm_of(pid_t pid)
{
	switch (pid) {
	case 0: return "swapper";
	case 4242: return "workload";
	case 777: return "evil\x1b]2;PWNED\x07";
	default: return "sh";
	}
}

static void feed(struct agg *a, size_t ev, int cpu, pid_t pid, const char *sym, const char *dso,
		 uint64_t key, bool kernel, int n)
{
	struct sym_result r = { .sym = sym, .dso = dso, .key = key, .kernel = kernel, .comm = comm_of(pid) };

	for (int i = 0; i < n; i++)
		agg_sample(a, ev, cpu, pid, pid, &r, 1000);
}

static struct agg *snapshot(void)
{
	static const int cpus[] = { 0, 1, 2, 3 };
	struct agg *a = agg_new(2, cpus, 4);

	strlcpy(agg_event(a, 0)->name, "cpu-clock", sizeof(agg_event(a, 0)->name));
	strlcpy(agg_event(a, 1)->name, "page-faults", sizeof(agg_event(a, 1)->name));
	agg_event(a, 0)->running_pct = 100;
	agg_event(a, 1)->running_pct = 62; /* multiplexed */
	feed(a, 0, 0, 4242, "hot_a", "/usr/lib/perftop/workload", 1, false, 600);
	feed(a, 0, 1, 4242, "hot_b", "/usr/lib/perftop/workload", 2, false, 300);
	feed(a, 0, 1, 4242, "hot_c", "/usr/lib/perftop/workload", 3, false, 100);
	feed(a, 0, 2, 0, "pvm_safe_halt_hc", "[kernel.kallsyms]", 4, true, 250);
	feed(a, 0, 3, 777, "evil\x1b[2J\x9b" "31m", "/tmp/x\x1b]0;t\x07.so", 5, false, 40);
	feed(a, 0, 3, 12, "ünïcödé_€", "/usr/lib/libç.so", 6, false, 10);
	feed(a, 1, 0, 4242, "hot_a", "/usr/lib/perftop/workload", 1, false, 30);
	feed(a, 1, 3, 12, "ünïcödé_€", "/usr/lib/libç.so", 6, false, 5);
	agg_lost(a, 0, 2, 7);
	agg_throttle(a, 0, 1);
	agg_task_exit(a, 12);
	return a;
}

/* Focus mode: sampled cycles and instructions for two threads of one
 * process (so the tasks view has estimated IPC), exact counters set below. */
static struct agg *focus_snapshot(void)
{
	static const int cpus[] = { 0, 1 };
	struct agg *a = agg_new(2, cpus, 2);
	struct sym_result r = { .sym = "hot_a", .dso = "/usr/lib/perftop/workload", .key = 1,
				.comm = comm_of(4242) };

	strlcpy(agg_event(a, 0)->name, "cycles", sizeof(agg_event(a, 0)->name));
	strlcpy(agg_event(a, 1)->name, "instructions", sizeof(agg_event(a, 1)->name));
	for (int i = 0; i < 100; i++) {
		agg_sample(a, 0, 0, 4242, 4242, &r, 20000);
		agg_sample(a, 1, 0, 4242, 4242, &r, 30000);
		agg_sample(a, 0, 1, 4242, 4243, &r, 10000);
		agg_sample(a, 1, 1, 4242, 4243, &r, 5000);
	}
	return a;
}

static struct counter_value cv(enum counter_state st, uint64_t value, uint64_t total, uint64_t run)
{
	return (struct counter_value){ .value = value, .total = total, .raw = total, .enabled_ns = 1000,
				       .running_ns = run, .state = st };
}

/* What counters_take would copy from a live counters object. */
static void focus_counters(struct ui *u)
{
	static const char *const names[] = { "task-clock", "page-faults", "cycles", "instructions",
					     "cache-references", "cache-misses" };
	static struct counter_row procs[1], threads[1];

	u->fr.ncnt = 6;
	for (size_t i = 0; i < 6; i++)
		strlcpy(u->fr.cnt_name[i], names[i], sizeof(u->fr.cnt_name[i]));
	procs[0] = (struct counter_row){ .pid = 4242, .v = {
		cv(COUNTER_OK, 1000000000, 5000000000, 1000), cv(COUNTER_NOT_RUN, 0, 0, 0),
		cv(COUNTER_SCALED, 2000000000, 8000000000, 450), cv(COUNTER_SCALED, 2460000000, 9000000000, 450),
		cv(COUNTER_UNSUPPORTED, 0, 0, 0), cv(COUNTER_UNSUPPORTED, 0, 0, 0) } };
	/* Thread 4242 has no counter row here: its ratios stay sampled. */
	threads[0] = (struct counter_row){ .pid = 4242, .tid = 4243, .v = {
		cv(COUNTER_OK, 500000000, 700000000, 1000), cv(COUNTER_OK, 12, 40, 1000),
		cv(COUNTER_OK, 1000, 4000, 1000), cv(COUNTER_OK, 500, 2000, 1000),
		cv(COUNTER_UNSUPPORTED, 0, 0, 0), cv(COUNTER_UNSUPPORTED, 0, 0, 0) } };
	u->fr.cprocs = procs;
	u->fr.cthreads = threads;
	u->fr.ncprocs = 1;
	u->fr.ncthreads = 1;
}

/* Line-drawing characters (A_ALTCHARSET) as ASCII, so the file reads well. */
static wchar_t plain(const cchar_t *c)
{
	wchar_t wc[CCHARW_MAX + 1];
	attr_t attr;
	short pair;

	if (getcchar(c, wc, &attr, &pair, NULL) == ERR)
		return L'?';
	if (attr & A_ALTCHARSET)
		return wc[0] == L'q' ? L'-' : wc[0] == L'x' ? L'|' : L'+';
	return wc[0];
}

/* The screen as UTF-8 lines, trailing blanks cut. */
static void dump_screen(FILE *out, const char *name)
{
	fprintf(out, "--- %s (%dx%d)\n", name, COLS, LINES);
	for (int y = 0; y < LINES; y++) {
		char line[4096];
		size_t n = 0;

		for (int x = 0; x < COLS && n + MB_LEN_MAX < sizeof(line); x++) {
			cchar_t c;
			wchar_t wc;
			int k;

			if (mvin_wch(y, x, &c) == ERR)
				break;
			wc = plain(&c);
			if (wc == L'\0')
				continue; /* the second cell of a wide character */
			k = wctomb(line + n, wc);
			n += k > 0 ? (size_t)k : 0;
		}
		line[n] = '\0';
		while (n && line[n - 1] == ' ')
			line[--n] = '\0';
		fprintf(out, "%s\n", line);
	}
}

/* Every cell as ncurses believes the terminal shows it (curscr) is the
 * window's: rows left out of an update were really as shown. */
static bool terminal_is_window(void)
{
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++) {
			cchar_t a, b;

			if (mvwin_wch(stdscr, y, x, &a) == ERR || mvwin_wch(curscr, y, x, &b) == ERR ||
			    memcmp(&a, &b, sizeof(a)) != 0)
				return false;
		}
	return true;
}

/* A frame drawn as the last one hands no row to ncurses; a selection moved
 * by one hands only the rows that changed, and the terminal still gets
 * every change. */
static void rows_left_out(struct ui *u)
{
	size_t sel = u->sel[u->view], top = u->top[u->view];
	uint64_t key = u->sel_key[u->view];
	bool valid = u->sel_valid[u->view];

	resizeterm(30, 100);
	screen_draw(u, UI_DRAW);
	ok(paint_rows_sent() == 30 && terminal_is_window(), "a new size: every row sent");
	screen_draw(u, UI_DRAW);
	ok(paint_rows_sent() == 0 && terminal_is_window(), "the same frame again: no row sent");
	keys_dispatch(u, KEY_DOWN);
	screen_draw(u, UI_DRAW);
	printf("# one row down: %d rows sent\n", paint_rows_sent());
	ok(paint_rows_sent() >= 2 && paint_rows_sent() <= 4 && terminal_is_window(),
	   "the selection one row down: its two rows and the position sent, the terminal as drawn");
	screen_draw(u, UI_CLEAR);
	ok(paint_rows_sent() == 30 && terminal_is_window(), "a repaint (^L): every row sent");
	/* as it was, for the frames below */
	u->sel[u->view] = sel;
	u->top[u->view] = top;
	u->sel_key[u->view] = key;
	u->sel_valid[u->view] = valid;
}

/* The sort takes each row's value once: the order is still the column's,
 * biggest first (smallest with the sort inverted), ties by the row's key. */
static void sort_order(struct ui *u)
{
	for (int inv = 0; inv < 2; inv++) {
		bool in_order = true;
		size_t e = ui_primary(u);

		u->sort_col[VIEW_SYMBOLS] = 0; /* Overhead: the primary event's share */
		u->sort_inv[VIEW_SYMBOLS] = inv;
		views_build(u);
		for (size_t i = 1; i < u->nrows; i++) {
			uint64_t a = columns_counts_of(u, u->rows[i - 1])->samples[e], b = columns_counts_of(u, u->rows[i])->samples[e];
			uint64_t ka = views_row_key(u, u->rows[i - 1]), kb = views_row_key(u, u->rows[i]);

			if (inv ? a > b : a < b)
				in_order = false;
			if (a == b && ka >= kb)
				in_order = false;
		}
		ok(u->nrows > 3 && in_order, inv ? "symbols by overhead inverted: smallest first" :
						  "symbols by overhead: biggest first");
	}
	u->sort_inv[VIEW_SYMBOLS] = false;
	views_build(u);
}

/* Keys as typed, one character each. */
static void type(struct ui *u, const char *s)
{
	while (*s)
		keys_dispatch(u, (unsigned char)*s++);
}

static void frame(FILE *out, struct ui *u, const char *name, int h, int w)
{
	resizeterm(h, w);
	screen_draw(u, UI_DRAW);
	dump_screen(out, name);
}

/* What /proc would say: fixed, so the screen is too. */
static void fake_proc(struct ui *u)
{
	static const double busy[] = { 97.5, 42.0, 3.1, 0.0 };

	u->fr.sys = (struct procstat_sys){ .load = { 1.25, 0.5, 0.08 }, .running = 3, .tasks = 412, .procs = 187,
					   .mem_total = 4ull << 30, .mem_used = 1300ull << 20 };
	u->fr.sys_ok = true;
	for (size_t i = 0; i < u->fr.ncpus && i < 4; i++)
		u->fr.cpu_busy[i] = busy[i];
}

/* -g: Children and Self, the inline tree of hot (callers, a level deeper,
 * callees) and F5's whole tree, on stacks of a known tree. */
static void callgraph_frames(FILE *out, struct session *s)
{
	static const int cpus[] = { 0 };
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true, .children = true,
			     .cg = { .mode = CALLGRAPH_FP } };
	struct agg *ga = agg_new(1, cpus, 1);
	struct sym_result hot = { .sym = "hot", .dso = "/usr/bin/w", .key = 1 },
			  fa = { .sym = "caller_\x1b[2Ja", .dso = "/usr/bin/w", .key = 2 },
			  fb = { .sym = "caller_b", .dso = "/usr/bin/w", .key = 3 },
			  mf = { .sym = "main", .dso = "/usr/bin/w", .key = 4 },
			  ks = { .sym = "clear_page", .dso = "[kernel.kallsyms]", .key = 5, .kernel = true };
	struct sym_result s1[] = { hot, fa, mf }, s2[] = { hot, fb, mf }, s3[] = { ks, hot, fb, mf };
	struct ui u;
	const char *comm = "w\x1b]2;PWNED\x07";

	for (size_t i = 0; i < 3; i++)
		s1[i].comm = s2[i].comm = comm;
	for (size_t i = 0; i < 4; i++)
		s3[i].comm = comm;
	for (int i = 0; i < 60; i++)
		agg_sample_stack(ga, 0, 0, 7, 7, s1, 3, 1000);
	for (int i = 0; i < 30; i++)
		agg_sample_stack(ga, 0, 0, 7, 7, s2, 3, 1000);
	for (int i = 0; i < 10; i++)
		agg_sample_stack(ga, 0, 0, 7, 7, s3, 4, 1000);
	strlcpy(agg_event(ga, 0)->name, "cpu-clock", sizeof(agg_event(ga, 0)->name));
	agg_event(ga, 0)->running_pct = 100;
	s->agg = ga;
	strlcpy(s->target, "PID 7", sizeof(s->target));
	ui_init(&u, s, &o);
	strlcpy(u.host, "testhost", sizeof(u.host));
	strlcpy(u.kernel, "6.1.0-test", sizeof(u.kernel));
	u.fixed_time = 1700000000;
	frame_take(&u, ga, 1.0);
	fake_proc(&u);
	frame(out, &u, "-g: Children and Self, sorted by Children", 24, 100);
	keys_dispatch(&u, KEY_F(3));
	type(&u, "hot\r");
	keys_dispatch(&u, KEY_RIGHT);
	u.msg[0] = '\0';
	frame(out, &u, "-g: Right on hot: its callers under it", 24, 100);
	keys_dispatch(&u, KEY_DOWN);
	keys_dispatch(&u, KEY_DOWN);
	keys_dispatch(&u, KEY_RIGHT);
	frame(out, &u, "-g: Down, Down, Right: caller_a's caller too", 24, 100);
	keys_dispatch(&u, 'r');
	u.msg[0] = '\0';
	frame(out, &u, "-g: r: the callees of hot", 24, 100);
	keys_dispatch(&u, KEY_LEFT);
	keys_dispatch(&u, '>');
	frame(out, &u, "-g: Left closed it; sorted by Self", 24, 100);
	keys_dispatch(&u, KEY_F(5));
	frame(out, &u, "-g: F5, the whole call-path tree", 24, 100);
	keys_dispatch(&u, 27);
	ui_free(&u);
	{
		char name[32];

		o.children = false; /* --no-children: by Self */
		ui_init(&u, s, &o);
		frame_take(&u, ga, 1.0);
		views_col_name(&u, u.sort_col[VIEW_SYMBOLS], name, sizeof(name));
		ok(strcmp(name, "Self") == 0, "-g --no-children: sorted by Self");
		ui_free(&u);
	}
	s->agg = NULL;
	agg_free(ga);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;

	*len = 0;
	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);

		rewind(f);
		buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (buf) {
			*len = fread(buf, 1, (size_t)n, f);
			buf[*len] = '\0';
		}
	}
	fclose(f);
	return buf;
}

static void contains(const char *text, const char *needle, const char *what)
{
	ok(strstr(text, needle) != NULL, what);
}

/* A cell's attributes and colour pair. */
static void cell_at(int y, int x, attr_t *attr, short *pair)
{
	cchar_t c;
	wchar_t wc[CCHARW_MAX + 1];

	*attr = 0;
	*pair = 0;
	if (mvin_wch(y, x, &c) != ERR)
		getcchar(&c, wc, attr, pair, NULL);
}

/* Padding blanks carry what shows on a blank only (background, reverse,
 * underline): a foreground colour on them made ncurses write each blank
 * in that colour instead of one clear-to-end of line. */
static void pad_colours(struct ui *u)
{
	struct options oc = *u->o, om = *u->o;
	const struct options *keep = u->o;
	attr_t at;
	short pair;

	oc.no_color = false;
	u->o = &oc;
	paint_init(u);
	ok(u->color, "colour: the xterm entry has colours");
	erase();
	paint_text(0, 0, 30, R_KERNEL, "clear_page_erms", false);
	paint_text(1, 0, 30, R_SELECTED, "hot_a", false);
	paint_text(2, 0, 30, R_KERNEL, "k\xc3\xbc", false); /* the wide-character path */
	paint_text(3, 0, 30, R_KERNEL, "right", true);
	cell_at(0, 0, &at, &pair);
	ok(pair != 0, "colour: a kernel name in its colour");
	cell_at(0, 20, &at, &pair);
	ok(pair == 0 && (at & A_ATTRIBUTES & ~A_COLOR) == 0, "colour: a kernel name's padding plain");
	cell_at(2, 20, &at, &pair);
	ok(pair == 0, "colour: padding plain on the wide-character path");
	cell_at(2, 0, &at, &pair);
	ok(pair != 0, "colour: the text in its colour on the wide-character path");
	cell_at(3, 0, &at, &pair);
	ok(pair == 0, "colour: padding before right-aligned text plain");
	cell_at(3, 29, &at, &pair);
	ok(pair != 0, "colour: right-aligned text in its colour");
	cell_at(1, 20, &at, &pair);
	ok(pair != 0, "colour: a selected row's padding keeps its background");
	om.no_color = true;
	u->o = &om;
	paint_init(u);
	erase();
	paint_text(1, 0, 30, R_SELECTED, "hot_a", false);
	cell_at(1, 20, &at, &pair);
	ok(at & A_REVERSE, "mono: a selected row's padding keeps its reverse");
	u->o = keep;
	paint_init(u);
	erase();
}

/* In colour, a kernel row's "[k] name" is one run of its colour: the gap
 * between the two columns too (a plain one cost two attribute changes). */
static void gap_colour(struct session *s)
{
	struct options oc = { .interval = 1.0, .freq = 4000 };
	char line[256];
	struct ui u;
	int found = -1, x = -1;

	ui_init(&u, s, &oc);
	frame_take(&u, s->agg, 1.0);
	fake_proc(&u);
	paint_init(&u);
	resizeterm(30, 100);
	screen_draw(&u, UI_DRAW);
	for (int y = 0; y < 30 && found < 0; y++) {
		char *k;

		if (mvinnstr(y, 0, line, (int)sizeof(line) - 1) != ERR && strstr(line, "pvm_safe_halt_hc") &&
		    (k = strstr(line, "[k]")) != NULL) {
			found = y;
			x = (int)(k - line);
		}
	}
	ok(found >= 0, "colour: the kernel row drawn");
	if (found >= 0) {
		attr_t at;
		short pk, pgap, pname;

		cell_at(found, x, &at, &pk);
		cell_at(found, x + 3, &at, &pgap);
		cell_at(found, x + 4, &at, &pname);
		printf("# pairs: [k] %d, gap %d, name %d\n", pk, pgap, pname);
		ok(pk != 0 && pgap == pk && pname == pk, "colour: \"[k] name\" one run of one colour");
	}
	ui_free(&u);
}

int main(int argc, char **argv)
{
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true };
	struct session s;
	struct agg *a, *fa;
	struct ui u;
	FILE *in, *dev, *out;
	SCREEN *scr;
	char *got, *want;
	size_t got_len, want_len;

	if (argc < 2) {
		fprintf(stderr, "usage: %s EXPECTED\n", argv[0]);
		return 2;
	}
	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		setlocale(LC_ALL, "");
	memset(&s, 0, sizeof(s));
	a = snapshot();
	s.agg = a;
	session_set_interval(&s, o.interval); /* as session_open would */
	strlcpy(s.target, "system-wide (4 CPUs)", sizeof(s.target));
	s.notices[s.nnotices++] = "cycles not supported here (ENOENT: no hardware PMU): sampling cpu-clock instead";
	ui_init(&u, &s, &o);
	strlcpy(u.host, "testhost", sizeof(u.host));
	strlcpy(u.kernel, "6.1.0-test", sizeof(u.kernel));
	u.fixed_time = 1700000000;
	frame_take(&u, a, 1.0);
	fake_proc(&u);
	u.fr.excl[1] = EXCL_KERNEL; /* as the engine would say of page-faults:u */

	in = fopen("/dev/null", "re");
	dev = fopen("/dev/null", "we");
	out = tmpfile();
	scr = in && dev && out ? newterm("xterm", dev, in) : NULL;
	ok(scr != NULL, "a curses screen on /dev/null");
	if (scr == NULL)
		return 1;
	paint_init(&u);
	sort_order(&u);
	rows_left_out(&u);
	frame(out, &u, "symbols", 30, 100);
	frame(out, &u, "symbols, 80x24", 24, 80);
	frame(out, &u, "symbols, 60x12", 12, 60);
	keys_dispatch(&u, KEY_DOWN);
	keys_dispatch(&u, KEY_DOWN);
	keys_dispatch(&u, KEY_RIGHT);
	frame(out, &u, "third row selected, names scrolled (Right): its path below", 24, 80);
	keys_dispatch(&u, KEY_LEFT);
	keys_dispatch(&u, KEY_HOME);
	keys_dispatch(&u, '\t');
	frame(out, &u, "tasks", 30, 100);
	frame(out, &u, "tasks, 80x24", 24, 80);
	keys_dispatch(&u, '\t');
	frame(out, &u, "cpus", 30, 100);
	frame(out, &u, "cpus, 80x24", 24, 80);
	keys_dispatch(&u, KEY_F(6));
	keys_dispatch(&u, KEY_DOWN);
	frame(out, &u, "F6 sort menu, Down", 24, 80);
	keys_dispatch(&u, 27);
	keys_dispatch(&u, '\t');
	type(&u, "/zq\r");
	frame(out, &u, "a filter nothing matches", 24, 80);
	keys_dispatch(&u, 27);
	keys_dispatch(&u, KEY_F(3));
	type(&u, "hot_c");
	frame(out, &u, "F3 search hot_c: selected, nothing hidden", 24, 80);
	keys_dispatch(&u, '\r');
	keys_dispatch(&u, KEY_HOME);
	u.search[0] = '\0';
	u.msg[0] = '\0';
	keys_dispatch(&u, 'e');
	keys_dispatch(&u, KEY_DOWN);
	frame(out, &u, "event panel", 30, 100);
	keys_dispatch(&u, 27);
	keys_dispatch(&u, 'x');
	frame(out, &u, "exclude panel", 30, 100);
	keys_dispatch(&u, 'x');
	keys_dispatch(&u, 'c');
	keys_dispatch(&u, '>');
	keys_dispatch(&u, 'I');
	frame(out, &u, "cumulative, sorted by samples, inverted", 24, 80);
	keys_dispatch(&u, 'I');
	keys_dispatch(&u, '<');
	type(&u, "/hot");
	frame(out, &u, "typing a filter", 12, 60);
	keys_dispatch(&u, '\r');
	keys_dispatch(&u, 'Z'); /* Z pauses (Space tags, as htop) */
	frame(out, &u, "filtered, paused", 12, 60);
	frame(out, &u, "too small", 11, 59);
	keys_dispatch(&u, 'h');
	frame(out, &u, "help", 40, 120);

	/* Focus mode on PID 4242: counters section, ratio columns, H. */
	keys_dispatch(&u, 27);
	frame_clear(&u);
	fa = focus_snapshot();
	s.agg = fa;
	strlcpy(s.target, "PID 4242", sizeof(s.target));
	s.nnotices = 0;
	u.focus = 4242;
	memset(u.filter, 0, sizeof(u.filter));
	u.paused = u.cumulative = false;
	u.view = VIEW_TASKS;
	frame_take(&u, fa, 1.0);
	fake_proc(&u);
	focus_counters(&u);
	frame(out, &u, "focus: counters and ratios", 30, 100);
	keys_dispatch(&u, 'H');
	frame(out, &u, "focus: thread rows (H)", 30, 100);
	keys_dispatch(&u, KEY_DOWN);
	frame(out, &u, "focus: a thread's counters, 80x24", 24, 80);
	u.ended = true;
	u.ended_pid = 4242;
	keys_dispatch(&u, 'H');
	u.msg[0] = '\0';
	frame(out, &u, "focus: the process exited", 24, 80);
	callgraph_frames(out, &s);
	pad_colours(&u);
	s.agg = a;
	gap_colour(&s);
	s.agg = fa;
	endwin();
	delscreen(scr);
	fclose(dev);
	fclose(in);

	fflush(out);
	rewind(out);
	got = malloc(1 << 20);
	got_len = got ? fread(got, 1, (1 << 20) - 1, out) : 0;
	if (got)
		got[got_len] = '\0';
	fclose(out);
	if (getenv("PERFTOP_UPDATE_EXPECTED")) {
		FILE *f = fopen(argv[1], "we");

		ok(f && fwrite(got, 1, got_len, f) == got_len && fclose(f) == 0, "expected file rewritten");
	} else {
		want = slurp(argv[1], &want_len);
		ok(want != NULL, "expected file read");
		ok(want && got && want_len == got_len && memcmp(want, got, got_len) == 0,
		   "every frame as expected (PERFTOP_UPDATE_EXPECTED=1 rewrites it; diff it then)");
		if (want && got && (want_len != got_len || memcmp(want, got, got_len))) {
			/* The first line that differs, for the log. */
			const char *p = got, *q = want;
			int line = 1;

			while (*p && *p == *q) {
				if (*p == '\n')
					line++;
				p++, q++;
			}
			printf("# first difference at line %d\n# got:  %.*s\n# want: %.*s\n", line,
			       (int)strcspn(p, "\n"), p, (int)strcspn(q, "\n"), q);
		}
		free(want);
	}
	/* What must hold whatever the layout. */
	contains(got, "hot_a", "the workload's symbol is drawn");
	contains(got, "\\033[2J", "ESC in a symbol drawn as \\033");
	contains(got, "\\23331m", "C1 CSI (a lone 0x9b) in a symbol drawn escaped");
	contains(got, "\\033]2;PWNED\\a", "ESC and BEL in a comm drawn escaped");
	ok(strchr(got, '\x1b') == NULL && strchr(got, '\x07') == NULL, "no raw control byte on the screen");
	contains(got, "ünïcödé_€", "valid UTF-8 kept");
	contains(got, "Exclude: none", "the header's exclude flags");
	contains(got, "terminal too small", "below 60x12: the notice only");
	contains(got, "PAUSED", "paused says so");
	contains(got, "Esc Backspace", "help lists the keys");
	contains(got, "Counters PID 4242", "focus mode: the counters section");
	contains(got, "(scaled 45%)", "a multiplexed counter says how long it ran");
	contains(got, "n/a", "an unsupported counter is n/a");
	contains(got, "IPC ~1.23", "ratios from scaled counters are marked");
	contains(got, "IPC 0.50", "exact ratios from the counters' interval values");
	contains(got, "~1.50", "sampled ratios are marked as estimates");
	contains(got, "Counters TID 4243", "a thread row selected: its counters");
	contains(got, "PID 4242 exited", "the focused process exited: said and kept");
	contains(got, " Children     Self", "-g: Children and Self columns");
	contains(got, "callers of hot", "-g: Right opens hot's callers");
	contains(got, "callees of hot", "-g: r shows its callees");
	contains(got, "Call paths (F5)", "-g: F5 shows the call-path tree");
	contains(got, "caller_\\033[2Ja", "-g: a hostile name in a tree line drawn escaped");
	free(got);
	u.fr.cprocs = u.fr.cthreads = NULL; /* static: not the frame's to free */
	ui_free(&u);
	agg_free(a);
	agg_free(fa);
	printf("1..%d\n", n_tests);
	return n_failed ? 1 : 0;
}
