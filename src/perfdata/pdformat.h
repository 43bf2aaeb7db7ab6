/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdformat: perf's perf.data layout as perf 5.x/6.x write and read it (after
 * Linux's tools/perf/Documentation/perf.data-file-format.txt), shared by
 * the writer (pdwrite) and the reader (pdread). Everything is in this
 * machine's byte order; a file whose magic reads byte-swapped is the other.
 *
 * A file:   header | attrs (pdformat_file_attr each) | id arrays | data
 *           (records) | feature sections (one pdformat_section per set bit
 *           of header.features, lowest bit first, then their bodies).
 * A pipe:   pdformat_pipe_header, then records only: PDF_RECORD_HEADER_ATTR
 *           (attr and its ids), PDF_RECORD_HEADER_FEATURE (one feature each),
 *           then the kernel's records. */
#ifndef PERFTOP_PDFORMAT_H
#define PERFTOP_PDFORMAT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* "PERFILE2" read as a little-endian u64: the magic also tells byte order. */
#define PDF_MAGIC2 0x32454c4946524550ULL
#define PDF_MAGIC2_SWAPPED 0x50455246494c4532ULL

/* perf 6.1 refuses attrs longer than its own struct (PERF_ATTR_SIZE_VER7 =
 * 128 bytes): write at most that many bytes of an attr. */
#define PDF_ATTR_SIZE_MAX 128u

struct pdformat_section {
	uint64_t offset; /* from the start of the file */
	uint64_t size;
};

#define PDF_FEAT_BITS 256

struct pdformat_header {
	uint64_t magic;     /* PDF_MAGIC2 */
	uint64_t size;      /* sizeof(struct pdformat_header) */
	uint64_t attr_size; /* one attrs entry: attr.size + sizeof(struct pdformat_section) */
	struct pdformat_section attrs;
	struct pdformat_section data;
	struct pdformat_section event_types; /* unused: zero */
	uint64_t features[PDF_FEAT_BITS / 64]; /* bit n: feature n present */
};

/* One attrs entry on disk: the attr (attr_size - 16 bytes of it), then
 * where its u64 ids lie. As a struct for readers of our own width. */
struct pdformat_file_attr {
	struct perf_event_attr attr;
	struct pdformat_section ids;
};

struct pdformat_pipe_header {
	uint64_t magic; /* PDF_MAGIC2 */
	uint64_t size;  /* sizeof(struct pdformat_pipe_header): 16 */
};

/* Feature bits (perf's HEADER_*). */
enum {
	PDF_FEAT_RESERVED = 0,
	PDF_FEAT_TRACING_DATA = 1,
	PDF_FEAT_BUILD_ID = 2,
	PDF_FEAT_HOSTNAME = 3,
	PDF_FEAT_OSRELEASE = 4,
	PDF_FEAT_VERSION = 5,
	PDF_FEAT_ARCH = 6,
	PDF_FEAT_NRCPUS = 7,
	PDF_FEAT_CPUDESC = 8,
	PDF_FEAT_CPUID = 9,
	PDF_FEAT_TOTAL_MEM = 10,
	PDF_FEAT_CMDLINE = 11,
	PDF_FEAT_EVENT_DESC = 12,
	PDF_FEAT_CPU_TOPOLOGY = 13,
	PDF_FEAT_NUMA_TOPOLOGY = 14,
	PDF_FEAT_BRANCH_STACK = 15,
	PDF_FEAT_PMU_MAPPINGS = 16,
	PDF_FEAT_GROUP_DESC = 17,
	PDF_FEAT_AUXTRACE = 18,
	PDF_FEAT_STAT = 19,
	PDF_FEAT_CACHE = 20,
	PDF_FEAT_SAMPLE_TIME = 21,
	PDF_FEAT_SAMPLE_TOPOLOGY = 22,
	PDF_FEAT_CLOCKID = 23,
	PDF_FEAT_DIR_FORMAT = 24,
	PDF_FEAT_BPF_PROG_INFO = 25,
	PDF_FEAT_BPF_BTF = 26,
	PDF_FEAT_COMPRESSED = 27,
	PDF_FEAT_CPU_PMU_CAPS = 28,
	PDF_FEAT_CLOCK_DATA = 29,
	PDF_FEAT_HYBRID_TOPOLOGY = 30,
	PDF_FEAT_PMU_CAPS = 31,
	PDF_FEAT_LAST = 32,
};

/* Record types perf's tools add to the kernel's (perf's PERF_RECORD_*). */
enum {
	PDF_RECORD_USER_TYPE_START = 64,
	PDF_RECORD_HEADER_ATTR = 64,       /* header, attr (attr.size bytes), u64 ids[] */
	PDF_RECORD_HEADER_EVENT_TYPE = 65, /* deprecated */
	PDF_RECORD_HEADER_TRACING_DATA = 66,
	PDF_RECORD_HEADER_BUILD_ID = 67,   /* a pdformat_build_id */
	PDF_RECORD_FINISHED_ROUND = 68,    /* header only: nothing before is newer than what follows */
	PDF_RECORD_ID_INDEX = 69,
	PDF_RECORD_AUXTRACE_INFO = 70,
	PDF_RECORD_AUXTRACE = 71,
	PDF_RECORD_AUXTRACE_ERROR = 72,
	PDF_RECORD_THREAD_MAP = 73,
	PDF_RECORD_CPU_MAP = 74,
	PDF_RECORD_STAT_CONFIG = 75,
	PDF_RECORD_STAT = 76,
	PDF_RECORD_STAT_ROUND = 77,
	PDF_RECORD_EVENT_UPDATE = 78,
	PDF_RECORD_TIME_CONV = 79,
	PDF_RECORD_HEADER_FEATURE = 80,    /* header, u64 feature bit, the feature's body */
	PDF_RECORD_COMPRESSED = 81,        /* header, zstd frame(s) of records */
	PDF_RECORD_FINISHED_INIT = 82,
	PDF_RECORD_HEADER_MAX
};

/* HEADER_FEATURE's fixed part. */
struct pdformat_feature_event {
	struct perf_event_header header;
	uint64_t feat_id;
	/* the feature's body, as in a file's feature section */
};

/* Strings in features: u32 len (the padded length, NUL included), then
 * len bytes; perf pads to PDF_NAME_ALIGN. A string list: u32 nr, strings. */
#define PDF_NAME_ALIGN 64

static inline uint32_t pdformat_str_len(size_t slen)
{
	return (uint32_t)((slen + 1 + PDF_NAME_ALIGN - 1) & ~(size_t)(PDF_NAME_ALIGN - 1));
}

/* HEADER_BUILD_ID's body: a run of these, each header.size long (the
 * filename padded to PDF_NAME_ALIGN). misc: PERF_RECORD_MISC_KERNEL or
 * _USER, with PDF_MISC_BUILD_ID_SIZE when size says how many of the 20
 * bytes are the id (else the id is 20 bytes, zero-padded). pid: -1 for
 * the host's files (perf's HOST_KERNEL_ID). */
#define PDF_MISC_BUILD_ID_SIZE (1 << 15)
#define PDF_BUILD_ID_MAX 20

struct pdformat_build_id {
	struct perf_event_header header;
	int32_t pid;
	uint8_t build_id[PDF_BUILD_ID_MAX];
	uint8_t size;        /* with PDF_MISC_BUILD_ID_SIZE */
	uint8_t reserved[3]; /* build_id is 24 bytes for readers without the size */
	/* char filename[]: NUL-terminated, padded */
};

/* NRCPUS: u32 nr_cpus_avail (highest present CPU + 1), u32 nr_cpus_online. */
struct pdformat_nrcpus {
	uint32_t avail, online;
};

/* TOTAL_MEM: u64, in kB (MemTotal). CLOCKID: u64, the clock's resolution
 * in ns. SAMPLE_TIME: u64 first, u64 last sample time. CLOCK_DATA: below.
 * EVENT_DESC: u32 nr, u32 attr_size, then per event: the attr
 * (attr_size bytes), u32 nr_ids, a string (the event's name), u64 ids[].
 * CMDLINE: a string list (argv). HOSTNAME, OSRELEASE, VERSION, ARCH,
 * CPUDESC, CPUID: one string each. */
struct pdformat_clock_data {
	uint32_t version;  /* 1 */
	uint32_t clockid;
	uint64_t wall_ns;  /* CLOCK_REALTIME and clockid read at one moment */
	uint64_t clock_ns;
};

/* The kernel map's name as perf synthesizes it (PERF_RECORD_MMAP, pid -1,
 * pgoff the address of _text). */
#define PDF_KERNEL_MMAP_NAME "[kernel.kallsyms]_text"

#endif
