/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdsynth: the records perf record synthesizes for what was there before
 * it started (perf's synthetic events), built from /proc: a task's COMM,
 * a process's executable maps as MMAP2, the kernel's map as perf writes
 * it (PERF_RECORD_MMAP "[kernel.kallsyms]_text", pid -1, pgoff _text).
 * Their sample_id trailer is zero (time 0: before everything, and id 0:
 * perf's mark of a synthesized record). Each record goes to emit. */
#ifndef PERFTOP_PDSYNTH_H
#define PERFTOP_PDSYNTH_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef void (*pdsynth_emit_fn)(void *arg, const struct perf_event_header *hdr);

/* The bytes of the sample_id trailer for this sample_type (sample_id_all). */
size_t pdsynth_id_size(uint64_t sample_type);

/* 0, or -errno (the task is gone: -ENOENT). */
int pdsynth_comm(const char *proc_root, pid_t pid, pid_t tid, size_t id_size, pdsynth_emit_fn emit, void *arg);
int pdsynth_maps(const char *proc_root, pid_t pid, size_t id_size, pdsynth_emit_fn emit, void *arg);
/* From PROC/kallsyms' _text (-ENOENT when addresses are hidden). */
int pdsynth_kernel(const char *proc_root, size_t id_size, pdsynth_emit_fn emit, void *arg);

#endif
