/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symcache: the parsed symbol tables of user-space files kept on disk
 * between runs, so that a repeat start reads libc's or perf's table (a few
 * milliseconds of ELF parsing, sorting and naming each) in one read.
 *
 * An entry is keyed by what decides the table: the file's build-id and
 * size (a stripped copy shares the build-id, not the size), and, for a
 * table with .eh_frame_hdr starts, the label they are named by. What the
 * table also rests on outside the file (its separate debug file, present
 * or not) the caller sums up in a signature stored with it and checks
 * again on a hit. Entries are ours and 0600 in the cache directory
 * (cachedir.h); a file that fails any check is a miss. Internal to the
 * symbol modules. */
#ifndef PERFTOP_SYMCACHE_H
#define PERFTOP_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

#define SYMCACHE_DIR "syms"      /* in the cache directory */
#define SYMCACHE_MAX_BYTES ((size_t)64 << 20)   /* one entry */
#define SYMCACHE_KEEP_FILES 1024 /* entries kept, the newest */
#define SYMCACHE_PRUNE_EVERY 256  /* a run's stores between two prunes */

struct symcache_key {
	const uint8_t *build_id;
	size_t build_id_len;       /* 1..ELFSYM_BUILD_ID_MAX */
	uint64_t file_size;
	const char *label;         /* elfsym_load_fd_label's; NULL: none */
};

/* The entry's bytes for table t (not empty) under key k, with the
 * caller's signature deps. 0 or -errno; *buf is malloc'd. */
int symcache_encode(const struct elfsym *t, const struct symcache_key *k, uint64_t deps, void **buf,
		    size_t *len);
/* The table an entry's bytes hold, if they are whole, of key k, and a
 * table as elfsym's load makes one (ascending addresses, names inside the
 * arena); *deps gets the stored signature. map is an mmap'd region of the
 * entry: the table lies in it and unmaps it when freed (on failure the
 * caller keeps it). 0, -ESTALE (another key), -EBADMSG or -ENOMEM. */
int symcache_decode(struct elfsym **out, uint64_t *deps, void *map, size_t len, const struct symcache_key *k);
/* Sets an entry's checksum to what its bytes hold (for the fuzzer). */
void symcache_seal(void *buf, size_t len);

/* The entry of key k in the directory dfd (cachedir_sub's). 0 or -errno. */
int symcache_load(struct elfsym **out, uint64_t *deps, int dfd, const struct symcache_key *k);
/* Writes t's entry in dfd, replacing any of the same name. 0 or -errno. */
int symcache_store(const struct elfsym *t, int dfd, const struct symcache_key *k, uint64_t deps);
/* Removes the oldest entries of dfd (by mtime) beyond the newest keep: a
 * readdir and a stat each, so a caller does it once in a while. How many
 * went. */
size_t symcache_prune(int dfd, size_t keep);

#endif
