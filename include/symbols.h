/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols: which function an address falls in, for the kernel and for every
 * process we know of. Owns the process table (pid -> comm, threads, maps;
 * src/proctab.c), the resolver with its cache (src/symbols.c) and the
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
	/* The task's names as the process table has them, so that the
	 * aggregation is handed them rather than asking: the process's
	 * ("swapper" for pid 0, NULL when unknown) and the thread's (its own,
	 * else the same pointer as comm). Valid until the next record of that
	 * task is applied or symbols_reap(): copy them. */
	const char *comm;
	const char *thread_comm;
	/* The DSO's GNU build-id (the kernel's from /sys/kernel/notes), NULL
	 * when unknown; valid as the strings are. */
	const uint8_t *build_id;
	size_t build_id_len;
	/* For annotation: where the symbol starts in its file's address space
	 * (ELF st_value as the symbol table has it, for the kernel and its
	 * modules the kernel address, for a JIT map the process address), its
	 * size in bytes (0 unknown) and the address's offset from its start
	 * (0 for an unresolved address). */
	uint64_t sym_start, sym_size, sym_off;
};

/* One MMAP or MMAP2 record: the mapping and what the file is. */
struct sym_map {
	pid_t pid;
	uint64_t start, len, pgoff;
	uint32_t prot;           /* PROT_*: only PROT_EXEC mappings hold code */
	const char *filename;
	/* The identity: MMAP2's build-id form (misc &
	 * PERF_RECORD_MISC_MMAP_BUILD_ID; build_id NULL otherwise), else its
	 * inode form (maj, min, ino, ino_generation); all 0 for a plain MMAP,
	 * known by path alone. */
	const uint8_t *build_id;
	size_t build_id_len;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
};

struct symbols *symbols_new(const struct symbols_opts *opts);
/* The user's cache directory: $XDG_CACHE_HOME/perftop, else
 * $HOME/.cache/perftop. 0 or -ENOENT when there is none. */
int symbols_cache_dir(char *buf, size_t len);
/* Keeps the parsed kernel symbols in dir between runs (see
 * src/symbols/kcache.h), keyed by the build-id in notes_path
 * ("/sys/kernel/notes" if NULL) and checked against modules_path
 * ("/proc/modules" if NULL). Without it kallsyms is read whole. Before
 * symbols_load_kernel; 0 or -ENOMEM. */
int symbols_set_kcache(struct symbols *s, const char *dir, const char *notes_path, const char *modules_path);
/* Keeps the parsed symbol tables of programs and libraries in dir between
 * runs (see src/symbols/symcache.h): a repeat start reads them whole instead
 * of parsing their ELF files. 0 or -ENOMEM. */
int symbols_set_symbol_cache(struct symbols *s, const char *dir);
void symbols_free(struct symbols *s);

/* Reads kallsyms, from the cache when it is of this kernel as we see it
 * (and writes the cache when it was not). Returns 0; when addresses are
 * hidden (kptr_restrict) it returns 0, resolves kernel samples to
 * [kernel.kallsyms]/[unknown] and sets a notice (see symbols_notice).
 * -errno on failure to read at all. A kernel sample that falls where no
 * symbol is known later (a module loaded since, a BPF program) has
 * kallsyms read whole again, at most once per interval and less often
 * while that finds nothing new. */
int symbols_load_kernel(struct symbols *s);

/* One line for the user, or NULL: e.g. the kptr_restrict notice. */
const char *symbols_notice(const struct symbols *s);

/* Processes present before sampling began: /proc/PID/maps and comm, each
 * file identified as a record would (its build-id, else dev+inode).
 * pid < 0 means every process. Missing processes are skipped quietly.
 * Not needed for a process first seen in a sample: its /proc is read then. */
int symbols_synthesize(struct symbols *s, pid_t pid);
/* What records said of every process may be out of date (tracking was
 * interrupted): each one's /proc is read again at its next sample. */
void symbols_stale(struct symbols *s);

/* Mirrors of the ring's records. A file is what its identity says, not its
 * path: a file replaced at its path is another DSO, and a process still
 * running the old one keeps the old one's names. */
void symbols_mmap(struct symbols *s, const struct sym_map *m);
/* The return values of symbols_comm and symbols_fork say that a new task
 * took over a pid (or tid) whose previous owner's exit was seen (even if
 * not yet reaped): its entry starts afresh (comm, threads, maps), nothing
 * inherited, and the caller should count it as a new task. A FORK, an exec
 * (exec: COMM with PERF_RECORD_MISC_COMM_EXEC) or a thread's COMM does it. */
bool symbols_comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec);
bool symbols_fork(struct symbols *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);
/* pid == tid: the process exited (and its threads); else the thread. */
void symbols_exit(struct symbols *s, pid_t pid, pid_t tid);

/* Frees processes that exited before the previous call: late samples of an
 * interval still resolve, memory does not grow with processes ever seen;
 * evicts symbol tables over the bound. Call once per interval. */
void symbols_reap(struct symbols *s);

/* Hot path: no allocation once the address's DSO table is loaded (and the
 * task is known). kernel says the sample's cpumode was kernel (or
 * hypervisor). tid names the thread whose thread_comm is wanted. */
void symbols_resolve_thread(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
			    struct sym_result *out);
/* The same for the main thread (thread_comm == comm). */
void symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
		     struct sym_result *out);
/* What a user or kernel address of pid resolves to may change only when
 * this tag does: pid's maps (an MMAP over them, an exec, a new owner, a
 * re-read of /proc: symbols_maps_gen), the kernel's tables, the demangling,
 * or a symbols_reap that evicts tables or comes before one that may (not
 * every interval). Never 0. For a memo in front of the
 * resolve (agg's flat memo): one load, no lookup. */
uint64_t symbols_tag(const struct symbols *s, pid_t pid);
/* symbols_resolve_thread, and the tag its result holds under: 0 when it
 * must not be remembered (code no file names, which a JIT map may name
 * later; a kernel address no table knows yet). */
uint64_t symbols_resolve_tagged(struct symbols *s, pid_t pid, pid_t tid, uint64_t ip, bool kernel,
				struct sym_result *out);

/* A whole callchain (-g), frames[0] the leaf: addrs[i] as it is to be
 * looked up (return addresses already less one), bit i of kmask (bit i%64
 * of word i/64) set when it is a kernel address. The leaf is resolved for
 * thread tid, the rest as symbols_resolve. A stack resolved before, while
 * symbols_tag(pid) is the same, comes from a cache: one lookup, not one per frame. Returns
 * out (n filled) or the cache's copy, which is valid until the next
 * symbols_* call; the task's names (comm, thread_comm) are set on the
 * leaf's result only. */
const struct sym_result *symbols_resolve_chain(struct symbols *s, pid_t pid, pid_t tid, const uint64_t *addrs,
					       const uint64_t *kmask, size_t n, struct sym_result *out);

/* The chain cache sized for per_sec samples a second with stacks: 1 024
 * slots up to SYMBOLS_CHAIN_RATE, doubled with each doubling of the rate
 * beyond it, 4 096 at most (each slot keeps its stack's frames: ~1 KiB,
 * SYMBOLS_CHAIN_BYTES in all at most).
 * A change empties the cache. */
#define SYMBOLS_CHAIN_RATE 8000
/* The frames the chain cache keeps, at most (bytes): a stack that would
 * grow them beyond is resolved each time instead. 1 024 slots of 128
 * frames were 9 MiB; 4 096 would be 36. */
#define SYMBOLS_CHAIN_BYTES ((size_t)8 << 20)
void symbols_set_chain_rate(struct symbols *s, uint64_t per_sec);

/* The file mapping pid's address addr as (its DSO's id, the file offset):
 * the id is never reused, and a replaced file is another DSO, so the pair
 * names the same bytes for as long as anyone holds it. The vDSO counts as
 * one file (one DSO for every process: *vdso true, the offset into its
 * image). False for no file (anonymous memory). Cheap: no path is built. */
bool symbols_map_dso(struct symbols *s, pid_t pid, uint64_t addr, uint32_t *dso_id, uint64_t *off, bool *vdso);
/* A tag of pid's maps: it changes whenever they change (or another pid's
 * sharing its slot do, or symbols_stale marks them for a re-read), never
 * 0, so what was worked out from the maps under one tag holds while the
 * tag does. */
uint32_t symbols_maps_gen(const struct symbols *s, pid_t pid);

/* The file mapping pid's address addr, as a path this process can open
 * (through /proc/PID/map_files for deleted files, else /proc/PID/root),
 * and the mapping; false when none or not a file. For the unwinder, which
 * reads the file's CFI. The vDSO, which has no file, is "[vdso]". */
bool symbols_map_at(struct symbols *s, pid_t pid, uint64_t addr, char *path, size_t len,
		    uint64_t *start, uint64_t *end, uint64_t *pgoff);

/* comm of a process we know, or NULL (as sym_result.comm: prefer that). */
const char *symbols_comm_of(struct symbols *s, pid_t pid);

struct symbols_stats {
	size_t processes, dsos, tables, symbols, bytes;
	size_t table_bytes;    /* of the ELF tables alone (bytes counts them too) */
	size_t table_limit;    /* their bound (symbols_set_table_limit) */
	size_t evicted;        /* tables dropped for it (or idle), ever */
	size_t evicted_idle;   /* of those, idle for SYMBOLS_TABLE_IDLE intervals */
	bool kernel_cached;    /* the kernel's symbols came from the cache */
	size_t tables_cached;  /* ELF tables read from the symbol cache, ever */
	size_t kernel_reloads; /* whole reads of kallsyms for unknown addresses */
	uint64_t chain_hits, chain_misses; /* symbols_resolve_chain: stacks from the cache, or not */
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
/* fn(arg) is called before work that may take long: a symbol table or a
 * JIT map read, a process's /proc read (NULL: nothing). */
void symbols_set_slow_hook(struct symbols *s, void (*fn)(void *), void *arg);
bool symbols_demangle(const struct symbols *s);

/* The bound on ELF symbol-table bytes (default SYMBOLS_TABLE_LIMIT): at
 * symbols_reap, tables no sample hit that interval are dropped, least
 * recently hit first, and read again if a sample needs them. Names handed
 * out before are then gone: callers copy them (agg does). */
#define SYMBOLS_TABLE_LIMIT ((size_t)64 << 20)
/* Tables no sample hit for this many intervals are dropped whatever their
 * size (every SYMBOLS_TABLE_IDLE/4 intervals, so the walk stays rare). */
#define SYMBOLS_TABLE_IDLE 32
void symbols_set_table_limit(struct symbols *s, size_t bytes);

/* Where JITs write perf-PID.map ("/tmp"); tests point it elsewhere. */
int symbols_set_jit_dir(struct symbols *s, const char *dir);

#endif
