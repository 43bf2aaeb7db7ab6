/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdwrite: writes perf's perf.data format (src/perfdata/pdformat.h), to a
 * file (header, data, features, attrs, sized at the end) or to a pipe
 * (perf's pipe header and HEADER_ATTR/HEADER_FEATURE records), for
 * `perf report`, `perf script` and hotspot. Records go through a buffer;
 * the writer stops (and says why) at its size bound or on a write error,
 * and what it wrote stays a whole file. Returns 0 or -errno, never prints. */
#ifndef PERFTOP_PDWRITE_H
#define PERFTOP_PDWRITE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pdwrite;

/* What the feature sections say about the run. NULL fields: read here
 * (uname, /proc/cpuinfo, /proc/meminfo, sysconf). */
struct pdwrite_info {
	const char *version;      /* "perftop 1.2" */
	const char *const *argv;  /* the command line */
	int argc;
	clockid_t clockid;        /* the records' clock */
	const char *proc_root;    /* "/proc" unless a test says otherwise */
};

/* Creates path for writing: 0600, never through a symlink, never over
 * anything but a regular file, which becomes path.old first (as perf
 * record does). -ELOOP for a symlink, -EEXIST for another kind of file. */
int pdwrite_create(const char *path);

/* On fd (a new file, or a pipe/stdout when pipe). max_size: stop at that
 * many bytes (0: no bound). */
int pdwrite_open(struct pdwrite **out, int fd, bool pipe, uint64_t max_size, const struct pdwrite_info *info);

/* An event: its attr (the sample format of every record it wrote), its
 * name and its ids. Added again with the same index: more ids (a re-open);
 * in a pipe they go out as another HEADER_ATTR. Before its records. */
int pdwrite_attr(struct pdwrite *w, size_t idx, const struct perf_event_attr *attr, const char *name,
		 const uint64_t *ids, size_t nids);

/* Pipe: the attrs and the features known at the start go out; a file
 * writes them at the end. Before the first record. */
int pdwrite_begin(struct pdwrite *w);

/* One record, as the kernel wrote it (or synthesized alike). Nothing once
 * stopped. Samples (PERF_RECORD_SAMPLE) set the run's first and last
 * sample time. */
int pdwrite_record(struct pdwrite *w, const struct perf_event_header *hdr);
/* A FINISHED_ROUND marker: nothing written after is older than what the
 * marker before this one closed; the buffer goes out (a pipe's reader
 * sees the round). */
int pdwrite_round(struct pdwrite *w);

/* A file's build-id for the BUILD_ID feature (a pipe: a HEADER_BUILD_ID
 * record at the end). kernel: the kernel's ("[kernel.kallsyms]"). */
int pdwrite_build_id(struct pdwrite *w, const char *path, const uint8_t *id, size_t len, bool kernel);

/* Ends the file: the buffer, the features, the attrs, the header's sizes;
 * st (if not NULL) gets the run's final figures (a stop, and why). The fd
 * is the caller's. 0 when the file is whole (perf reads it: what came
 * before a stop), else -errno (the header could not be written). */
struct pdwrite_stats;
int pdwrite_close(struct pdwrite *w, struct pdwrite_stats *st);

struct pdwrite_stats {
	uint64_t bytes;       /* written (or buffered) so far */
	uint64_t records, samples;
	uint64_t written;     /* of the samples, those in the file (or its buffer) */
	bool stopped;         /* nothing more is written */
	int error;            /* why: -EFBIG (max_size), -ENOSPC, ... 0 */
};
void pdwrite_stats(const struct pdwrite *w, struct pdwrite_stats *st);

#endif
