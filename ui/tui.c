/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tui: the live view's main loop. The engine's epoll loop drives everything
 * (ticks, the terminal's stdin, signals from its signalfd); this file owns
 * the terminal and restores it on every way out. */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "evspec.h"
#include "session.h"
#include "tui.h"
#include "ui.h"

/* Last: its macros (lines, columns, …) would rewrite the headers above. */
#include <term.h>

static SCREEN *screen;
static bool curses_on;
static const struct tui_hook *hook; /* --listen, --textfile: fed at each tick */
static struct baseline *file_baseline; /* --baseline */

void tui_baseline(struct baseline *b)
{
	file_baseline = b;
}

/* atexit, crash handlers, and the normal way out all come here. */
static void term_restore(void)
{
	if (curses_on) {
		curses_on = false;
		endwin();
	}
}

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction crash_old[sizeof(crash_sigs) / sizeof(crash_sigs[0])];

/* endwin() is not async-signal-safe; a raw terminal after a crash is worse.
 * Then the old disposition takes over: a fault happens again on return, a
 * sent signal is raised again (blocked until we return). */
static void on_crash(int signo, siginfo_t *si, void *ctx)
{
	term_restore();
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (crash_sigs[i] == signo)
			sigaction(signo, &crash_old[i], NULL);
	if (si == NULL || si->si_code <= 0)
		raise(signo);
}

static void crash_handlers(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++) {
		if (on)
			sigaction(crash_sigs[i], &sa, &crash_old[i]);
		else
			sigaction(crash_sigs[i], &crash_old[i], NULL);
	}
}

/* --- job control ------------------------------------------------------ */

/* Ctrl-Z and fg: the handlers only write a byte into a pipe the event loop
 * watches; the loop gives the terminal back, stops, and takes it again
 * (keypad mode included) in plain code, never inside a handler. */
static int jc_pipe[2] = { -1, -1 };
static struct sigaction jc_old_tstp, jc_old_cont;

static void on_jobctl(int signo)
{
	int saved = errno;
	char c = signo == SIGTSTP ? 'T' : 'C';

	if (write(jc_pipe[1], &c, 1) < 0) {
		/* full: a byte is already there, and one is enough */
	}
	errno = saved;
}

static int jobctl_start(void)
{
	struct sigaction sa;

	if (pipe2(jc_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_jobctl;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTSTP, &sa, &jc_old_tstp) != 0 || sigaction(SIGCONT, &sa, &jc_old_cont) != 0)
		return -errno;
	return 0;
}

static void jobctl_stop(void)
{
	if (jc_pipe[0] < 0)
		return;
	sigaction(SIGTSTP, &jc_old_tstp, NULL);
	sigaction(SIGCONT, &jc_old_cont, NULL);
	close(jc_pipe[0]);
	close(jc_pipe[1]);
	jc_pipe[0] = jc_pipe[1] = -1;
}

/* The whole terminal state again: modes, keypad, a full repaint. */
static void term_resume(struct ui *u)
{
	struct winsize ws;

	reset_prog_mode();
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	keypad(stdscr, FALSE); /* TRUE alone may think keypad is on already */
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	screen_draw(u, UI_CLEAR);
}

static void on_jobctl_pipe(void *arg)
{
	struct ui *u = arg;
	char buf[16];
	ssize_t n;
	bool stop = false, cont = false;

	while ((n = read(jc_pipe[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			stop = stop || buf[i] == 'T';
			cont = cont || buf[i] == 'C';
		}
	if (stop) {
		struct sigaction dfl;

		endwin(); /* the shell gets its terminal back as it was */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		if (sigaction(SIGTSTP, &dfl, NULL) == 0) {
			struct sigaction sa = dfl;

			raise(SIGTSTP); /* stops here until fg */
			sa.sa_handler = on_jobctl;
			sa.sa_flags = SA_RESTART;
			sigaction(SIGTSTP, &sa, NULL);
		}
		/* the 'C' of this resume: already dealt with below */
		while (read(jc_pipe[0], buf, sizeof(buf)) > 0)
			;
		cont = true;
	}
	if (cont)
		term_resume(u);
}

/* Ctrl-S would freeze the screen with no mark (cbreak leaves IXON on);
 * the prog mode is saved with it off, so a resume keeps it off, and endwin
 * brings back the shell's mode, flow control as it was. */
static void flow_off(void)
{
	struct termios tio;

	if (tcgetattr(STDIN_FILENO, &tio) != 0)
		return;
	tio.c_iflag &= ~(tcflag_t)IXON;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio) == 0)
		def_prog_mode();
}

static bool term_addressable(void)
{
	char *cup = tigetstr("cup");

	return cup != NULL && cup != (char *)-1;
}

/* 0; -1: TERM unknown or the terminal unusable; -2: no cursor addressing. */
static int term_start(struct ui *u)
{
	static bool registered;

	int err;
	bool addressable;

	setlocale(LC_ALL, "");
	/* The terminal is looked up before newterm, which leaks its half-made
	 * screen when TERM is unknown (ncurses 6.4). */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return -1;
	/* TERM=dumb and kin: no cursor moves, so no table, only the last line. */
	addressable = term_addressable();
	del_curterm(cur_term);
	if (!addressable)
		return -2;
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL)
		return -1;
	/* ncurses 6.4 writes out at every cursor move until the screen has
	 * been left and resumed once (mvcur flushes while _endwin is still
	 * its initial state): a frame was about 110 small writes to the
	 * terminal. Left and resumed here, before any drawing, a frame is one
	 * write. */
	endwin();
	refresh();
	curses_on = true;
	if (!registered) {
		atexit(term_restore);
		registered = true;
	}
	crash_handlers(true);
	if (jobctl_start() != 0) {
		term_restore();
		return -1;
	}
	set_escdelay(25); /* Esc alone means back; sequences arrive at once */
	cbreak();
	noecho();
	nonl();
	flow_off();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE); /* keys are read when epoll says stdin is ready */
	/* No poll of stdin every few rows of an update: a frame is one short
	 * write, and keys wait for the epoll loop anyway. */
	typeahead(-1);
	curs_set(0);
	/* Presses, not clicks: a click would wait mouseinterval for the release. */
	mouseinterval(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	paint_init(u);
	return 0;
}

static void term_stop(void)
{
	term_restore();
	jobctl_stop();
	crash_handlers(false);
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
}

/* --- engine handlers ----------------------------------------------------- */

static void show(void *arg, double lap)
{
	struct ui *u = arg;

	frame_take(u, u->s->agg, lap);
	if (u->save_pending) /* P: the agg holds what the frame took, until the roll */
		save_write(u, lap);
	if (u->ended && !u->paused)
		u->final_taken = true;
	if (hook)
		hook->interval(hook->arg, u->s->agg, u->s);
}

/* The last frame is the last anyone sees: unless an exporter writes the
 * run's figures when it ends, what the rings still hold is left there
 * (decoding it cost a quit a few milliseconds beside a busy perf top). */
static void leave(struct ui *u)
{
	if (hook)
		session_stop(u->s);
	else
		session_quit(u->s);
}

static void on_tick(void *arg)
{
	struct ui *u = arg;
	bool early = soon_early(); /* the first table's, before the interval */

	/* After the focused processes exited the frame holds their last
	 * interval: it stays on screen (only the clock moves). */
	if (!u->final_taken)
		session_interval_end(u->s, u->decay ? UI_DECAY_PCT : 0, show, u);
	screen_draw(u, UI_DRAW);
	if (early)
		soon_again(u);
	/* -n: as top's, the frames to draw before leaving (whole intervals). */
	if (!early && u->o->iterations && ++u->frames >= u->o->iterations) {
		u->quit = true;
		leave(u);
	}
}

/* soon.c: a row's second %CPU reading is due. */
static void on_soon(void *arg)
{
	if (soon_fire())
		screen_draw(arg, UI_DRAW);
}

static bool on_signal(void *arg, int signo)
{
	struct ui *u = arg;
	struct winsize ws;

	if (signo != SIGWINCH) {
		u->quit = true;
		return true;
	}
	/* The engine blocks SIGWINCH, so curses never sees it: tell it. */
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	screen_draw(u, UI_CLEAR);
	return false;
}

static void on_pid_exit(void *arg, pid_t pid)
{
	struct ui *u = arg;

	/* The last focused process: its final figures stay, and say so. */
	if (session_focus_exit(u->s, pid)) {
		u->ended = true;
		u->ended_pid = pid;
	}
	ui_message(u, false, "PID %d exited%s", (int)pid,
		   u->ended ? ": final figures kept, Esc goes back, q quits" : "");
	screen_draw(u, UI_DRAW);
}

/* Readable but nothing to read: the terminal hung up. */
static bool stdin_gone(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int n = 0;

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
		return true;
	return ioctl(STDIN_FILENO, FIONREAD, &n) == 0 && n == 0;
}

/* ncurses hands back an ESC alone only after escdelay passed with nothing
 * behind it; an ESC with bytes right behind it began a sequence this
 * terminal description does not know (Home in tmux under xterm-256color,
 * arrows with keypad mode lost): those bytes are swallowed, up to the
 * sequence's final byte, so no part of it acts as Esc or as a key.
 * A terminal writes a sequence whole, so ESC then '[' or 'O' with nothing
 * behind them is Esc, then the key [ or O typed quickly (Esc, O). */
static bool unknown_sequence(struct ui *u)
{
	int c = getch(), n = 0, next;

	if (c == ERR)
		return false;
	if (c != '[' && c != 'O') { /* Esc, then a key typed quickly */
		ungetch(c);
		return false;
	}
	next = getch();
	if (next == ERR) {
		ungetch(c);
		return false;
	}
	ungetch(next);
	/* CSI or SS3: parameters, then a final byte */
	while ((c = getch()) != ERR && ++n < 32)
		if (c >= 0x40 && c <= 0x7e && !(n == 1 && c == '['))
			break;
	ui_message(u, false, "unknown key sequence ignored");
	return true;
}

static void on_stdin(void *arg)
{
	struct ui *u = arg;
	unsigned what = 0;
	size_t keys = 0;
	int key;

	while ((key = getch()) != ERR) {
		keys++;
		if (key == KEY_RESIZE)
			what |= UI_DRAW;
		else if (key == KEY_MOUSE)
			what |= mouse_event(u);
		else if (key == 27 && unknown_sequence(u))
			what |= UI_DRAW;
		else
			what |= keys_dispatch(u, key);
		/* Keys after a focus or rate change still apply (to the state the
		 * re-open copies); ncurses may hold them already read. */
		if (what & UI_QUIT)
			break;
	}
	if (keys == 0 && stdin_gone()) {
		u->stdin_gone = true;
		what |= UI_QUIT;
	}
	if (what & UI_QUIT) {
		u->clean_quit = !u->stdin_gone; /* q or F10: the settings changed are kept */
		u->quit = true;
		leave(u);
		return;
	}
	if (what & UI_REOPEN) {
		session_stop(u->s); /* the main loop re-opens between runs */
		return;
	}
	if (what)
		screen_draw(u, what);
}

/* --- focus and rate changes ------------------------------------------- */

/* The command line's -p/-t/-G target. */
static void start_target(const struct options *o, struct session_target *t)
{
	t->pids = o->pids;
	t->npids = o->npids;
	t->pids_are_tids = o->tids;
	t->cgroup = o->cgroup;
}

/* The target we sample now, as session_reopen wants it. */
static void current_target(const struct ui *u, struct session_target *t, pid_t *pid)
{
	memset(t, 0, sizeof(*t));
	if (u->focus) {
		*pid = u->focus;
		t->pids = pid;
		t->npids = 1;
	} else if (!u->left_start) {
		start_target(u->o, t);
	}
	t->freq = u->freq;
	t->period = u->period;
}

static int reopen(struct ui *u, char *fatal, size_t fatal_len)
{
	struct ui_reopen r = u->reopen;
	struct session *s = u->s;
	struct session_target t, prev;
	pid_t pid, prev_pid, new_focus = u->focus;
	bool left_start = u->left_start;
	char err[1024];

	u->reopen.pending = false;
	current_target(u, &prev, &prev_pid);
	current_target(u, &t, &pid);
	if (r.freq) {
		t.freq = r.freq;
		t.period = 0;
		t.keep_agg = true;
	} else if (r.pid) {
		new_focus = pid = r.pid;
		t = (struct session_target){ .pids = &pid, .npids = 1, .freq = t.freq, .period = t.period,
					     .interval = t.interval };
	} else {
		/* Back: from a focus to where we started, or off a -p/-G start. */
		if (!u->focus || r.system_wide)
			left_start = true;
		new_focus = 0;
		t = (struct session_target){ .freq = t.freq, .period = t.period, .interval = t.interval };
		if (u->focus && !u->left_start && !r.system_wide)
			start_target(u->o, &t);
	}
	if (!t.keep_agg)
		frame_clear(u); /* its rows point into the agg about to go */
	if (session_reopen(s, &t, err, sizeof(err)) != 0) {
		if (s->eng == NULL && session_reopen(s, &prev, fatal, fatal_len) != 0)
			return -1;
		ui_message(u, true, "%s", err);
		frame_take(u, s->agg, 0);
		return 0;
	}
	u->focus = new_focus;
	u->left_start = left_start;
	if (!t.keep_agg)
		u->ended = u->final_taken = false;
	if (r.freq) {
		u->freq = r.freq;
		u->period = 0;
		ui_message(u, false, "sampling at %llu Hz", (unsigned long long)r.freq);
	} else if (r.pid) {
		const char *comm = session_comm(s, r.pid);

		ui_message(u, false, "focus on PID %d%s%s: Esc goes back", (int)r.pid, comm ? " " : "",
			   comm ? comm : "");
	} else {
		ui_message(u, false, "back to %s", s->target);
	}
	u->sel[VIEW_TASKS] = u->sel[VIEW_SYMBOLS] = 0;
	u->sel_valid[VIEW_TASKS] = u->sel_valid[VIEW_SYMBOLS] = false;
	frame_take(u, s->agg, 0);
	return 0;
}

int tui_run(struct session *s, const struct options *o, const struct tui_hook *x)
{
	struct engine_handlers h = {
		.arg = NULL, .tick = on_tick, .signal = on_signal, .pid_exit = on_pid_exit,
	};
	struct engine *watched = NULL;
	bool first = true; /* a replay (-i) has no engine: watched once */
	char fatal[1024] = "";
	struct ui u;
	int rc;

	ui_init(&u, s, o);
	prefs_load(&u); /* before the terminal is taken: a warning reaches stderr */
	u.baseline = file_baseline;
	hook = x;
	h.arg = &u;
	rc = term_start(&u);
	if (rc != 0) {
		fprintf(stderr, "perftop: cannot drive this terminal (TERM=%s%s): use -b for a headless dump\n",
			getenv("TERM") ? getenv("TERM") : "", rc == -2 ? ": it cannot move the cursor" : "");
		return 1;
	}
	frame_take(&u, s->agg, 0);
	prefs_load_sort(&u); /* the sorts name events: the frame has them */
	screen_draw(&u, UI_DRAW);
	while (!u.quit) {
		if (first || s->eng != watched) {
			rc = session_watch_fd(s, STDIN_FILENO, on_stdin, &u);
			if (rc == 0)
				rc = session_watch_fd(s, jc_pipe[0], on_jobctl_pipe, &u);
			if (rc == 0 && soon_fd() >= 0 && (rc = session_watch_fd(s, soon_fd(), on_soon, &u)) == 0)
				soon_start(&u);
			if (rc) {
				snprintf(fatal, sizeof(fatal), "cannot watch the terminal: %s", strerror(-rc));
				break;
			}
			watched = s->eng;
			first = false;
		}
		rc = session_run(s, &h);
		if (rc) {
			snprintf(fatal, sizeof(fatal), "event loop failed: %s", strerror(-rc));
			break;
		}
		if (u.quit || !u.reopen.pending)
			break;
		if (reopen(&u, fatal, sizeof(fatal)) != 0)
			break;
		screen_draw(&u, UI_DRAW);
	}
	term_stop();
	if (u.clean_quit && !fatal[0])
		prefs_save(&u);
	if (fatal[0]) {
		fprintf(stderr, "perftop: %s\n", fatal);
		u.exit_code = 1;
	}
	rc = u.exit_code;
	ui_free(&u);
	return rc;
}
