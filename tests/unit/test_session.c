/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The session's record path and the dump: synthetic records decoded by the
 * real decoder, applied by session_record, dumped in the three formats.
 * usage: test_session FIXTURES_DIR */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>

#include "check.h"
#include "dump.h"
#include "agg_int.h"
#include "session.h"
#include "synth.h"

static void apply(struct session *s, int ev, const struct perf_event_header *h)
{
	struct record r;

	if (record_decode(h, &r) == RECORD_OK)
		session_record(s, ev, &r);
}

static const struct perf_event_header *comm_rec(struct synth *sy, uint32_t pid, uint32_t tid, const char *comm)
{
	synth_header(sy, PERF_RECORD_COMM, 0);
	synth_u32x2(sy, pid, tid);
	synth_string(sy, comm);
	synth_trailer(sy, pid, tid, 1, 0, 1);
	return synth_done(sy);
}

static const struct perf_event_header *exit_rec(struct synth *sy, uint32_t pid, uint32_t tid)
{
	synth_header(sy, PERF_RECORD_EXIT, 0);
	synth_u32x2(sy, pid, pid);
	synth_u32x2(sy, tid, tid);
	synth_u64(sy, 5);
	synth_trailer(sy, pid, tid, 5, 0, 1);
	return synth_done(sy);
}

static const struct perf_event_header *mmap2_rec(struct synth *sy, uint32_t pid, uint64_t start, uint64_t len,
						 uint64_t ino, const char *file)
{
	synth_header(sy, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	synth_u32x2(sy, pid, pid);
	synth_u64(sy, start);
	synth_u64(sy, len);
	synth_u64(sy, 0);
	synth_u32x2(sy, 8, 1);
	synth_u64(sy, ino);
	synth_u64(sy, 1);
	synth_u32x2(sy, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	synth_string(sy, file);
	synth_trailer(sy, pid, pid, 2, 0, 1);
	return synth_done(sy);
}

/* The whole dump of one interval in one format, as a string. */
static char *dump(struct session *s, enum dump_format fmt, bool threads)
{
	struct dump_meta m = { .time = 1700000000, .interval = 1, .iteration = 1, .freq = 4000,
			       .threads = threads, .stats = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	dump_begin(f, fmt, s, threads);
	dump_interval(f, fmt, s, &m, 10);
	fclose(f);
	return buf;
}

static size_t lines(const char *s, const char *prefix)
{
	size_t n = 0;

	for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

/* The flat memo (a repeated IP counted without a resolve) holds only while
 * what the resolve depended on does: after an MMAP2 that replaces the
 * mapping, the same IP is the new file's. */
static void flat_memo_after_mmap(const struct symbols_opts *so)
{
	static const int cpus[] = { 0, 1 };
	struct session s;
	struct synth sy;
	char *out;

	memset(&s, 0, sizeof(s));
	s.syms = symbols_new(so);
	s.agg = agg_new(1, cpus, 2);
	CHECK(s.syms && s.agg, "a second session without an engine");
	if (s.syms == NULL || s.agg == NULL)
		goto out;
	strlcpy(agg_event(s.agg, 0)->name, "cycles", sizeof(agg_event(s.agg, 0)->name));
	apply(&s, -1, comm_rec(&sy, 300, 300, "gamma"));
	apply(&s, -1, mmap2_rec(&sy, 300, 0x400000, 0x10000, 11, "/nonexistent/first.so"));
	for (int i = 0; i < 3; i++)
		apply(&s, 0, synth_sample(&sy, 7, 0x401234, 300, 300, 3, 0, 1000, PERF_RECORD_MISC_USER));
	apply(&s, -1, mmap2_rec(&sy, 300, 0x400000, 0x10000, 12, "/nonexistent/second.so"));
	for (int i = 0; i < 4; i++)
		apply(&s, 0, synth_sample(&sy, 7, 0x401234, 300, 300, 4, 0, 1000, PERF_RECORD_MISC_USER));
	CHECK(s.agg->flat_hits >= 4, "flat memo: repeated IPs counted through it (%llu hits)",
	      (unsigned long long)s.agg->flat_hits);
	out = dump(&s, DUMP_JSON, false);
	CHECK(out && strstr(out, "\"dso\":\"/nonexistent/first.so\",\"kernel\":false,\"samples\":3,"),
	      "flat memo: the samples before the MMAP2 in the old file");
	CHECK(out && strstr(out, "\"dso\":\"/nonexistent/second.so\",\"kernel\":false,\"samples\":4,"),
	      "flat memo: the same IP after an MMAP2 over it is the new file's");
	free(out);
	/* The engine's tally hands on n alike at once (session_samples): a
	 * memo hit and a miss, each counted n times, the period as given. */
	{
		struct engine_samples hit = { .ip = 0x401234, .period = 5000, .pid = 300, .tid = 300, .cpu = 1, .n = 5,
					      .misc = PERF_RECORD_MISC_USER };
		struct engine_samples miss = { .ip = 0x402000, .period = 600, .pid = 300, .tid = 300, .cpu = 0, .n = 6,
					       .misc = PERF_RECORD_MISC_USER };

		session_samples(&s, 0, &hit);
		session_samples(&s, 0, &miss);
	}
	out = dump(&s, DUMP_JSON, false);
	CHECK(out && strstr(out, "\"dso\":\"/nonexistent/second.so\",\"kernel\":false,\"samples\":15,"),
	      "n samples at once: 4 + 5 + 6 in the new file's row");
	CHECK(out && strstr(out, "\"samples\":18,\"period\":12600"),
	      "n samples at once: the event's 3 + 4 + 5 + 6, period 12 600");
	CHECK(!s.in_sample, "n samples at once: no sample in hand after");
	if (getenv("SHOW"))
		puts(out ? out : "");
	free(out);
	/* A re-aim marks every process for a /proc re-read at its next sample,
	 * which a memo hit (the flat memo, -g's leaf memo) would not wait for. */
	{
		uint64_t tag = symbols_tag(s.syms, 300);
		uint32_t gen = symbols_maps_gen(s.syms, 300);

		symbols_stale(s.syms);
		CHECK(symbols_tag(s.syms, 300) != tag && symbols_maps_gen(s.syms, 300) != gen,
		      "flat memo: symbols_stale moves the process's tags");
	}
out:
	agg_free(s.agg);
	symbols_free(s.syms);
}

/* Threads that never run while the test looks: they wait on a pipe. */
static int idle_pipe[2];

static void *idle_body(void *arg)
{
	char c;

	(void)arg;
	return read(idle_pipe[0], &c, 1) < 0 ? NULL : arg;
}

static int own_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

struct shown {
	struct session *s;
	char *json;
};

static void show_json(void *arg, double lap)
{
	struct shown *sh = arg;

	(void)lap;
	free(sh->json);
	sh->json = dump(sh->s, DUMP_JSON, true);
}

/* A task's threads are its process's, as /proc (top's nTH) counts them:
 * this process, its samples all from its main thread while three more
 * threads wait, shows 4, not the 1 thread that took a sample; the thread
 * rows list the sampled one. Once it has exited it keeps that count. */
static void threads_are_the_process(const struct symbols_opts *so)
{
	static const int cpus[] = { 0 };
	pid_t pid = getpid();
	pthread_t th[3];
	struct session s;
	struct shown sh = { &s, NULL };
	struct synth sy;
	char want[96], row[64];
	int made = 0, truth;

	memset(&s, 0, sizeof(s));
	s.syms = symbols_new(so);
	s.agg = agg_new(1, cpus, 1);
	CHECK(s.syms && s.agg && pipe(idle_pipe) == 0, "threads: a session without an engine, a pipe");
	if (s.syms == NULL || s.agg == NULL)
		goto out;
	strlcpy(agg_event(s.agg, 0)->name, "cpu-clock", sizeof(agg_event(s.agg, 0)->name));
	while (made < 3 && pthread_create(&th[made], NULL, idle_body, NULL) == 0)
		made++;
	truth = own_threads();
	CHECK(made == 3 && truth == 4, "threads: this process has 4 (%d made, %d in /proc/self/task)", made, truth);
	apply(&s, -1, comm_rec(&sy, (uint32_t)pid, (uint32_t)pid, "selftest"));
	for (int i = 0; i < 5; i++)
		apply(&s, 0, synth_sample(&sy, 7, 0x1234, (uint32_t)pid, (uint32_t)pid, 10 + (uint64_t)i, 0, 1000,
					  PERF_RECORD_MISC_USER));
	session_interval_end(&s, 0, show_json, &sh);
	snprintf(want, sizeof(want), "{\"pid\":%d,\"comm\":\"selftest\",\"samples\":5,\"share\":100.00,\"threads\":%d,",
		 (int)pid, truth);
	CHECK(sh.json && strstr(sh.json, want), "threads: the task row counts its idle threads too (%s)", want);
	snprintf(row, sizeof(row), "{\"pid\":%d,\"tid\":", (int)pid);
	CHECK(sh.json && strstr(sh.json, row) && strstr(strstr(sh.json, row) + 1, row) == NULL,
	      "threads: one thread row, the thread that took samples");
	if (getenv("SHOW"))
		puts(sh.json ? sh.json : "");
	/* Gone: the count it had stays, whatever /proc says now. */
	apply(&s, -1, exit_rec(&sy, (uint32_t)pid, (uint32_t)pid));
	for (int i = 0; i < made; i++)
		if (write(idle_pipe[1], "x", 1) != 1)
			break;
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	made = 0;
	apply(&s, 0, synth_sample(&sy, 7, 0x1234, (uint32_t)pid, (uint32_t)pid, 20, 0, 1000, PERF_RECORD_MISC_USER));
	session_interval_end(&s, 0, show_json, &sh);
	snprintf(want, sizeof(want), "\"threads\":%d,\"exited\":true", truth);
	CHECK(sh.json && strstr(sh.json, want), "threads: an exited process keeps its last count (%s)", want);
out:
	for (int i = 0; i < made; i++)
		if (write(idle_pipe[1], "x", 1) == 1)
			pthread_join(th[i], NULL);
	free(sh.json);
	agg_free(s.agg);
	symbols_free(s.syms);
}

int main(int argc, char **argv)
{
	char kallsyms[512];
	struct symbols_opts so = { .proc_root = "/nonexistent", .kallsyms_path = kallsyms };
	static const int cpus[] = { 0, 1 };
	struct session s;
	struct synth sy;
	char *out;

	if (argc < 2)
		return 2;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms.txt", argv[1]);
	memset(&s, 0, sizeof(s));
	strlcpy(s.target, "system-wide (2 CPUs)", sizeof(s.target));
	s.syms = symbols_new(&so);
	s.agg = agg_new(2, cpus, 2);
	CHECK(s.syms && s.agg && symbols_load_kernel(s.syms) == 0, "a session without an engine");
	strlcpy(agg_event(s.agg, 0)->name, "cycles", sizeof(agg_event(s.agg, 0)->name));
	strlcpy(agg_event(s.agg, 1)->name, "instructions", sizeof(agg_event(s.agg, 1)->name));

	apply(&s, -1, comm_rec(&sy, 100, 100, "alpha"));
	apply(&s, -1, comm_rec(&sy, 100, 101, "alpha-worker"));
	for (int i = 0; i < 3; i++)
		apply(&s, 0, synth_sample(&sy, 7, 0xffffffff81001010ull, 100, 100, 10, 0, 1000,
					  PERF_RECORD_MISC_KERNEL));
	apply(&s, 0, synth_sample(&sy, 7, 0xffffffff81001010ull, 100, 101, 11, 1, 1000, PERF_RECORD_MISC_KERNEL));
	apply(&s, 1, synth_sample(&sy, 8, 0xffffffff81001010ull, 100, 100, 12, 0, 1500, PERF_RECORD_MISC_KERNEL));
	apply(&s, 0, synth_sample(&sy, 7, 0x1234, 200, 200, 13, 1, 1000, PERF_RECORD_MISC_USER));
	apply(&s, -1, exit_rec(&sy, 200, 200));

	out = dump(&s, DUMP_JSON, true);
	CHECK(out && strstr(out, "\"symbol\":\"do_one_thing\",\"dso\":\"[kernel.kallsyms]\",\"kernel\":true,\"samples\":4"),
	      "JSON: kernel samples resolved through the session");
	CHECK(out && strstr(out, "{\"pid\":100,\"comm\":\"alpha\",\"samples\":4,"), "JSON: the task named by its COMM");
	CHECK(out && strstr(out, "{\"pid\":100,\"tid\":101,\"comm\":\"alpha-worker\",\"samples\":1,"),
	      "JSON: --threads adds the thread row with the thread's own name");
	CHECK(out && strstr(out, "{\"pid\":200,\"comm\":\"?\",\"samples\":1,\"share\":20.00,\"threads\":1,\"exited\":true"),
	      "JSON: an unnamed task that exited");
	CHECK(out && strstr(out, "\"stats\":{\"records\":0"), "JSON: --stats without an engine");
	free(out);

	out = dump(&s, DUMP_CSV, true);
	CHECK(out && strncmp(out, "time,iteration,table,rank,name,dso,kernel,pid,samples,share,lost,throttled,cycles,instructions,tid\n",
			     99) == 0, "CSV: the header ends in tid with --threads");
	CHECK(lines(out, "1700000000.000,1,thread,") == 3, "CSV: thread rows too (the text and CSV dumps had none)");
	CHECK(out && strstr(out, ",thread,2,alpha-worker,,,100,1,20.00,0,0,1000,0,101\n"), "CSV: a thread row with its tid");
	free(out);

	out = dump(&s, DUMP_TEXT, true);
	CHECK(out && strstr(out, "[k] do_one_thing\n"), "text: the symbol line");
	CHECK(out && strstr(out, "      PID      TID  COMM") && strstr(out, "      100      101  alpha-worker"),
	      "text: the thread table with --threads");
	free(out);
	out = dump(&s, DUMP_TEXT, false);
	CHECK(out && strstr(out, "      PID      TID  COMM") == NULL, "text: no thread table without --threads");
	free(out);

	/* Focus mode: exact counters handed to the agg win over the estimate. */
	{
		const char *names[] = { "cycles", "instructions" };
		struct counter_row r = { .pid = 100, .v = {
			{ .value = 1000, .total = 1000, .state = COUNTER_OK },
			{ .value = 3000, .total = 3000, .state = COUNTER_OK } } };
		struct counter_row quiet = { .pid = 300, .v = {
			{ .value = 10, .total = 10, .state = COUNTER_OK },
			{ .value = 10, .total = 10, .state = COUNTER_OK } } };

		agg_counters_begin(s.agg, names, 2);
		agg_counters_add(s.agg, &r, "alpha");
		agg_counters_add(s.agg, &quiet, "quiet");
		out = dump(&s, DUMP_JSON, false);
		CHECK(out && strstr(out, "\"ratios\":{\"ipc\":{\"value\":3.000,\"estimate\":false}}"),
		      "JSON: exact IPC from the counters, not the sampled ~0.38");
		CHECK(out && strstr(out, "{\"pid\":300,\"comm\":\"quiet\",\"samples\":0,\"share\":0.00,\"counters\":"),
		      "JSON: a counted task without samples has its row");
		free(out);
		out = dump(&s, DUMP_TEXT, false);
		if (getenv("SHOW"))
			puts(out);
		CHECK(out && strstr(out, "Counters  PID 100 (alpha)") && strstr(out, "IPC 3.00"),
		      "text: the counters section and its exact IPC");
		free(out);
	}
	/* -g: a kernel callchain through the session into self, children, callers. */
	{
		struct record_layout lay = { .extra = PERF_SAMPLE_CALLCHAIN };
		struct dump_meta m = { .time = 1, .interval = 1, .iteration = 2, .freq = 4000, .children = true };
		struct record r;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		for (int i = 0; i < 4; i++) {
			synth_sample(&sy, 7, 0xffffffff81001010ull, 100, 100, 20, 0, 1000, PERF_RECORD_MISC_KERNEL);
			synth_u64(&sy, 4);
			synth_u64(&sy, PERF_CONTEXT_KERNEL);
			synth_u64(&sy, 0xffffffff81001010ull);      /* do_one_thing, where it was */
			synth_u64(&sy, i < 3 ? 0xffffffff81002011ull   /* returns into weak_thing */
				       : 0xffffffff81000011ull);      /* or into _stext */
			synth_u64(&sy, 0xffffffff81000001ull);      /* _stext + 1: _stext at -1 */
			if (record_decode_with(synth_done(&sy), &lay, &r) == RECORD_OK)
				session_record(&s, 0, &r);
		}
		agg_roll(s.agg, 0);
		for (int i = 0; i < 4; i++) {
			synth_sample(&sy, 7, 0xffffffff81001010ull, 100, 100, 20, 0, 1000, PERF_RECORD_MISC_KERNEL);
			synth_u64(&sy, 3);
			synth_u64(&sy, PERF_CONTEXT_KERNEL);
			synth_u64(&sy, 0xffffffff81001010ull);
			synth_u64(&sy, i < 3 ? 0xffffffff81002011ull : 0xffffffff81000011ull);
			if (record_decode_with(synth_done(&sy), &lay, &r) == RECORD_OK)
				session_record(&s, 0, &r);
		}
		f = open_memstream(&buf, &len);
		if (f) {
			dump_interval(f, DUMP_JSON, &s, &m, 10);
			fclose(f);
		}
		CHECK(buf && strstr(buf, "\"symbol\":\"do_one_thing\"") &&
		      strstr(buf, "\"self\":4,\"children\":4,\"children_share\":100.00"),
		      "JSON -g: the leaf's self and children");
		CHECK(buf && strstr(buf, "\"callers\":[{\"symbol\":\"weak_thing\",\"dso\":\"[kernel.kallsyms]\",\"samples\":3},"
				   "{\"symbol\":\"_stext\",\"dso\":\"[kernel.kallsyms]\",\"samples\":1}]"),
		      "JSON -g: callers at return address - 1, most first");
		CHECK(buf && strstr(buf, "\"symbol\":\"weak_thing\",\"dso\":\"[kernel.kallsyms]\",\"kernel\":true,"
				   "\"samples\":0,\"share\":0.00,\"self\":0,\"children\":3"),
		      "JSON -g --children: a caller without self samples has its row");
		free(buf);
	}
	agg_free(s.agg);
	symbols_free(s.syms);
	flat_memo_after_mmap(&so);
	threads_are_the_process(&so);
	return check_done();
}
