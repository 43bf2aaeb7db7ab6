/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdread: a perf.data file (perf record's, perf 5.x and 6.x, or perftop's
 * own) read back: its header, events and features, then its records one at
 * a time in the order perf report applies them (time order within the
 * rounds FINISHED_ROUND marks), decoded into struct record. A file or a
 * pipe ("-": perf's pipe format on stdin). Nothing is printed: errors are
 * one line naming the offset and what was wrong. */
#ifndef PERFTOP_PDREAD_H
#define PERFTOP_PDREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct pdread;

#define PDREAD_NAME_MAX 64
/* Sampling events a file may have (agg's AGG_MAX_EVENTS). */
#define PDREAD_MAX_EVENTS 16

/* One sampling event of the file (a dummy, tracking-only event is none). */
struct pdread_event {
	char name[PDREAD_NAME_MAX];   /* event_desc's, else made from the attr */
	struct perf_event_attr attr;  /* as recorded (size: ours) */
};

/* A file the recording names with its build-id (the build-id feature). */
struct pdread_buildid {
	const char *path;             /* as recorded; "[kernel.kallsyms]" for the kernel */
	uint8_t id[20];
	uint8_t len;
	bool kernel;                  /* misc says kernel (the kernel or a module) */
	int32_t pid;                  /* -1: the host's */
};

/* What the feature sections said (zero or "" when absent). */
struct pdread_info {
	char hostname[64], osrelease[64], version[32], arch[32], cpudesc[128], cpuid[64];
	char cmdline[512];
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	uint64_t clock_res_ns;        /* CLOCKID's: the clock's resolution; 0 when absent */
	uint64_t first_sample, last_sample;  /* SAMPLE_TIME's, ns; 0 when absent */
	uint32_t comp_type, comp_level;      /* COMPRESSED: 1 is zstd */
	bool pipe;                    /* perf's pipe format */
};

/* path "-": stdin. 0, or -errno with err the user's line ("FILE: at
 * offset N: what was wrong"). */
int pdread_open(struct pdread **out, const char *path, char *err, size_t errlen);
void pdread_close(struct pdread *r);

size_t pdread_nevents(const struct pdread *r);
const struct pdread_event *pdread_event(const struct pdread *r, size_t ev);
const struct pdread_info *pdread_info(const struct pdread *r);
/* The build-id feature's entries (a pipe: as far as read). */
size_t pdread_buildids(const struct pdread *r, const struct pdread_buildid **out);
/* Whether samples carry call chains (any event samples PERF_SAMPLE_CALLCHAIN). */
bool pdread_callchains(const struct pdread *r);

/* The next record: 1 with *rec (its pointers valid until the next call)
 * and *ev (the sampling event's index, -1 for a tracking event's or a
 * record no event claims); 0 at the end; -1 with err on a truncated or
 * corrupt file. Records perftop has no use for are skipped. */
int pdread_next(struct pdread *r, struct record *rec, int *ev, char *err, size_t errlen);

/* Records read so far (all kinds, before skipping), samples among them. */
void pdread_counts(const struct pdread *r, uint64_t *records, uint64_t *samples);

#endif
