/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpformat on sched_switch's format as Linux 6.1 publishes it, on texts cut
 * and mangled; and a switch sample decoded with --off-cpu's layout
 * (callchain and PERF_SAMPLE_RAW) told apart from a flat one by its id. */
#include <errno.h>

#include "check.h"
#include "record.h"
#include "tpformat.h"

static const char fmt_6_1[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

/* An older kernel's layout: prev_state an int at another offset. */
static const char fmt_old[] =
	"ID: 300\nformat:\n"
	"\tfield:pid_t prev_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_state;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:40;\tsize:4;\tsigned:1;\n";

static void test_parse(void)
{
	struct tpformat f;
	const struct tpformat_field *fl;
	unsigned char raw[68] = { 0 };
	int64_t v;
	int32_t pid = 4242, next = -7;
	int64_t state = 2;

	CHECK(tpformat_parse(fmt_6_1, sizeof(fmt_6_1) - 1, &f) == 0 && f.nfields == 11 && f.id == 372,
	      "6.1's sched_switch: 11 fields, ID 372 (%zu, %u)", f.nfields, f.id);
	fl = tpformat_find(&f, "prev_state");
	CHECK(fl && fl->offset == 32 && fl->size == 8 && fl->is_signed, "prev_state at 32, 8 bytes, signed");
	fl = tpformat_find(&f, "prev_comm");
	CHECK(fl && fl->is_array && fl->offset == 8 && fl->size == 16, "prev_comm: an array of 16 at 8");
	CHECK(tpformat_find(&f, "nope") == NULL, "an unknown field is NULL");
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 56, &next, 4);
	CHECK(tpformat_int(tpformat_find(&f, "prev_pid"), raw, sizeof(raw), &v) && v == 4242, "prev_pid read");
	CHECK(tpformat_int(tpformat_find(&f, "prev_state"), raw, sizeof(raw), &v) && v == 2, "prev_state read");
	CHECK(tpformat_int(tpformat_find(&f, "next_pid"), raw, sizeof(raw), &v) && v == -7,
	      "a signed 4-byte field is sign-extended");
	CHECK(!tpformat_int(tpformat_find(&f, "next_pid"), raw, 59, &v), "a field past the payload's end is refused");
	CHECK(!tpformat_int(tpformat_find(&f, "prev_comm"), raw, sizeof(raw), &v), "an array is not an integer");
	CHECK(tpformat_parse(fmt_old, sizeof(fmt_old) - 1, &f) == 0 &&
	      tpformat_find(&f, "prev_state")->offset == 20 && tpformat_find(&f, "prev_state")->size == 4,
	      "another kernel's layout is read from its own format");
}

static void test_bad(void)
{
	struct tpformat f;
	static const char junk[] = "field:;offset:;size:\nfield:int x\toffset:99999999999;\tsize:4;\nfield:int [;";

	CHECK(tpformat_parse("", 0, &f) == -EINVAL, "an empty text has no fields");
	CHECK(tpformat_parse(junk, sizeof(junk) - 1, &f) == -EINVAL, "lines without a name, offset or size are skipped");
	/* Cut mid-line: the fields before the cut are kept. */
	CHECK(tpformat_parse(fmt_6_1, 400, &f) == 0 && f.nfields >= 4 && f.nfields < 11,
	      "a cut text keeps its whole lines (%zu fields)", f.nfields);
}

/* A switch record as the kernel writes it with --off-cpu's layout. */
static size_t put_sample(unsigned char *buf, uint64_t id, bool with_raw)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	struct record_flat f = { .id = id, .ip = 0xffffffff81000000ull, .pid = 10, .tid = 11, .time = 5,
				 .cpu = 1, .period = 1 };
	uint64_t nr = 2, ips[2] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
	uint32_t rsize = 68;
	size_t off = sizeof(h);

	memcpy(buf + off, &f, sizeof(f));
	off += sizeof(f);
	if (with_raw) {
		memcpy(buf + off, &nr, 8);
		memcpy(buf + off + 8, ips, 16);
		off += 24;
		memcpy(buf + off, &rsize, 4);
		memset(buf + off + 4, 0xab, rsize);
		off += 4 + rsize;
	}
	h.size = (uint16_t)off;
	memcpy(buf, &h, sizeof(h));
	return off;
}

static void test_alt_layout(void)
{
	unsigned char buf[512];
	struct record_layout flat = { 0 }, alt = { .extra = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW };
	uint64_t ids[] = { 100, 107, 300 };
	size_t n = 3;
	struct record r;

	flat.alt = &alt;
	flat.alt_ids = ids;
	flat.alt_n = &n;
	CHECK(record_is_alt(&flat, 107) && record_is_alt(&flat, 300) && !record_is_alt(&flat, 101),
	      "ids are found in the ascending list, others not");
	put_sample(buf, 107, true);
	CHECK(record_decode_with((const struct perf_event_header *)(void *)buf, &flat, &r) == RECORD_OK &&
	      r.sample.nr == 2 && r.sample.raw_size == 68 && r.sample.raw && r.sample.raw[0] == 0xab,
	      "a switch sample decodes with its layout: callchain and raw (%u bytes)", r.sample.raw_size);
	put_sample(buf, 5, false);
	CHECK(record_decode_with((const struct perf_event_header *)(void *)buf, &flat, &r) == RECORD_OK &&
	      r.sample.raw == NULL && r.sample.nr == 0, "a flat sample of another id decodes flat");
	put_sample(buf, 107, true);
	buf[sizeof(struct perf_event_header) + sizeof(struct record_flat) + 24] = 0xff; /* raw size 255 */
	CHECK(record_decode_with((const struct perf_event_header *)(void *)buf, &flat, &r) == RECORD_BAD,
	      "a raw size past the record's end is bad");
}

int main(void)
{
	test_parse();
	test_bad();
	test_alt_layout();
	return check_done();
}
