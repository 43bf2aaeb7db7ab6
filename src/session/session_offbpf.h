/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_offbpf: --off-cpu summed in the kernel (offbpf), its sums made
 * the spans' pending charges. session_offcpu owns it. */
#ifndef PERFTOP_SESSION_OFFBPF_H
#define PERFTOP_SESSION_OFFBPF_H

#include "session.h"
#include "offbpf.h"

struct session_offbpf;

/* Packed words (session_offcpu's: n, n addresses, the kernel mask) with
 * the scheduler's frames left out, into w; returns how many. */
typedef size_t (*session_offbpf_skip_fn)(struct session *s, const uint64_t *key, uint64_t *w);

/* Made once (NULL: out of memory); loaded when --off-cpu goes on. */
struct session_offbpf *session_offbpf_new(struct session *s, session_offbpf_skip_fn skip);
void session_offbpf_free(struct session_offbpf *ob);
/* The target to filter by; a loaded program is loaded again for it. 0,
 * or err and -errno (then it is not loaded). */
int session_offbpf_target(struct session_offbpf *ob, const struct session_target *t, char *err, size_t errlen);
/* Loads the program, its questions watched in s's engine: 0, or err and -errno. */
int session_offbpf_load(struct session_offbpf *ob, char *err, size_t errlen);
/* The caller drains first: what the kernel still holds goes with it. */
/* Attaches a loaded program (at load when s->running, else once it runs);
 * on failure it is unloaded. */
int session_offbpf_attach(struct session_offbpf *ob, char *err, size_t errlen);
void session_offbpf_unload(struct session_offbpf *ob);
bool session_offbpf_loaded(const struct session_offbpf *ob);
/* The kernel's sums since the last drain, into s->spans's pending charges. */
int session_offbpf_drain(struct session_offbpf *ob);
/* Process pid exec'd or exited: the sums the kernel holds for it charged
 * now, its leaf rules forgotten (not loaded: nothing). */
void session_offbpf_gone(struct session_offbpf *ob, pid_t pid);
/* False when not loaded. */
bool session_offbpf_stats(const struct session_offbpf *ob, struct offbpf_stats *st);

#endif
