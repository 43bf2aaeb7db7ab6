/* symbols: which function an address falls in, for the kernel and for every
 * process we know of. Owns the process table (pid -> comm, maps) and the
 * per-file symbol tables (shared between processes mapping the same file). */
#ifndef PERFTOP_SYMBOLS_H
#define PERFTOP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbols;

struct symbols_opts {
	const char *proc_root;     /* "/proc" unless a test says otherwise */
	const char *kallsyms_path; /* "/proc/kallsyms" unless a test says otherwise */
};

/* What an address resolved to. Strings belong to the symbols object and stay
 * valid until the next symbols_reap() (which may evict tables; see
 * symbols_set_table_limit) or symbols_free(); key is the same for every address of the same
 * symbol (and for every unresolved address of the same DSO), different otherwise. */
struct sym_result {
	const char *sym;   /* "main", "[unknown]" */
	const char *dso;   /* "/usr/bin/foo", "[kernel.kallsyms]", "[unknown]" */
	uint64_t key;
	bool kernel;
	const char *comm;         /* the process's name ("swapper" for pid 0), or NULL */
	const char *thread_comm;  /* the thread's, or NULL (then the process's) */
};

struct symbols *symbols_new(const struct symbols_opts *opts);
void symbols_free(struct symbols *s);

/* Reads kallsyms. Returns 0; when addresses are hidden (kptr_restrict) it
 * returns 0, resolves kernel samples to [kernel.kallsyms]/[unknown] and sets
 * a notice (see symbols_notice). -errno on failure to read at all. */
int symbols_load_kernel(struct symbols *s);

/* One line for the user, or NULL: e.g. the kptr_restrict notice. */
const char *symbols_notice(const struct symbols *s);

/* Processes present before sampling began: /proc/PID/maps and comm.
 * pid < 0 means every process. Missing processes are skipped quietly. */
int symbols_synthesize(struct symbols *s, pid_t pid);

/* Mirrors of the ring's records. */
void symbols_mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
		  uint32_t prot, const char *filename);
/* An MMAP2 record that carries the file's build-id instead of its device
 * and inode (attr.build_id, misc & PERF_RECORD_MISC_MMAP_BUILD_ID): the DSO
 * is keyed by the build-id, and a file at the path with another build-id
 * (replaced since) is not taken for it. build_id_len 0: as symbols_mmap. */
void symbols_mmap_build_id(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, const uint8_t *build_id, size_t build_id_len,
			   uint32_t prot, const char *filename);
void symbols_comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec);
void symbols_fork(struct symbols *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);
void symbols_exit(struct symbols *s, pid_t pid, pid_t tid);

/* Frees processes that exited before the previous call: late samples of an
 * interval still resolve, memory does not grow with processes ever seen;
 * evicts symbol tables over the bound. Call once per interval. */
void symbols_reap(struct symbols *s);

/* Hot path: no allocation once the address's DSO table is loaded. kernel says
 * the sample's cpumode was kernel (or hypervisor). */
void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
		     struct sym_result *out);

/* comm of a process we know, or NULL. */
const char *symbols_comm_of(struct symbols *s, pid_t pid);

struct symbols_stats {
	size_t processes, dsos, tables, symbols, bytes;
	size_t table_bytes;    /* of the ELF tables alone (bytes counts them too) */
	size_t table_limit;    /* their bound (symbols_set_table_limit) */
	size_t evicted;        /* tables dropped for it, ever */
};
void symbols_stats(const struct symbols *s, struct symbols_stats *st);

/* Where separate debug files live ("/usr/lib/debug"): build-id paths
 * (DIR/.build-id/xx/yyyy.debug) and debuglink mirrors (DIR/usr/bin/foo.debug).
 * 0 or -ENOMEM. Before the first resolve. */
int symbols_set_debug_root(struct symbols *s, const char *debug_root);

/* Demangled C++ and Rust names (the default) or the raw ones. May be
 * switched at any time: what resolves next uses the new form, under
 * other keys than the old form's. */
void symbols_set_demangle(struct symbols *s, bool on);
bool symbols_demangle(const struct symbols *s);

/* The bound on ELF symbol-table bytes (default SYMBOLS_TABLE_LIMIT): at
 * symbols_reap, tables no sample hit that interval are dropped, least
 * recently hit first, and read again if a sample needs them. Names handed
 * out before are then gone: callers copy them (agg does). */
#define SYMBOLS_TABLE_LIMIT ((size_t)256 << 20)
void symbols_set_table_limit(struct symbols *s, size_t bytes);

/* Where JITs write perf-PID.map ("/tmp"); tests point it elsewhere. */
int symbols_set_jit_dir(struct symbols *s, const char *dir);

#endif
