/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paint: the few ways text reaches the screen. Everything that came from
 * another process goes through paint_foreign (sanitize, then width-checked
 * wide characters); nothing else writes row text. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sanitize.h"
#include "ui.h"

static int attrs[R_ROLES];
/* What a role's padding blanks are drawn with: a blank shows only its
 * background and reverse or underline, so where those are the terminal's
 * plain ones the blanks go out plain. ncurses then ends a row with one
 * clear-to-end instead of writing each blank in a colour (a kernel row's
 * name padded in magenta was ~100 bytes of every changed row). */
static int pad_attrs[R_ROLES];

#define VISIBLE_ON_BLANK (A_REVERSE | A_UNDERLINE | A_STANDOUT)

struct role_style {
	short fg, bg;
	int attr;       /* with colours */
	int mono;       /* without */
};

static const struct role_style styles[R_ROLES] = {
	[R_NORMAL] = { -1, -1, 0, 0 },
	[R_LABEL] = { COLOR_CYAN, -1, 0, 0 },
	[R_VALUE] = { -1, -1, A_BOLD, A_BOLD },
	[R_HEAD] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
	[R_HEAD_SORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD | A_UNDERLINE },
	[R_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[R_KERNEL] = { COLOR_MAGENTA, -1, 0, 0 },
	[R_DIM] = { -1, -1, A_DIM, A_DIM },
	[R_METER] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[R_WARN] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD },
	[R_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE },
	[R_FKEY] = { -1, -1, A_BOLD, A_BOLD },
	[R_FLABEL] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[R_PANEL] = { -1, -1, 0, 0 },
	[R_PANEL_SEL] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[R_OFF] = { COLOR_RED, -1, A_BOLD, A_DIM },
	[R_TAGGED] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE }, /* htop's tagged rows */
};

/* The other schemes: the roles they draw otherwise. Light terminals: no
 * yellow or cyan text on white, no bold white. Colour-blind safe: no
 * meaning carried by red against green (blue and yellow instead). */
static const struct {
	enum ui_scheme scheme;
	enum ui_role role;
	struct role_style st;
} scheme_styles[] = {
	{ SCHEME_LIGHT, R_LABEL, { COLOR_BLUE, -1, 0, 0 } },
	{ SCHEME_LIGHT, R_HEAD, { COLOR_WHITE, COLOR_BLUE, 0, 0 } },
	{ SCHEME_LIGHT, R_HEAD_SORT, { COLOR_WHITE, COLOR_MAGENTA, A_BOLD, 0 } },
	{ SCHEME_LIGHT, R_SELECTED, { COLOR_WHITE, COLOR_BLUE, 0, 0 } },
	{ SCHEME_LIGHT, R_METER, { COLOR_BLUE, -1, A_BOLD, 0 } },
	{ SCHEME_LIGHT, R_FLABEL, { COLOR_WHITE, COLOR_BLUE, 0, 0 } },
	{ SCHEME_LIGHT, R_PANEL_SEL, { COLOR_WHITE, COLOR_BLUE, 0, 0 } },
	{ SCHEME_LIGHT, R_TAGGED, { COLOR_RED, -1, A_BOLD, 0 } },
	{ SCHEME_COLORBLIND, R_HEAD, { COLOR_BLACK, COLOR_CYAN, 0, 0 } },
	{ SCHEME_COLORBLIND, R_HEAD_SORT, { COLOR_BLACK, COLOR_YELLOW, A_BOLD, 0 } },
	{ SCHEME_COLORBLIND, R_METER, { COLOR_BLUE, -1, A_BOLD, 0 } },
	{ SCHEME_COLORBLIND, R_KERNEL, { COLOR_CYAN, -1, 0, 0 } },
	{ SCHEME_COLORBLIND, R_ERROR, { COLOR_WHITE, COLOR_BLUE, A_BOLD, 0 } },
	{ SCHEME_COLORBLIND, R_OFF, { COLOR_YELLOW, -1, A_BOLD, 0 } },
	{ SCHEME_COLORBLIND, R_TAGGED, { COLOR_YELLOW, -1, A_BOLD | A_UNDERLINE, 0 } },
};

static bool default_colors;

static struct role_style style_of(enum ui_scheme sc, int r)
{
	struct role_style st = styles[r];

	for (size_t i = 0; i < sizeof(scheme_styles) / sizeof(scheme_styles[0]); i++)
		if (scheme_styles[i].scheme == sc && (int)scheme_styles[i].role == r) {
			st = scheme_styles[i].st;
			st.mono = styles[r].mono;
		}
	return st;
}

/* Every role's attributes in the scheme: a pair each (made again when the
 * setup changes the scheme; the screen is then repainted whole). */
static void apply(const struct ui *u)
{
	if (!u->color || u->scheme == SCHEME_MONO) {
		for (int r = 0; r < R_ROLES; r++) {
			attrs[r] = styles[r].mono;
			pad_attrs[r] = attrs[r] & VISIBLE_ON_BLANK ? attrs[r] : 0;
		}
		return;
	}
	for (int r = 0; r < R_ROLES; r++) {
		struct role_style st = style_of(u->scheme, r);
		short fg = st.fg, bg = st.bg;

		if (!default_colors) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		if (fg < 0 && bg < 0) {
			attrs[r] = st.attr;
			pad_attrs[r] = attrs[r] & VISIBLE_ON_BLANK ? attrs[r] : 0;
			continue;
		}
		init_pair((short)(r + 1), fg, bg);
		attrs[r] = (int)COLOR_PAIR(r + 1) | st.attr;
		/* Without default colours a pair's background is drawn. */
		pad_attrs[r] = bg < 0 && !(attrs[r] & VISIBLE_ON_BLANK) ? 0 : attrs[r];
	}
}

void paint_init(struct ui *u)
{
	u->color = !u->o->no_color && has_colors();
	if (u->color && start_color() == ERR)
		u->color = false;
	if (u->color)
		default_colors = use_default_colors() == OK;
	apply(u);
}

void paint_scheme(struct ui *u, enum ui_scheme sc)
{
	u->scheme = sc;
	apply(u);
}

int paint_attr(enum ui_role r)
{
	return attrs[r];
}

/* Blanks a run at a time, from the cursor on (paint_box draws after them). */
static void pad(int n)
{
	static const char blanks[] = "                                                                ";

	while (n > 0) {
		int k = n < (int)sizeof(blanks) - 1 ? n : (int)sizeof(blanks) - 1;

		addnstr(blanks, k);
		n -= k;
	}
}

/* Printable ASCII straight into the window's cells: waddnstr takes each
 * byte through the wide-character path (unctrl, wcwidth, a cell built per
 * character), which was most of drawing a frame. The cursor stays. */
static void cells(int y, int x, int attr, const char *s, int n, bool blank)
{
	chtype buf[256];

	while (n > 0) {
		int k = n < (int)(sizeof(buf) / sizeof(buf[0])) ? n : (int)(sizeof(buf) / sizeof(buf[0]));

		for (int i = 0; i < k; i++)
			buf[i] = (chtype)attr | (chtype)(unsigned char)(blank ? ' ' : s[i]);
		mvaddchnstr(y, x, buf, k);
		x += k;
		n -= k;
		if (!blank)
			s += k;
	}
}

/* Writes s in exactly w columns at (y, x): cut or padded. Characters the
 * terminal would not print as one glyph become '?'. */
void paint_text(int y, int x, int w, enum ui_role r, const char *s, bool right)
{
	wchar_t wb[512];
	size_t n = 0, left;
	int cols = 0;
	mbstate_t st;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	/* Most text is printable ASCII: one column a byte, drawn as it is. */
	while (cols < w && s[cols] >= 0x20 && s[cols] < 0x7f)
		cols++;
	if (cols == w || s[cols] == '\0') {
		cells(y, right ? x + w - cols : x, attrs[r], s, cols, false);
		cells(y, right ? x : x + cols, pad_attrs[r], NULL, w - cols, true);
		return;
	}
	cols = 0;
	left = strlen(s);
	memset(&st, 0, sizeof(st));
	while (left && n < sizeof(wb) / sizeof(wb[0]) - 1) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, left, &st);
		int cw;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			wc = L'?';
			k = 1;
			memset(&st, 0, sizeof(st));
		}
		cw = wcwidth(wc);
		if (cw < 0) {
			wc = L'?';
			cw = 1;
		}
		if (cols + cw > w)
			break;
		wb[n++] = wc;
		cols += cw;
		s += k;
		left -= k;
	}
	wb[n] = L'\0';
	move(y, x);
	if (right) {
		attrset(pad_attrs[r]);
		pad(w - cols);
	}
	attrset(attrs[r]);
	addnwstr(wb, (int)n);
	if (!right) {
		attrset(pad_attrs[r]);
		pad(w - cols);
	}
	attrset(A_NORMAL);
}

/* The bytes of s's next character (of n bytes at most) and its columns in
 * *cw; a byte that is no character counts as one column. */
static size_t next_char(const char *s, size_t n, mbstate_t *st, int *cw)
{
	wchar_t wc;
	size_t k = mbrtowc(&wc, s, n, st);

	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		k = 1;
		wc = L'?';
		memset(st, 0, sizeof(*st));
	}
	*cw = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
	return k;
}

/* Columns of s's first n bytes. */
static int text_cols(const char *s, size_t n)
{
	mbstate_t st;
	int cols = 0, cw;

	memset(&st, 0, sizeof(st));
	while (n) {
		size_t k = next_char(s, n, &st, &cw);

		cols += cw;
		s += k;
		n -= k;
	}
	return cols;
}

void paint_words(int y, int x, int w, enum ui_role r, const char *s)
{
	char buf[1024];
	size_t cut = 0, n = strlen(s);

	if (w <= 1 || text_cols(s, n) <= w) {
		paint_text(y, x, w, r, s, false);
		return;
	}
	/* The last blank that leaves room for the mark; a word longer than the
	 * line is cut where the line ends, still marked. */
	for (size_t i = 1; i < n && text_cols(s, i) <= w - 1; i++)
		if (s[i] == ' ' && s[i - 1] != ' ')
			cut = i;
	if (cut == 0)
		for (cut = n; cut > 0 && text_cols(s, cut) > w - 1; cut--)
			;
	if (cut >= sizeof(buf) - 1)
		cut = sizeof(buf) - 2;
	memcpy(buf, s, cut);
	while (cut > 0 && strchr(" ,:;(", buf[cut - 1]))
		cut--;
	buf[cut] = '~';
	buf[cut + 1] = '\0';
	paint_text(y, x, w, r, buf, false);
}

void paint_name(int y, int x, int w, enum ui_role r, const char *s)
{
	char buf[1024];
	size_t n = strlen(s), cut = 0, i = 0;
	int cols = 0;
	mbstate_t st;

	if (w <= 1 || text_cols(s, n) <= w) {
		paint_text(y, x, w, r, s, false);
		return;
	}
	/* Whole characters up to the column left for the mark. */
	memset(&st, 0, sizeof(st));
	while (i < n) {
		int cw;
		size_t k = next_char(s + i, n - i, &st, &cw);

		cols += cw;
		if (cols > w - 1)
			break;
		i += k;
		cut = i;
	}
	if (cut >= sizeof(buf) - 1)
		cut = sizeof(buf) - 2;
	memcpy(buf, s, cut);
	buf[cut] = '~';
	buf[cut + 1] = '\0';
	paint_text(y, x, w, r, buf, false);
}

void paint_foreign_words(int y, int x, int w, enum ui_role r, const char *s)
{
	char safe[1024];

	sanitize(safe, sizeof(safe), s ? s : "");
	paint_words(y, x, w, r, safe);
}

void paint_foreign(int y, int x, int w, enum ui_role r, const char *s)
{
	char safe[1024];

	sanitize(safe, sizeof(safe), s ? s : "");
	paint_text(y, x, w, r, safe, false);
}

void paint_fill(int y, int x, int w, enum ui_role r)
{
	paint_text(y, x, w, r, "", false);
}

void paint_gap(int y, int x, enum ui_role r)
{
	if (y >= 0 && y < LINES && x >= 0 && x < COLS)
		cells(y, x, attrs[r], NULL, 1, true);
}

void paint_box(int y, int x, int h, int w, const char *title)
{
	if (h < 2 || w < 2)
		return;
	attrset(attrs[R_PANEL]);
	for (int i = 1; i < h - 1; i++) {
		mvaddch(y + i, x, ACS_VLINE);
		pad(w - 2);
		addch(ACS_VLINE);
	}
	mvaddch(y, x, ACS_ULCORNER);
	hline(ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	hline(ACS_HLINE, w - 2);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	if (title) {
		int tw = (int)strlen(title) + 2;

		if (tw > w - 4)
			tw = w - 4;
		mvaddch(y, x + 2, ' ');
		paint_words(y, x + 3, tw - 2, R_VALUE, title);
		mvaddch(y, x + 1 + tw, ' ');
	}
}

/* The cells of the rows as the last frame left them (COLS + 1 a row: the
 * read ends with a null cell). */
static cchar_t *shown, *cur;
static int shown_lines, shown_cols, rows_sent;

/* Every frame is erased and drawn whole, so ncurses would take every row
 * to the terminal's image and compare it cell by cell (a fifth of drawing
 * a frame). A row whose cells are those of the last frame is marked
 * untouched instead: stdscr is the only window, so what the last refresh
 * took of it is what ncurses has for the terminal. all: compare nothing
 * (the terminal is to be repainted). */
void paint_refresh(bool all)
{
	size_t rowlen = (size_t)COLS + 1;
	int cy, cx;

	if (LINES != shown_lines || COLS != shown_cols) {
		free(shown);
		free(cur);
		shown = calloc((size_t)LINES * rowlen, sizeof(*shown));
		cur = calloc(rowlen, sizeof(*cur));
		if (shown == NULL || cur == NULL) {
			paint_free();
			refresh();
			return;
		}
		shown_lines = LINES;
		shown_cols = COLS;
		all = true;
	}
	getyx(stdscr, cy, cx);
	rows_sent = 0;
	for (int y = 0; y < LINES; y++) {
		cchar_t *row = shown + (size_t)y * rowlen;
		/* No clearing: past the read's null cell, stale cells can only
		 * make a row look changed. */
		bool read = mvin_wchnstr(y, 0, cur, COLS) != ERR;

		if (read && !all && memcmp(cur, row, rowlen * sizeof(*cur)) == 0) {
			wtouchln(stdscr, y, 1, 0);
			continue;
		}
		if (read)
			memcpy(row, cur, rowlen * sizeof(*cur));
		else
			memset(row, 0xff, rowlen * sizeof(*row)); /* no cell reads so */
		rows_sent++;
	}
	move(cy, cx);
	refresh();
}

int paint_rows_sent(void)
{
	return rows_sent;
}

void paint_free(void)
{
	free(shown);
	free(cur);
	shown = cur = NULL;
	shown_lines = shown_cols = 0;
}

/* One rung of a unit ladder: values below limit print as v / div in fmt. */
struct fmt_rung {
	double limit, div;
	const char *fmt;
};

static void fmt_ladder(char *buf, size_t len, double v, const struct fmt_rung *r, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && v >= r[i].limit)
		i++;
	snprintf(buf, len, r[i].fmt, v / r[i].div);
}

void paint_fmt_nsec(char *buf, size_t len, double ns)
{
	static const struct fmt_rung r[] = {
		{ 999.5, 1, "%.0fns" }, { 999.95e3, 1e3, "%.1fus" },
		{ 999.95e6, 1e6, "%.1fms" }, { 0, 1e9, "%.2fs" },
	};

	fmt_ladder(buf, len, ns, r, sizeof(r) / sizeof(r[0]));
}

/* Fits a count in 7 columns: 1234567 -> "1234.6k". */
void paint_fmt_count(char *buf, size_t len, double v)
{
	static const struct fmt_rung r[] = {
		{ 99999.5, 1, "%.0f" }, { 9999.95e3, 1e3, "%.1fk" },
		{ 9999.95e6, 1e6, "%.1fM" }, { 0, 1e9, "%.1fG" },
	};

	fmt_ladder(buf, len, v, r, sizeof(r) / sizeof(r[0]));
}

/* Bytes as free -h shows them: "812M", "3.8G". */
void paint_fmt_bytes(char *buf, size_t len, uint64_t b)
{
	static const char units[] = "KMGTP";
	double v = (double)b / 1024;
	size_t i = 0;

	while (v >= 1000 && i + 1 < sizeof(units) - 1) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, v < 10 ? "%.1f%c" : "%.0f%c", v, units[i]);
}
