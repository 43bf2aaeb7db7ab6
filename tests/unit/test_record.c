/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/mman.h>

#include "check.h"
#include "record.h"
#include "synth.h"

static void test_sample(void)
{
	struct synth s;
	struct record r;
	const struct perf_event_header *h = synth_sample(&s, 77, 0xffffffff81000010ULL, 10, 11, 12345, 1, 250000,
							  PERF_RECORD_MISC_KERNEL);

	CHECK(record_decode(h, &r) == RECORD_OK, "sample decodes");
	CHECK(r.sid.id == 77 && r.sample.ip == 0xffffffff81000010ULL, "sample id and ip");
	CHECK(r.sid.pid == 10 && r.sid.tid == 11 && r.sid.time == 12345 && r.sid.cpu == 1, "sample tid/time/cpu");
	CHECK(r.sample.period == 250000 && (r.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL,
	      "sample period and cpumode");

	s.len -= 8; /* drop the period */
	CHECK(record_decode(synth_done(&s), &r) == RECORD_BAD, "truncated sample rejected");

	/* -c: the records leave the period out, the layout gives it. */
	struct record_layout fixed = { .period = 1000 };
	struct record_flat f;

	h = synth_done(&s);
	CHECK(record_decode_with(h, &fixed, &r) == RECORD_OK && r.sid.id == 77 && r.sid.cpu == 1 &&
	      r.sample.period == 1000, "a sample without its period decodes with the layout's");
	CHECK(record_flat(h, &fixed, &f) && f.id == 77 && f.time == 12345 && f.cpu == 1 && f.period == 1000,
	      "the flat shortcut too");
	CHECK(!record_flat(h, NULL, &f), "without the layout it is not a flat sample");
	h = synth_sample(&s, 77, 0x401000, 10, 11, 12345, 1, 250000, PERF_RECORD_MISC_USER);
	CHECK(!record_flat(h, &fixed, &f), "a sample with a period does not pass as one without");
}

static void test_mmap2(void)
{
	struct synth s;
	struct record r;

	synth_header(&s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	synth_u32x2(&s, 100, 101);
	synth_u64(&s, 0x400000);
	synth_u64(&s, 0x1000);
	synth_u64(&s, 0x2000);
	synth_u32x2(&s, 8, 1);   /* maj, min */
	synth_u64(&s, 4242);     /* ino */
	synth_u64(&s, 7);        /* ino generation */
	synth_u32x2(&s, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	synth_string(&s, "/usr/bin/true");
	synth_trailer(&s, 100, 101, 5, 0, 9);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK, "mmap2 decodes");
	CHECK(r.mmap.pid == 100 && r.mmap.start == 0x400000 && r.mmap.len == 0x1000 && r.mmap.pgoff == 0x2000,
	      "mmap2 range");
	CHECK(r.mmap.maj == 8 && r.mmap.min == 1 && r.mmap.ino == 4242 && r.mmap.ino_generation == 7,
	      "mmap2 device, inode and generation");
	CHECK(r.mmap.prot == (PROT_READ | PROT_EXEC), "mmap2 prot");
	CHECK_STR(r.mmap.filename, "/usr/bin/true", "mmap2 filename");
	CHECK(r.sid.id == 9 && r.sid.pid == 100, "mmap2 sample_id trailer");

	/* build-id flavour */
	synth_header(&s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	synth_u32x2(&s, 100, 101);
	synth_u64(&s, 0x400000);
	synth_u64(&s, 0x1000);
	synth_u64(&s, 0);
	{
		unsigned char bid[24] = { 20, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };

		memcpy(s.buf + s.len, bid, sizeof(bid));
		s.len += sizeof(bid);
	}
	synth_u32x2(&s, PROT_EXEC, 0);
	synth_string(&s, "/lib/x.so");
	synth_trailer(&s, 100, 101, 5, 0, 9);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK, "mmap2 with build-id decodes");
	CHECK(r.mmap.build_id_size == 20 && r.mmap.build_id[0] == 0xde && r.mmap.build_id[3] == 0xef,
	      "build id bytes");
	CHECK_STR(r.mmap.filename, "/lib/x.so", "build-id mmap2 filename");
	CHECK(r.mmap.maj == 0 && r.mmap.min == 0 && r.mmap.ino == 0, "build-id flavour: no inode");
	CHECK(r.mmap.prot == PROT_EXEC && r.mmap.start == 0x400000 && r.mmap.len == 0x1000,
	      "build-id flavour: range and prot after the build-id");

	/* A size past the 20 bytes the record holds is clamped; 0 is no build-id. */
	for (int k = 0; k < 2; k++) {
		unsigned char bid[24] = { k ? 0 : 200, 0, 0, 0, 1, 2, 3 };

		synth_header(&s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
		synth_u32x2(&s, 100, 101);
		synth_u64(&s, 0x400000);
		synth_u64(&s, 0x1000);
		synth_u64(&s, 0);
		memcpy(s.buf + s.len, bid, sizeof(bid));
		s.len += sizeof(bid);
		synth_u32x2(&s, PROT_EXEC, 0);
		synth_string(&s, "/lib/y.so");
		synth_trailer(&s, 100, 101, 5, 0, 9);
		CHECK(record_decode(synth_done(&s), &r) == RECORD_OK, "odd build-id size %d decodes", bid[0]);
		if (k == 0)
			CHECK(r.mmap.build_id_size == 20 && r.mmap.build_id && r.mmap.build_id[2] == 3,
			      "size 200 clamped to 20");
		else
			CHECK(r.mmap.build_id_size == 0 && r.mmap.build_id == NULL, "size 0: no build-id");
		CHECK_STR(r.mmap.filename, "/lib/y.so", "and the filename after it");
	}

	/* Cut inside the build-id block: bad, not read past the end. */
	synth_header(&s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	synth_u32x2(&s, 1, 1);
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u64(&s, 20);
	synth_trailer(&s, 1, 1, 0, 0, 1);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_BAD, "build-id block cut short: bad");

	/* unterminated filename: the trailer follows the last byte of the name */
	synth_header(&s, PERF_RECORD_MMAP2, 0);
	synth_u32x2(&s, 1, 1);
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u32x2(&s, 0, 0);
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u32x2(&s, 0, 0);
	memcpy(s.buf + s.len, "ABCDEFGH", 8);
	s.len += 8;
	synth_trailer(&s, 1, 1, 0, 0, 1);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_BAD, "unterminated filename rejected");
}

static void test_side_band(void)
{
	struct synth s;
	struct record r;

	synth_header(&s, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	synth_u32x2(&s, 5, 6);
	synth_string(&s, "worker");
	synth_trailer(&s, 5, 6, 1, 0, 3);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.comm.pid == 5 && r.comm.tid == 6,
	      "comm decodes");
	CHECK_STR(r.comm.comm, "worker", "comm name");
	CHECK(r.misc & PERF_RECORD_MISC_COMM_EXEC, "comm exec flag kept");

	synth_header(&s, PERF_RECORD_FORK, 0);
	synth_u32x2(&s, 20, 10);
	synth_u32x2(&s, 21, 11);
	synth_u64(&s, 999);
	synth_trailer(&s, 20, 21, 999, 1, 3);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.task.pid == 20 && r.task.ppid == 10 &&
	      r.task.tid == 21 && r.task.ptid == 11 && r.task.time == 999, "fork decodes");

	synth_header(&s, PERF_RECORD_LOST, 0);
	synth_u64(&s, 42);
	synth_u64(&s, 17);
	synth_trailer(&s, 0, 0, 0, 0, 42);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.lost.id == 42 && r.lost.lost == 17,
	      "lost decodes");

	synth_header(&s, PERF_RECORD_LOST_SAMPLES, 0);
	synth_u64(&s, 5);
	synth_trailer(&s, 0, 0, 0, 1, 43);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.lost_samples.lost == 5 && r.sid.id == 43,
	      "lost_samples decodes with its id in the trailer");

	synth_header(&s, PERF_RECORD_THROTTLE, 0);
	synth_u64(&s, 1234);
	synth_u64(&s, 44);
	synth_u64(&s, 44);
	synth_trailer(&s, 0, 0, 1234, 0, 44);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.throttle.id == 44 && r.throttle.time == 1234,
	      "throttle decodes");

	synth_header(&s, PERF_RECORD_EXIT, 0);
	synth_u64(&s, 1);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_BAD, "exit without trailer rejected");

	synth_header(&s, 64, 0); /* a future record type */
	synth_u64(&s, 1);
	CHECK(record_decode(synth_done(&s), &r) == RECORD_IGNORED, "unknown record type ignored");
}

/* A -g --call-graph dwarf sample: callchain with context markers, user
 * registers, a stack copy; every length checked against the record. */
static void test_callgraph(void)
{
	struct record_layout lay = { .extra = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				     .regs_user_mask = 0x7 };
	struct synth s;
	struct record r;
	size_t base;

	synth_sample(&s, 7, 0x401000, 10, 10, 5, 0, 1000, PERF_RECORD_MISC_USER);
	base = s.len;
	synth_u64(&s, 4);
	synth_u64(&s, PERF_CONTEXT_USER);
	synth_u64(&s, 0x401000);
	synth_u64(&s, 0x401234);
	synth_u64(&s, 0x402000);
	synth_u64(&s, PERF_SAMPLE_REGS_ABI_64);
	synth_u64(&s, 0x1111);
	synth_u64(&s, 0x2222);
	synth_u64(&s, 0x3333);
	synth_u64(&s, 16);
	synth_u64(&s, 0xaaaa);
	synth_u64(&s, 0xbbbb);
	synth_u64(&s, 8);
	CHECK(record_decode_with(synth_done(&s), &lay, &r) == RECORD_OK, "call-graph sample decodes");
	CHECK(r.sample.nr == 4 && record_u64(r.sample.ips, 0) == PERF_CONTEXT_USER &&
	      record_u64(r.sample.ips, 3) == 0x402000, "callchain with its context marker");
	CHECK(r.sample.regs_abi == PERF_SAMPLE_REGS_ABI_64 && r.sample.nregs == 3 &&
	      record_u64(r.sample.regs, 2) == 0x3333, "user registers by the mask's weight");
	CHECK(r.sample.stack_size == 16 && r.sample.stack_dyn_size == 8 && record_u64(r.sample.stack, 1) == 0xbbbb,
	      "stack copy and its dynamic size");
	CHECK(record_decode(synth_done(&s), &r) == RECORD_OK && r.sample.nr == 0,
	      "without a layout the same record reads as a plain sample");

	s.len -= 8; /* no dyn_size */
	CHECK(record_decode_with(synth_done(&s), &lay, &r) == RECORD_BAD, "stack block cut short: bad");
	s.len = base;
	synth_u64(&s, UINT64_MAX / 4);
	synth_u64(&s, PERF_CONTEXT_USER);
	CHECK(record_decode_with(synth_done(&s), &lay, &r) == RECORD_BAD, "a callchain longer than the record: bad");
	s.len = base;
	synth_u64(&s, 0);
	synth_u64(&s, 0); /* no user registers: a kernel thread */
	synth_u64(&s, 0);
	CHECK(record_decode_with(synth_done(&s), &lay, &r) == RECORD_OK && r.sample.nregs == 0 && r.sample.stack == NULL,
	      "a kernel thread's sample: ABI 0, no stack");
	s.len = base;
	synth_u64(&s, 0);
	synth_u64(&s, PERF_SAMPLE_REGS_ABI_64);
	synth_u64(&s, 1);
	synth_u64(&s, 2);
	synth_u64(&s, 3);
	synth_u64(&s, 12); /* not a multiple of 8 */
	synth_u64(&s, 0);
	synth_u64(&s, 0);
	synth_u64(&s, 8);
	CHECK(record_decode_with(synth_done(&s), &lay, &r) == RECORD_BAD, "odd stack size: bad");
}

/* Joins a cut record's pieces, as the spill writes them. */
static const struct perf_event_header *join(const struct record_piece *pc, size_t n, unsigned char *buf)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(buf + len, pc[i].p, pc[i].len);
		len += pc[i].len;
	}
	return (const struct perf_event_header *)buf;
}

/* A dwarf sample's stack copy cut to its valid bytes on the way to the
 * spill: the cut record is smaller and decodes to the same sample. */
static void test_cut_stack(void)
{
	struct record_layout lay = { .extra = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				     .regs_user_mask = 0x3 };
	struct record_piece pc[5];
	uint64_t fix[3];
	unsigned char buf[512];
	const struct perf_event_header *h;
	struct synth s;
	struct record r;
	size_t n, full, base;

	synth_sample(&s, 7, 0x401000, 10, 11, 5, 0, 1000, PERF_RECORD_MISC_USER);
	synth_u64(&s, 1);
	synth_u64(&s, PERF_CONTEXT_USER);
	synth_u64(&s, PERF_SAMPLE_REGS_ABI_64);
	synth_u64(&s, 0x1111);
	synth_u64(&s, 0x2222);
	base = s.len;
	synth_u64(&s, 64); /* 8 words copied, 20 bytes valid */
	for (uint64_t i = 0; i < 8; i++)
		synth_u64(&s, 0xa0 + i);
	synth_u64(&s, 20);
	h = synth_done(&s);
	full = h->size;
	CHECK(record_decode_with(h, &lay, &r) == RECORD_OK, "a dwarf sample to cut");
	n = record_cut_stack(h, &r, UINT64_MAX, pc, fix);
	h = join(pc, n, buf);
	CHECK(n == 5 && h->size == full - 40, "the copy cut to 24 bytes (20 rounded up): %u of %zu", h->size, full);
	CHECK(record_decode_with(h, &lay, &r) == RECORD_OK && r.sample.stack_size == 24 && r.sample.stack_dyn_size == 20 &&
	      record_u64(r.sample.stack, 2) == 0xa2 && r.sample.nregs == 2 && record_u64(r.sample.regs, 1) == 0x2222 &&
	      r.sid.tid == 11 && r.sample.nr == 1, "the cut record decodes to the same sample");

	h = synth_done(&s);
	record_decode_with(h, &lay, &r);
	n = record_cut_stack(h, &r, 12, pc, fix);
	h = join(pc, n, buf);
	CHECK(n == 5 && record_decode_with(h, &lay, &r) == RECORD_OK && r.sample.stack_size == 16 &&
	      r.sample.stack_dyn_size == 12 && record_u64(r.sample.stack, 1) == 0xa1,
	      "cut to what the unwinder uses: 12 of the 20 valid bytes (%llu, %llu)",
	      (unsigned long long)r.sample.stack_size, (unsigned long long)r.sample.stack_dyn_size);

	s.len = base;
	synth_u64(&s, 16);
	synth_u64(&s, 1);
	synth_u64(&s, 2);
	synth_u64(&s, 0); /* nothing valid: size 0, and no dyn_size, as the kernel writes it */
	h = synth_done(&s);
	full = h->size;
	record_decode_with(h, &lay, &r);
	n = record_cut_stack(h, &r, UINT64_MAX, pc, fix);
	h = join(pc, n, buf);
	CHECK(n == 3 && h->size == full - 24 && record_decode_with(h, &lay, &r) == RECORD_OK && r.sample.stack == NULL &&
	      r.sample.nregs == 2, "no valid bytes: no copy at all (%u of %zu)", h->size, full);

	s.len = base;
	synth_u64(&s, 16);
	synth_u64(&s, 1);
	synth_u64(&s, 2);
	synth_u64(&s, 16);
	h = synth_done(&s);
	record_decode_with(h, &lay, &r);
	CHECK(record_cut_stack(h, &r, UINT64_MAX, pc, fix) == 1 && pc[0].p == h && pc[0].len == h->size,
	      "a copy valid to its end stays as it is");
	record_decode_with(h, NULL, &r);
	CHECK(record_cut_stack(h, &r, 8, pc, fix) == 1, "decoded without the layout: no copy, as it is");
	synth_header(&s, PERF_RECORD_COMM, 0);
	synth_u32x2(&s, 1, 1);
	synth_string(&s, "x");
	synth_trailer(&s, 1, 1, 1, 0, 1);
	h = synth_done(&s);
	record_decode_with(h, &lay, &r);
	CHECK(record_cut_stack(h, &r, 8, pc, fix) == 1 && pc[0].len == h->size, "other records: as they are");
}

int main(void)
{
	test_sample();
	test_callgraph();
	test_cut_stack();
	test_mmap2();
	test_side_band();
	return check_done();
}
