/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pprof: a profile in the pprof format (profile.proto, gzip'd) built from
 * per-symbol counts. Our own protobuf encoder: the message is flat and
 * write-only, a few varint, length-delimited and packed fields, so
 * protobuf-c's generated code and runtime would buy nothing. Pure. */
#ifndef PERFTOP_PPROF_H
#define PERFTOP_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pprof;

struct pprof_frame {
	const char *sym, *dso;
	const char *build_id;   /* hex, or NULL when unknown */
	/* The caller's name for this frame (agg's symbol key), 0: none. A
	 * frame seen before under its key is found by it alone, its strings
	 * not hashed again: the same key must always come with the same names. */
	uint64_t key;
};

struct pprof_meta {
	int64_t time_nanos, duration_nanos;
	int64_t period;         /* nanoseconds between samples */
	/* The second sample type's name (its unit: nanoseconds); NULL: "cpu".
	 * --off-cpu's profile is "off_cpu": blocked time. */
	const char *time_type;
};

struct pprof *pprof_new(void);
void pprof_free(struct pprof *p);

/* One stack, leaf first (one frame, or whole stacks with call graphs), of the
 * tasks named comm (a "comm" label; NULL or "": none), with its sample count
 * and CPU nanoseconds. Same stacks of the same comm add up. 0 or -ENOMEM. */
int pprof_add(struct pprof *p, const struct pprof_frame *stack, size_t depth, const char *comm,
	      uint64_t samples, uint64_t nanos);
/* The same for a one-frame stack whose frame (by its key) and comm were
 * added before: the names are not needed (nor read). 0 added, 1 not known
 * (pprof_add then). */
int pprof_add_known(struct pprof *p, uint64_t key, const char *comm, uint64_t samples, uint64_t nanos);
/* p emptied of its samples for the next window, keeping the names it learnt
 * (strings, mappings, functions, frame keys): a symbol of an earlier window
 * is then found by its key, not interned again; the encoding leaves out
 * what this window's samples do not use. Names grown far beyond what a
 * window uses are dropped (a fresh profile). NULL out of memory (p freed). */
struct pprof *pprof_recycle(struct pprof *p);
uint64_t pprof_samples(const struct pprof *p);

/* The serialized Profile message (not compressed). 0 or -ENOMEM. */
int pprof_encode(const struct pprof *p, const struct pprof_meta *m, uint8_t **out, size_t *len);
/* gzip of a buffer, as pprof files and /debug/pprof/profile are. */
int pprof_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen);

/* The gzip'd profile in one call. */
int pprof_build(const struct pprof *p, const struct pprof_meta *m, uint8_t **out, size_t *len);

#endif
