/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bidfind: where a file of a replayed recording may be on this machine,
 * known by its build-id, as perf report looks: the path itself, perf's
 * build-id cache (~/.debug/.build-id/xx/yyyy/elf, ~/.debug/PATH/ID/elf),
 * then the separate debug file by build-id. The caller checks what it
 * opens against the build-id. Internal to symbols. */
#ifndef PERFTOP_BIDFIND_H
#define PERFTOP_BIDFIND_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define BIDFIND_MAX 4

struct elfsym;

/* Candidate paths, best first, into out; how many (at most BIDFIND_MAX).
 * cache_dir: perf's build-id cache ("$HOME/.debug"; NULL or "": none). */
size_t bidfind_paths(const char *cache_dir, const char *debug_root, const char *path, const uint8_t *bid,
		     size_t len, char out[][PATH_MAX]);
/* The kernel's symbols perf saved with the recording
 * (cache_dir/[kernel.kallsyms]/ID/kallsyms) into out: 0, or -ENOENT. */
int bidfind_kallsyms(const char *cache_dir, const uint8_t *bid, size_t len, char *out, size_t outlen);

/* The vDSO's symbols into *out (NULL when none): this machine's running
 * vDSO when its build-id is bid (len 0: any), else the copy perf record
 * kept in its build-id cache (cache_dir/[vdso]/ID/vdso) when that one's
 * is. 0, or -ENOENT. */
int bidfind_vdso(const char *cache_dir, const uint8_t *bid, size_t len, struct elfsym **out);

#endif
