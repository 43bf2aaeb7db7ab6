/* SPDX-License-Identifier: GPL-2.0-or-later */
/* header: host and clock, the target and rate, one line per event, a
 * per-CPU sample-rate meter; the message line and the function bar. */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "evspec.h"
#include "sanitize.h"
#include "ui.h"

#define METER_MIN_W 16
#define KEY_ESC_CODE 27
#define TABLE_MIN_H 4     /* tabs, titles, two rows */

static int meter_cols(const struct ui *u, int w)
{
	int c = w >= 100 ? 2 : 1;

	return u->fr.ncpus && (size_t)c > u->fr.ncpus ? (int)u->fr.ncpus : c;
}

static int meter_lines_wanted(const struct ui *u, int w)
{
	int c = meter_cols(u, w);

	return u->fr.ncpus ? (int)((u->fr.ncpus + (size_t)c - 1) / (size_t)c) : 0;
}

struct header_layout {
	int ev_lines, meter_lines, sys_lines;
};

static struct header_layout header_layout(const struct ui *u, int h, int w)
{
	struct header_layout l = { 0, 0, 0 };
	int avail = h - 2 - TABLE_MIN_H - 2; /* two title lines; message and footer */
	int cap = h / 6 > 1 ? h / 6 : 1;
	int nev = u->meters & METER_EVENTS ? (int)u->fr.nev : 0; /* the setup's meters */

	if (avail < 0)
		avail = 0;
	/* Tasks, load and memory, as htop's header: after the events. */
	l.sys_lines = u->meters & METER_SYSTEM && avail > nev + 1 ? 1 : 0;
	avail -= l.sys_lines;
	l.ev_lines = nev < avail ? nev : avail;
	avail -= l.ev_lines;
	l.meter_lines = u->meters & METER_CPUS ? meter_lines_wanted(u, w) : 0;
	if (l.meter_lines > cap)
		l.meter_lines = cap;
	if (l.meter_lines > avail)
		l.meter_lines = avail;
	return l;
}

int header_height(const struct ui *u, int h, int w)
{
	struct header_layout l = header_layout(u, h, w);

	return 2 + l.ev_lines + l.sys_lines + l.meter_lines;
}

static void clock_text(const struct ui *u, char *buf, size_t len)
{
	time_t now = u->fixed_time ? u->fixed_time : time(NULL);
	long up = 3600;
	struct tm tm;
	struct sysinfo si;
	char hms[16];

	if (u->fixed_time)
		gmtime_r(&now, &tm);
	else
		localtime_r(&now, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (!u->fixed_time && sysinfo(&si) == 0)
		up = si.uptime;
	if (up >= 86400)
		snprintf(buf, len, "%s up %ldd %02ld:%02ld", hms, up / 86400, up % 86400 / 3600, up % 3600 / 60);
	else
		snprintf(buf, len, "%s up %02ld:%02ld", hms, up / 3600, up % 3600 / 60);
}

/* The exclude flags every event has: what U, K and x set. */
static unsigned common_exclude(const struct ui *u)
{
	unsigned bits = EXCL_ALL;

	for (size_t i = 0; i < u->fr.nev; i++)
		bits &= u->fr.excl[i];
	return u->fr.nev ? bits : 0;
}

/* A header field; a line drops whole fields that do not fit, never cuts one. */
struct field {
	const char *label, *value;
	enum ui_role role;
};

static void fields_draw(int y, int x, int w, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int lw = (int)strlen(f[i].label), vw = (int)strlen(f[i].value);

		if (f[i].value[0] == '\0' || x + lw + vw > w)
			continue;
		paint_text(y, x, lw, R_LABEL, f[i].label, false);
		paint_text(y, x + lw, vw, f[i].role, f[i].value, false);
		x += lw + vw + 2;
	}
}

static void draw_title(struct ui *u, int w)
{
	char host[64], left[256], clk[64];
	int cw, lw;

	sanitize(host, sizeof(host), u->host);
	snprintf(left, sizeof(left), "perftop %s on %s (Linux %s)", PERFTOP_VERSION, host, u->kernel);
	clock_text(u, clk, sizeof(clk));
	paint_fill(0, 0, w, R_NORMAL);
	/* Narrow: the kernel goes first, then the uptime; the clock never
	 * covers the name. */
	if ((int)(strlen(left) + 1 + strlen(clk)) > w)
		snprintf(left, sizeof(left), "perftop %s on %s", PERFTOP_VERSION, host);
	if ((int)(strlen(left) + 1 + strlen(clk)) > w)
		clk[8] = '\0'; /* HH:MM:SS */
	cw = (int)strlen(clk);
	lw = (int)strlen(left);
	if (lw + 1 + cw > w)
		cw = 0;
	paint_text(0, 0, lw < w - cw ? lw : w - cw, R_VALUE, left, false);
	if (cw)
		paint_text(0, w - cw, cw, R_NORMAL, clk, false);
}

static void draw_target(struct ui *u, int w)
{
	char tgt[300], iv[32], rate[48], excl[64], rec[160] = "";
	unsigned bits = common_exclude(u);
	const char *rec_path;
	uint64_t rec_bytes;
	bool rec_stopped;
	int x = 0;

	sanitize(tgt, sizeof(tgt), u->s->target);
	snprintf(iv, sizeof(iv), "%gs", session_interval(u->s));
	if (u->period)
		snprintf(rate, sizeof(rate), "every %llu events", (unsigned long long)u->period);
	else
		snprintf(rate, sizeof(rate), "%llu Hz", (unsigned long long)u->freq);
	session_exclude_format(bits, excl, sizeof(excl));
	/* --record: where it goes and how big it is (stopped: in the notices). */
	session_rec_stats(u->s, &rec_path, &rec_bytes, &rec_stopped);
	if (rec_path) {
		char name[128];

		sanitize(name, sizeof(name), rec_path);
		snprintf(rec, sizeof(rec), "%s %.1fM%s", name, (double)rec_bytes / 1e6, rec_stopped ? " stopped" : "");
	}
	paint_fill(1, 0, w, R_NORMAL);
	if (u->paused) {
		paint_text(1, 0, 8, R_WARN, " PAUSED ", false);
		x = 9;
	}
	/* The target always shows (cut if it must); the others whole or not. */
	if (x + 8 + (int)strlen(tgt) > w && w - x - 8 > 4)
		strlcpy(tgt + (w - x - 8 - 1), "~", 2);
	struct field f[] = {
		{ "Target: ", tgt, R_VALUE },
		{ "Exclude: ", excl[0] ? excl : "none", excl[0] ? R_WARN : R_VALUE },
		{ "Rate: ", rate, R_VALUE },
		{ "Delay: ", iv, R_VALUE },
		{ "Rec: ", rec, rec_stopped ? R_WARN : R_VALUE },
	};
	fields_draw(1, x, w, f, sizeof(f) / sizeof(f[0]));
}

/* Tasks, load average and memory, as htop's header has them. */
static void draw_sys(struct ui *u, int y, int w)
{
	char tasks[48] = "", load[48] = "", mem[48] = "", used[16], total[16];
	const struct procstat_sys *p = &u->fr.sys;

	paint_fill(y, 0, w, R_NORMAL);
	if (u->fr.sys_ok) {
		snprintf(tasks, sizeof(tasks), "%u, %u thr; %u running", p->procs, p->tasks, p->running);
		snprintf(load, sizeof(load), "%.2f %.2f %.2f", p->load[0], p->load[1], p->load[2]);
		paint_fmt_bytes(used, sizeof(used), p->mem_used);
		paint_fmt_bytes(total, sizeof(total), p->mem_total);
		snprintf(mem, sizeof(mem), "%s/%s", used, total);
	}
	struct field f[] = {
		{ "Tasks: ", tasks, R_VALUE },
		{ "Load average: ", load, R_VALUE },
		{ "Mem: ", mem, R_VALUE },
	};
	fields_draw(y, 0, w, f, sizeof(f) / sizeof(f[0]));
}

static void draw_event(struct ui *u, int y, int w, size_t i)
{
	const struct agg_event *e = &u->fr.ev[i];
	char excl[64], rate[16], lost[16], thr[16], mux[16], line[256];
	bool cum = u->cumulative;

	session_exclude_format(u->fr.excl[i], excl, sizeof(excl));
	paint_fmt_count(rate, sizeof(rate), u->fr.ev_rate[i]);
	paint_fmt_count(lost, sizeof(lost), (double)(cum ? e->lost_total : e->lost_iv));
	paint_fmt_count(thr, sizeof(thr), (double)(cum ? e->throttled_total : e->throttled_iv));
	paint_fill(y, 0, w, R_NORMAL);
	paint_foreign(y, 0, 18, R_VALUE, e->name);
	paint_text(y, 19, 3, u->fr.on[i] ? R_METER : R_OFF, u->fr.on[i] ? "on" : "OFF", false);
	/* Time on the PMU: below 100 % the kernel is multiplexing this event
	 * with others, and its counts are a sample of the interval. */
	if (e->running_pct < 0)
		strlcpy(mux, "-", sizeof(mux));
	else
		snprintf(mux, sizeof(mux), "%d%%", e->running_pct);
	snprintf(line, sizeof(line), "%7s/s", rate);
	char lost_v[24], thr_v[24];

	snprintf(lost_v, sizeof(lost_v), "%s", lost);
	snprintf(thr_v, sizeof(thr_v), "%s", thr);
	struct field f[] = {
		{ "", line, R_NORMAL },
		{ "excl: ", excl[0] ? excl : "-", R_NORMAL },
		{ "lost ", lost_v, R_NORMAL },
		{ "mux ", mux, R_NORMAL },
		{ "throttled ", thr_v, R_NORMAL },
	};
	fields_draw(y, 23, w, f, sizeof(f) / sizeof(f[0]));
}

static double meter_scale(const struct ui *u)
{
	double full = 0;

	if (u->period) {
		for (size_t i = 0; i < u->fr.ncpus; i++)
			full = u->fr.cpu_rate[i] > full ? u->fr.cpu_rate[i] : full;
		return full > 0 ? full : 1;
	}
	for (size_t i = 0; i < u->fr.nev; i++)
		if (u->fr.on[i])
			full += (double)u->freq;
	return full > 0 ? full : 1;
}

/* htop's bars: "  0[||||||   42.1% 3.9k/s]": the bar is how busy the CPU
 * was (/proc/stat); the samples/s beside it. Without /proc/stat the bar
 * falls back to samples/s against the rate asked for. */
static void draw_meter(int y, int x, int w, int cpu, double busy, double rate, double full)
{
	char lbl[16], txt[32], r[16], bar[256];
	int inner, fill, tl;
	double frac = busy >= 0 ? busy / 100.0 : rate / full;

	snprintf(lbl, sizeof(lbl), "%3d", cpu);
	paint_text(y, x, 3, R_LABEL, lbl, true);
	inner = w - 6;
	if (inner < 1 || inner >= (int)sizeof(bar))
		return;
	paint_fmt_count(r, sizeof(r), rate);
	if (busy >= 0 && inner >= 16)
		snprintf(txt, sizeof(txt), "%.1f%% %s/s", busy, r);
	else if (busy >= 0)
		snprintf(txt, sizeof(txt), "%.1f%%", busy);
	else
		snprintf(txt, sizeof(txt), "%s/s", r);
	fill = (int)(frac * inner + 0.5);
	fill = fill > inner ? inner : fill < 0 ? 0 : fill;
	memset(bar, '|', (size_t)fill);
	bar[fill] = '\0';
	paint_text(y, x + 3, 1, R_VALUE, "[", false);
	paint_text(y, x + 4, inner, R_METER, bar, false);
	tl = (int)strlen(txt);
	if (tl < inner)
		paint_text(y, x + 4 + inner - tl, tl, fill >= inner - tl ? R_METER : R_DIM, txt, false);
	paint_text(y, x + 4 + inner, 1, R_VALUE, "]", false);
}

/* With too many CPUs for bars: one character a CPU, ' ' idle to '@' full. */
static void draw_strip(struct ui *u, int y, int lines, int w, double full)
{
	static const char levels[] = " .:-=+*#%@";
	size_t per = (size_t)(w - 8), i = 0;

	for (int l = 0; l < lines && i < u->fr.ncpus; l++) {
		char buf[512], lbl[16];
		size_t k = 0;

		snprintf(lbl, sizeof(lbl), "%4d-", u->fr.cpus[i].cpu);
		paint_text(y + l, 0, 5, R_LABEL, lbl, true);
		for (; k < per && k < sizeof(buf) - 1 && i < u->fr.ncpus; k++, i++) {
			double fr = u->fr.cpu_busy[i] >= 0 ? u->fr.cpu_busy[i] / 100 : u->fr.cpu_rate[i] / full;
			int lv = (int)(fr * 9 + 0.5);

			buf[k] = levels[lv > 9 ? 9 : lv < 0 ? 0 : lv];
		}
		buf[k] = '\0';
		paint_text(y + l, 5, 1, R_VALUE, "[", false);
		paint_text(y + l, 6, (int)k, R_METER, buf, false);
		paint_text(y + l, 6 + (int)k, 1, R_VALUE, "]", false);
	}
}

static void draw_meters(struct ui *u, int y, int lines, int w)
{
	int cols = meter_cols(u, w), colw;
	double full = meter_scale(u);

	if (lines <= 0 || u->fr.ncpus == 0)
		return;
	if ((size_t)lines * (size_t)cols < u->fr.ncpus)
		cols = (int)((u->fr.ncpus + (size_t)lines - 1) / (size_t)lines);
	colw = w / cols;
	if (colw < METER_MIN_W) {
		draw_strip(u, y, lines, w, full);
		return;
	}
	for (size_t i = 0; i < u->fr.ncpus; i++) {
		int l = (int)(i / (size_t)cols), c = (int)(i % (size_t)cols);

		if (l >= lines)
			break;
		draw_meter(y + l, c * colw, colw - 1, u->fr.cpus[i].cpu, u->fr.cpu_busy[i], u->fr.cpu_rate[i], full);
	}
}

void header_draw(struct ui *u, int w, int h)
{
	struct header_layout l = header_layout(u, h, w);
	int y = 2;

	draw_title(u, w);
	draw_target(u, w);
	for (int i = 0; i < l.ev_lines; i++)
		draw_event(u, y++, w, (size_t)i);
	if (l.ev_lines < (int)u->fr.nev && l.ev_lines > 0 && u->meters & METER_EVENTS) {
		char more[48];

		snprintf(more, sizeof(more), " +%zu more: e", u->fr.nev - (size_t)l.ev_lines);
		paint_text(y - 1, w - (int)strlen(more), (int)strlen(more), R_WARN, more, false);
	}
	if (l.sys_lines)
		draw_sys(u, y++, w);
	draw_meters(u, y, l.meter_lines, w);
}

void header_message_draw(struct ui *u, int y, int w)
{
	char line[1024] = "";

	paint_fill(y, 0, w, R_NORMAL);
	if (u->msg[0] && time(NULL) < u->msg_until) {
		paint_foreign_words(y, 0, w, u->msg_error ? R_ERROR : R_WARN, u->msg);
		return;
	}
	if (u->ended) {
		snprintf(line, sizeof(line), "PID %d exited: final figures kept (Esc: back, q: quit)",
			 (int)u->ended_pid);
		paint_words(y, 0, w, R_WARN, line);
		return;
	}
	if (u->mode == MODE_ANNOTATE)
		annview_detail(u, line, sizeof(line));
	else
		views_detail(u, line, sizeof(line));
	if (line[0]) { /* the selected row in full: paths cut in the table */
		paint_foreign_words(y, 0, w, R_DIM, line);
		return;
	}
	for (size_t i = 0; i < u->s->nnotices; i++) {
		if (i)
			strlcat(line, " | ", sizeof(line));
		strlcat(line, u->s->notices[i], sizeof(line));
	}
	paint_foreign_words(y, 0, w, R_DIM, line);
}

struct fkey {
	const char *key, *label;
	int code;                          /* the key a click sends */
	bool (*alt)(const struct ui *u);   /* when true, alt_key/alt_label show */
	const char *alt_key, *alt_label;
	int alt_code;
	bool (*only)(const struct ui *u);  /* shown only when true */
};

static bool is_focused(const struct ui *u) { return u->focus != 0; }
static bool is_paused(const struct ui *u) { return u->paused; }
static bool has_callgraph(const struct ui *u) { return u->callgraph; }

#define FK(k, l, c) { k, l, c, NULL, NULL, NULL, 0, NULL }

/* As htop's: what matters most first; entries that do not fit are dropped
 * whole, and the last (Quit, Close) always shows. */
static const struct fkey bar_main[] = {
	FK("F1", "Help", KEY_F(1)), FK("F3", "Search", KEY_F(3)), FK("F4", "Filter", KEY_F(4)),
	{ "F5", "Tree", KEY_F(5), NULL, NULL, NULL, 0, has_callgraph },
	FK("F6", "SortBy", KEY_F(6)), FK("F9", "Kill", KEY_F(9)), FK("Tab", "View", '\t'),
	{ "Enter", "Focus", '\n', is_focused, "Esc", "Back", KEY_ESC_CODE, NULL },
	FK("e", "Events", 'e'), FK("x", "Excl", 'x'),
	{ "Z", "Pause", 'Z', is_paused, "Z", "Resume", 'Z', NULL }, FK("F2", "Setup", KEY_F(2)),
	FK("U", "User", 'U'), FK("K", "Kernel", 'K'), FK("z", "Decay", 'z'), FK("c", "Total", 'c'),
	FK("d", "Delay", 'd'), FK("F", "Freq", 'F'),
	FK("F10", "Quit", KEY_F(10)), FK(NULL, NULL, 0),
};
static const struct fkey bar_events[] = {
	FK("Space", "On/off", ' '), FK("u k v i o g", "Exclude", 0), FK("Esc", "Close", KEY_ESC_CODE),
	FK(NULL, NULL, 0),
};
static const struct fkey bar_exclude[] = {
	FK("u k v i o g", "Toggle", 0), FK("Space", "Toggle", ' '), FK("Esc", "Close", KEY_ESC_CODE),
	FK(NULL, NULL, 0),
};
static const struct fkey bar_sort[] = {
	FK("Enter", "Sort", '\n'), FK("I", "Invert", 'I'), FK("Esc", "Close", KEY_ESC_CODE), FK(NULL, NULL, 0),
};
static const struct fkey bar_paths[] = {
	FK("Right", "Expand", KEY_RIGHT), FK("Left", "Collapse", KEY_LEFT), FK("Enter", "Toggle", '\n'),
	FK("F1", "Help", KEY_F(1)), FK("Esc", "Back", KEY_ESC_CODE), FK(NULL, NULL, 0),
};
static const struct fkey bar_setup[] = {
	FK("Space", "Toggle", ' '), FK("F7", "Up", KEY_F(7)), FK("F8", "Down", KEY_F(8)), FK("Tab", "Section", '\t'),
	FK("Esc", "Done", KEY_ESC_CODE), FK(NULL, NULL, 0),
};
static const struct fkey bar_annot[] = {
	FK("Tab", "Hot", '\t'), FK("Enter", "Follow", '\n'), FK("s", "Source", 's'), FK("S", "Lines", 'S'),
	FK("o", "Bytes", 'o'), FK("t", "Total", 't'), FK("/", "Search", '/'), FK("F1", "Help", KEY_F(1)),
	FK("Esc", "Back", KEY_ESC_CODE), FK(NULL, NULL, 0),
};
static const struct fkey bar_help[] = {
	FK("Up/Down", "Scroll", 0), FK("Esc", "Close", KEY_ESC_CODE), FK(NULL, NULL, 0),
};

static int fkey_width(const struct ui *u, const struct fkey *f)
{
	bool alt = f->alt && f->alt(u);

	return (int)(strlen(alt ? f->alt_key : f->key) + strlen(alt ? f->alt_label : f->label)) + 1;
}

void header_footer_draw(struct ui *u, int y, int w)
{
	const struct fkey *bar = bar_main;
	int x = 0;

	if (u->mode == MODE_PROMPT) {
		static const char *const what[] = { "Filter", "Interval (seconds", "Sampling frequency (Hz",
						    "Search", "Signal", "User (name or uid; Enter alone: all",
						    "Sort keys (comm,pid,dso,sym,cpu,srcline; Enter alone: by symbol" };
		char safe[256], label[128];

		if (u->prompt == PROMPT_FILTER || u->prompt == PROMPT_SEARCH)
			snprintf(label, sizeof(label), "%s: ", what[u->prompt]);
		else if (u->prompt == PROMPT_KILL && u->ntags)
			snprintf(label, sizeof(label), "Send %zu tagged task%s which signal (Enter: 15 TERM; KILL HUP INT STOP CONT, a number): ",
				 u->ntags, u->ntags == 1 ? "" : "s");
		else if (u->prompt == PROMPT_KILL)
			snprintf(label, sizeof(label), "Send PID %d which signal (Enter: 15 TERM; KILL HUP INT STOP CONT, a number): ",
				 (int)u->kill_pid);
		else
			snprintf(label, sizeof(label), "%s, now %s): ", what[u->prompt], u->hint);
		if ((int)strlen(label) > w / 2 && u->prompt == PROMPT_KILL && u->ntags)
			snprintf(label, sizeof(label), "Signal to %zu tagged (Enter: TERM): ", u->ntags);
		else if ((int)strlen(label) > w / 2 && u->prompt == PROMPT_KILL)
			snprintf(label, sizeof(label), "Signal to PID %d (Enter: TERM): ", (int)u->kill_pid);
		paint_fill(y, 0, w, R_FLABEL);
		paint_text(y, 0, (int)strlen(label), R_FKEY, label, false);
		sanitize(safe, sizeof(safe), u->input);
		x = (int)strlen(label);
		paint_text(y, x, w - x, R_FLABEL, safe, false);
		move(y, x + (int)strlen(safe) < w ? x + (int)strlen(safe) : w - 1);
		return;
	}
	if (u->mode == MODE_EVENTS)
		bar = bar_events;
	else if (u->mode == MODE_EXCLUDE)
		bar = bar_exclude;
	else if (u->mode == MODE_HELP)
		bar = bar_help;
	else if (u->mode == MODE_SORT)
		bar = bar_sort;
	else if (u->mode == MODE_PATHS)
		bar = bar_paths;
	else if (u->mode == MODE_SETUP)
		bar = bar_setup;
	else if (u->mode == MODE_ANNOTATE)
		bar = bar_annot;
	paint_fill(y, 0, w, R_FLABEL);
	u->nbar_hit = 0;
	size_t n = 0;
	while (bar[n].key)
		n++;
	/* entries for this run only (F5 with -g) are skipped below */
	int reserve = n ? fkey_width(u, &bar[n - 1]) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct fkey *f = &bar[i];
		bool alt = f->alt && f->alt(u), last = i + 1 == n;
		const char *key = alt ? f->alt_key : f->key, *label = alt ? f->alt_label : f->label;
		int kw = (int)strlen(key), fw = fkey_width(u, f);

		if ((f->only && !f->only(u)) || x + fw + (last ? 0 : reserve) > w)
			continue;
		paint_text(y, x, kw, R_FKEY, key, false);
		paint_text(y, x + kw, fw - kw, R_FLABEL, label, false);
		if (u->nbar_hit < (int)(sizeof(u->bar_hit) / sizeof(u->bar_hit[0]))) {
			u->bar_hit[u->nbar_hit].x0 = x;
			u->bar_hit[u->nbar_hit].x1 = x + fw - 1;
			u->bar_hit[u->nbar_hit++].key = alt ? f->alt_code : f->code;
		}
		x += fw;
	}
}
