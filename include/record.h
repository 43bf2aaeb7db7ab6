/* record: decode one ring record into a flat struct. Only the sample layout
 * perftop asks for (RECORD_SAMPLE_TYPE, sample_id_all) is understood. */
#ifndef PERFTOP_RECORD_H
#define PERFTOP_RECORD_H

#include <linux/perf_event.h>
#include <stdint.h>

#define RECORD_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* The sample_id trailer of non-sample records (and the same fields of a sample). */
struct record_id {
	uint64_t id, time;
	uint32_t pid, tid, cpu;
};

struct record {
	uint32_t type;
	uint16_t misc;
	struct record_id sid;
	union {
		struct { uint64_t ip, period; } sample;
		struct {
			uint32_t pid, tid;
			uint64_t start, len, pgoff, ino, ino_generation;
			uint32_t maj, min, prot, flags;
			uint8_t build_id_size;
			const uint8_t *build_id;   /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
			const char *filename;      /* NUL-terminated inside the record */
		} mmap;
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task; /* FORK, EXIT */
		struct { uint64_t id, lost; } lost;        /* LOST: id is the event's */
		struct { uint64_t lost; } lost_samples;    /* LOST_SAMPLES: id in sid */
		struct { uint64_t time, id; } throttle;    /* THROTTLE, UNTHROTTLE */
	};
};

enum record_status {
	RECORD_OK = 0,
	RECORD_IGNORED = 1,   /* a type perftop does not use */
	RECORD_BAD = -1,      /* shorter than its type needs, or an unterminated string */
};

/* Pointers in *out point into hdr's memory. */
enum record_status record_decode(const struct perf_event_header *hdr, struct record *out);

#endif
