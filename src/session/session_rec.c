/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_rec: the records of a run into perf.data (--record). Every
 * record the engine decodes goes out as the kernel wrote it, flat samples
 * too (the raw tap), so `perf report` counts what perftop counted. What
 * perf record synthesizes at its start (every process's COMM and maps)
 * is synthesized here at a task's first sample instead, before it: a
 * process is "known" once its maps are in the file (synthesized, exec'd
 * while recording, or forked from a known one), a thread once its COMM
 * is. The build-ids of the files mapped executable while recording go
 * into the BUILD_ID feature at the end (a superset of the files with
 * samples). */
#include "session_rec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "htab.h"
#include "pdsynth.h"
#include "pdwrite.h"
#include "record.h"
#include "symbols_bid.h"

struct rec_file {
	char *path;
	uint8_t bid[SYMBOLS_BID_MAX];
	uint8_t len;   /* 0: read it at the end */
};

struct session_rec {
	struct pdwrite *w;
	int fd;
	bool pipe;
	const char *path;
	size_t id_size;
	struct htab pids, tids;   /* known processes (maps) and threads (comm): key -> 1 */
	struct htab files;        /* hash of the path -> index + 1 */
	struct rec_file *file;
	size_t nfiles, cap;
	bool noted;
	char note[256];
	/* -g (frame pointers) samples carry a small user stack copy and the
	 * registers for the leaf fix (leaffix.h): cut off, as perf record -g
	 * keeps none. cut_at: the callchain's nr, from the record's start. */
	bool cut_stack;
	size_t cut_at;
	unsigned char cut[65536];
};

/* A sample's pid and tid: after IDENTIFIER and IP (RECORD_SAMPLE_TYPE). */
#define SAMPLE_PID_OFF (sizeof(struct perf_event_header) + 16)

static void note_file(struct session_rec *r, const char *path, const uint8_t *bid, size_t len)
{
	uint64_t key = util_hash64(path, strlen(path), 0);
	struct rec_file *f;

	if (path[0] == '[' || strncmp(path, "//", 2) == 0)
		return; /* [vdso], //anon: no file to identify */
	for (size_t i = htab_first(&r->files, key); i != SIZE_MAX; i = htab_next(&r->files, key, i)) {
		f = &r->file[r->files.tab[i].val - 1];
		if (strcmp(f->path, path) == 0) {
			if (len && f->len == 0) {
				memcpy(f->bid, bid, len);
				f->len = (uint8_t)len;
			}
			return;
		}
	}
	if (r->nfiles == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct rec_file *p = reallocarray(r->file, cap, sizeof(*p));

		if (p == NULL)
			return;
		r->file = p;
		r->cap = cap;
	}
	f = &r->file[r->nfiles];
	memset(f, 0, sizeof(*f));
	if ((f->path = strdup(path)) == NULL || htab_put(&r->files, key, r->nfiles + 1)) {
		free(f->path);
		return;
	}
	if (len && len <= SYMBOLS_BID_MAX) {
		memcpy(f->bid, bid, len);
		f->len = (uint8_t)len;
	}
	r->nfiles++;
}

/* The stop's one line, once: in the notices (screen, dump). */
static void check_stopped(struct session *s, struct session_rec *r)
{
	struct pdwrite_stats st;

	if (r->noted)
		return;
	pdwrite_stats(r->w, &st);
	if (!st.stopped)
		return;
	r->noted = true;
	if (st.error == -EFBIG)
		snprintf(r->note, sizeof(r->note), "recording stopped at --max-size (%" PRIu64 " bytes): %s is whole up to there",
			 s->opts->max_size, r->path);
	else
		snprintf(r->note, sizeof(r->note), "recording stopped: %s: %s (the view goes on)", r->path,
			 strerror(-st.error));
	if (s->nnotices < SESSION_NOTICES)
		s->notices[s->nnotices++] = r->note;
}

/* Into the file; MMAP2s of code noted for the build-ids. */
static void take(struct session_rec *r, const struct perf_event_header *hdr)
{
	if (hdr->type == PERF_RECORD_MMAP2) {
		struct record rec;

		if (record_decode(hdr, &rec) == RECORD_OK && (rec.mmap.prot & PROT_EXEC))
			note_file(r, rec.mmap.filename, rec.mmap.build_id,
				  rec.mmap.build_id ? rec.mmap.build_id_size : 0);
	}
	pdwrite_record(r->w, hdr);
}

static void emit(void *arg, const struct perf_event_header *hdr)
{
	take(arg, hdr);
}

static void mark(struct htab *h, uint32_t key)
{
	if (!htab_get(h, key))
		(void)htab_put(h, key, 1);
}

/* A task's first sample: what perf record would have synthesized at its
 * start, now, before the sample. */
static void first_sight(struct session_rec *r, uint32_t pid, uint32_t tid)
{
	if (!htab_get(&r->pids, pid)) {
		mark(&r->pids, pid);
		mark(&r->tids, pid);
		if (pid != 0 && pid != UINT32_MAX) {
			pdsynth_comm("/proc", (pid_t)pid, (pid_t)pid, r->id_size, emit, r);
			pdsynth_maps("/proc", (pid_t)pid, r->id_size, emit, r);
		}
	}
	if (!htab_get(&r->tids, tid)) {
		mark(&r->tids, tid);
		if (pid != 0 && pid != UINT32_MAX)
			pdsynth_comm("/proc", (pid_t)pid, (pid_t)tid, r->id_size, emit, r);
	}
}

/* What a tracking record tells of the tasks known. */
static void track(struct session_rec *r, const struct perf_event_header *hdr)
{
	struct record rec;

	if (record_decode(hdr, &rec) != RECORD_OK)
		return;
	if (hdr->type == PERF_RECORD_COMM) {
		mark(&r->tids, rec.comm.tid);
		if (hdr->misc & PERF_RECORD_MISC_COMM_EXEC)
			mark(&r->pids, rec.comm.pid);
	} else if (hdr->type == PERF_RECORD_FORK) {
		/* A child has its parent's maps and comm, if the file has them. */
		if (htab_get(&r->pids, rec.task.ppid))
			mark(&r->pids, rec.task.pid);
		if (htab_get(&r->tids, rec.task.ptid))
			mark(&r->tids, rec.task.tid);
	}
}

/* The sample up to its callchain's end (the registers and stack after it
 * dropped), its header's size patched. */
static const struct perf_event_header *cut_stack(struct session_rec *r, const struct perf_event_header *hdr)
{
	struct perf_event_header *h = (struct perf_event_header *)(void *)r->cut;
	uint64_t nr;
	size_t end;

	if (hdr->size < r->cut_at + 8)
		return hdr;
	memcpy(&nr, (const unsigned char *)hdr + r->cut_at, 8);
	end = r->cut_at + 8 + 8 * (size_t)nr;
	if (nr > 0xffff || end > hdr->size)
		return hdr;
	memcpy(r->cut, hdr, end);
	h->size = (uint16_t)end;
	return h;
}

void session_rec_raw(void *arg, int ev, const struct perf_event_header *hdr)
{
	struct session *s = arg;
	struct session_rec *r = s->rec;

	(void)ev;
	if (hdr->type == PERF_RECORD_SAMPLE && hdr->size >= SAMPLE_PID_OFF + 8) {
		uint32_t pt[2];

		memcpy(pt, (const unsigned char *)hdr + SAMPLE_PID_OFF, sizeof(pt));
		if (!htab_get(&r->tids, pt[1]) || !htab_get(&r->pids, pt[0]))
			first_sight(r, pt[0], pt[1]);
		if (r->cut_stack)
			hdr = cut_stack(r, hdr);
	} else if (hdr->type == PERF_RECORD_COMM || hdr->type == PERF_RECORD_FORK) {
		track(r, hdr);
	}
	take(r, hdr);
	if (!r->noted)
		check_stopped(s, r);
}

/* The engine's events and their ids: sampling events first, the tracking
 * event last (as perf record's dummy). */
static int add_attrs(struct session *s, struct session_rec *r)
{
	size_t nev = engine_nevents(s->eng), cap = 0, n;
	uint64_t *ids = NULL;
	int rc = 0;

	for (size_t i = 0; i <= nev && rc == 0; i++) {
		int ev = i < nev ? (int)i : -1;
		struct perf_event_attr attr;

		n = engine_event_ids(s->eng, ev, NULL, 0);
		if (n > cap) {
			uint64_t *p = reallocarray(ids, n, sizeof(*p));

			if (p == NULL) {
				rc = -ENOMEM;
				break;
			}
			ids = p;
			cap = n;
		}
		n = engine_event_ids(s->eng, ev, ids, cap);
		engine_event_attr(s->eng, ev, &attr);
		if (i == 0)
			r->id_size = pdsynth_id_size(attr.sample_type);
		if (ev >= 0 && s->opts->cg.mode == CALLGRAPH_FP && (attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    (attr.sample_type & PERF_SAMPLE_STACK_USER)) {
			uint64_t before = attr.sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
							      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
							      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);

			r->cut_stack = true;
			r->cut_at = sizeof(struct perf_event_header) + 8 * util_popcount64(before);
			attr.sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
			attr.sample_regs_user = 0;
			attr.sample_stack_user = 0;
		}
		rc = pdwrite_attr(r->w, i, &attr, ev >= 0 ? engine_event(s->eng, (size_t)ev)->name : "dummy:u", ids, n);
	}
	free(ids);
	return rc;
}

static void rec_free(struct session_rec *r)
{
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->file[i].path);
	free(r->file);
	htab_free(&r->pids);
	htab_free(&r->tids);
	htab_free(&r->files);
	if (r->fd > STDERR_FILENO)
		close(r->fd);
	free(r);
}

int session_rec_open(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->opts;
	struct pdwrite_info info = {
		.version = "perftop " PERFTOP_VERSION, .argv = (const char *const *)o->argv, .argc = o->argc,
		.clockid = CLOCK_MONOTONIC, .proc_root = "/proc",
	};
	struct session_rec *r;
	int rc;

	if (o->record == NULL)
		return 0;
	if ((r = calloc(1, sizeof(*r))) == NULL || htab_init(&r->pids, 256) || htab_init(&r->tids, 256) ||
	    htab_init(&r->files, 256)) {
		if (r)
			rec_free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->path = o->record;
	r->pipe = strcmp(o->record, "-") == 0;
	r->fd = r->pipe ? STDOUT_FILENO : pdwrite_create(o->record);
	if (r->fd < 0) {
		rc = r->fd;
		r->fd = -1;
		rec_free(r);
		if (rc == -ELOOP)
			snprintf(err, errlen, "--record %s: it is a symbolic link; perftop writes no file through one (give another name)",
				 o->record);
		else if (rc == -EEXIST)
			snprintf(err, errlen, "--record %s: it is there and not a regular file (give another name)", o->record);
		else
			snprintf(err, errlen, "--record %s: cannot create it: %s", o->record, strerror(-rc));
		return rc;
	}
	if ((rc = pdwrite_open(&r->w, r->fd, r->pipe, o->max_size, &info)) != 0 || (rc = add_attrs(s, r)) != 0 ||
	    (rc = pdwrite_begin(r->w)) != 0) {
		snprintf(err, errlen, "--record %s: cannot write it: %s", o->record, strerror(-rc));
		pdwrite_close(r->w, NULL);
		rec_free(r);
		return rc;
	}
	s->rec = r;
	/* Pid 0 is the idle task: no /proc of its own (perf knows it). */
	mark(&r->pids, 0);
	mark(&r->tids, 0);
	pdsynth_kernel("/proc", r->id_size, emit, r);
	return 0;
}

void session_rec_engine(struct session *s)
{
	struct session_rec *r = s->rec;

	if (r == NULL)
		return;
	(void)add_attrs(s, r);
	if (r->noted && s->nnotices < SESSION_NOTICES)
		s->notices[s->nnotices++] = r->note;
}

void session_rec_round(struct session *s)
{
	if (s->rec) {
		pdwrite_round(s->rec->w);
		check_stopped(s, s->rec);
	}
}

/* The build-ids, the kernel's first. */
static void build_ids(struct session_rec *r)
{
	uint8_t bid[SYMBOLS_BID_MAX];
	int n = symbols_bid_kernel(bid);

	if (n > 0)
		pdwrite_build_id(r->w, "[kernel.kallsyms]", bid, (size_t)n, true);
	for (size_t i = 0; i < r->nfiles; i++) {
		struct rec_file *f = &r->file[i];

		if (f->len == 0 && (n = symbols_bid_file(f->path, bid)) > 0) {
			memcpy(f->bid, bid, (size_t)n);
			f->len = (uint8_t)n;
		}
		if (f->len)
			pdwrite_build_id(r->w, f->path, f->bid, f->len, false);
	}
}

int session_rec_finish(struct session *s, char *msg, size_t len)
{
	struct session_rec *r = s->rec;
	struct pdwrite_stats st;
	int rc;

	if (msg && len)
		msg[0] = '\0';
	if (r == NULL)
		return 0;
	s->rec = NULL;
	/* The stop's notice goes with r. */
	for (size_t i = 0; i < s->nnotices; i++)
		if (s->notices[i] == r->note) {
			memmove(&s->notices[i], &s->notices[i + 1], (s->nnotices - i - 1) * sizeof(s->notices[0]));
			s->nnotices--;
			break;
		}
	build_ids(r);
	rc = pdwrite_close(r->w, &st);
	if (rc == 0 && st.error && st.error != -EFBIG)
		rc = st.error; /* whole, but not all of the run: a failure */
	if (msg && len) {
		const char *to = r->pipe ? "stdout" : r->path;

		if (rc && st.error == 0)
			snprintf(msg, len, "recording to %s: cannot complete the file: %s", to, strerror(-rc));
		else if (rc)
			snprintf(msg, len, "recorded %" PRIu64 " samples (%.1f MB) to %s, then stopped: %s (the file holds what came before)",
				 st.written, (double)st.bytes / 1e6, to, strerror(-st.error));
		else
			snprintf(msg, len, "recorded %" PRIu64 " samples (%.1f MB) to %s%s", st.written,
				 (double)st.bytes / 1e6, to, st.error == -EFBIG ? ", stopped at --max-size" : "");
	}
	rec_free(r);
	return rc;
}

void session_rec_stats(const struct session *s, const char **path, uint64_t *bytes, bool *stopped)
{
	struct pdwrite_stats st;

	*path = s->rec ? s->rec->path : NULL;
	pdwrite_stats(s->rec ? s->rec->w : NULL, &st);
	*bytes = st.bytes;
	*stopped = st.stopped;
}
