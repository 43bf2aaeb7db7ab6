/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The event-spec parser against what perf does with the same text, on fixture
 * sysfs/tracefs trees (argv[1] = tests/fixtures). */
#include "check.h"
#include "evspec.h"

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE(t, op, res) ((uint64_t)PERF_COUNT_HW_CACHE_##t | ((uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			   ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static char err[512];
static char sysfs[512], tracefs[512], notracefs[512];

static struct evspec parse_ok(const char *s)
{
	struct evspec e;

	memset(&e, 0xff, sizeof(e)); /* nothing from before may survive */
	err[0] = '\0';
	CHECK(evspec_parse(s, &e, err, sizeof(err)) == 0, "parses: %s %s", s, err);
	return e;
}

static void parse_bad(const char *s, const char *want)
{
	struct evspec e;
	int rc;

	err[0] = '\0';
	rc = evspec_parse(s, &e, err, sizeof(err));
	CHECK(rc < 0 && strstr(err, want) != NULL && strchr(err, '\n') == NULL,
	      "rejects '%s': \"%s\" mentions \"%s\"", s, err, want);
}

static void parse_exact(const char *s, const char *want)
{
	struct evspec e;

	err[0] = '\0';
	CHECK(evspec_parse(s, &e, err, sizeof(err)) < 0, "rejects '%s'", s);
	CHECK_STR(err, want, "message for the user");
}

#define EXCL(e) evspec_exclude_bits(&(e).attr)

struct named_case {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static void check_named(const struct named_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct evspec e = parse_ok(c[i].name);

		CHECK(e.attr.type == c[i].type && e.attr.config == c[i].config && e.attr.size == sizeof(e.attr) &&
		      EXCL(e) == 0 && e.attr.precise_ip == 0 && !e.has_modifiers && !e.attr.config1 &&
		      !e.attr.config2, "%s: type %u config 0x%llx", c[i].name, e.attr.type,
		      (unsigned long long)e.attr.config);
		CHECK_STR(e.name, c[i].name, "name as written");
	}
}

static void test_symbols(void)
{
	static const struct named_case c[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
		{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
		{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
		{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
		{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
		{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	};

	check_named(c, sizeof(c) / sizeof(c[0]));
	parse_bad("Cycles", "unknown event 'Cycles'");
	parse_bad("cycle", "unknown event");
}

/* perf list's spellings, then the other spellings perf's tables accept. */
static void test_cache(void)
{
	static const struct named_case c[] = {
		{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS) },
		{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS) },
		{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS) },
		{ "L1-dcache-store-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, MISS) },
		{ "L1-dcache-prefetches", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, ACCESS) },
		{ "L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, MISS) },
		{ "L1-icache-loads", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, ACCESS) },
		{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS) },
		{ "L1-icache-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(L1I, PREFETCH, MISS) },
		{ "LLC-loads", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS) },
		{ "LLC-load-misses", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS) },
		{ "LLC-stores", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS) },
		{ "LLC-store-misses", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, MISS) },
		{ "LLC-prefetches", PERF_TYPE_HW_CACHE, CACHE(LL, PREFETCH, ACCESS) },
		{ "dTLB-loads", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, ACCESS) },
		{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, MISS) },
		{ "dTLB-stores", PERF_TYPE_HW_CACHE, CACHE(DTLB, WRITE, ACCESS) },
		{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, WRITE, MISS) },
		{ "dTLB-prefetches", PERF_TYPE_HW_CACHE, CACHE(DTLB, PREFETCH, ACCESS) },
		{ "iTLB-loads", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, ACCESS) },
		{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS) },
		{ "branch-loads", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, ACCESS) },
		{ "branch-load-misses", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS) },
		{ "node-loads", PERF_TYPE_HW_CACHE, CACHE(NODE, READ, ACCESS) },
		{ "node-load-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, READ, MISS) },
		{ "node-stores", PERF_TYPE_HW_CACHE, CACHE(NODE, WRITE, ACCESS) },
		{ "node-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, PREFETCH, MISS) },
		/* perf's other spellings and defaults (no op = load, no result = access) */
		{ "L1-dcache", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS) },
		{ "LLC-misses", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS) },
		{ "LLC-misses-stores", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, MISS) },
		{ "LLC-store-refs", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS) },
		{ "L2-loads", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS) },
		{ "l1d-read-miss", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS) },
		{ "L1-data-write", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS) },
		{ "dTLB-speculative-read-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, PREFETCH, MISS) },
		{ "Instruction-TLB-load-miss", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS) },
		{ "bpu-loads", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, ACCESS) },
		{ "btb-load-misses", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS) },
	};

	check_named(c, sizeof(c) / sizeof(c[0]));
	/* perf's evsel__hw_cache_stat: an instruction cache is never stored to */
	parse_bad("L1-icache-stores", "no such operation");
	parse_bad("iTLB-prefetches", "no such operation");
	parse_bad("branch-store-misses", "no such operation");
	parse_bad("L1-dcache-eats", "unknown event 'L1-dcache-eats'");
	parse_bad("L2-dcache-loads", "unknown event");
	parse_bad("L1-dcache-load-load", "unknown event");
	parse_bad("LLC-loads-misses-misses", "unknown event");
	parse_bad("L1-dcache-", "unknown event");
	parse_bad("llc-loads", "unknown event");
	parse_bad("branches-loads", "unknown event"); /* perf 6.1: "branches" is the hardware event */
}

static void test_raw(void)
{
	struct evspec e = parse_ok("r1a8");

	CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0x1a8, "r1a8 is raw 0x1a8");
	e = parse_ok("r0x1a8");
	CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0x1a8, "r0x1a8 (newer perf) is raw 0x1a8");
	e = parse_ok("rFFFFFFFFFFFFFFFF");
	CHECK(e.attr.config == UINT64_MAX, "16 hex digits fill 64 bits");
	e = parse_ok("r0");
	CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0, "r0");
	e = parse_ok("rc4:u");
	CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0xc4 && e.attr.exclude_kernel, "raw with a modifier");
	parse_bad("r12g", "bad hex in raw event");
	parse_bad("r1FFFFFFFFFFFFFFFF", "bad hex in raw event");
	parse_bad("rxyz", "unknown event 'rxyz' (raw events are r and 1-16 hex digits");
	parse_bad("r", "unknown event 'r' (raw events");
	parse_bad("r0x", "bad hex");
	parse_bad("r-1", "unknown event 'r-1' (see perftop --list-events)");
}

struct mod_case {
	const char *spec;
	int eu, ek, eh, eG, eH, eI, precise, has;
};

/* Expected values worked through perf's get_event_modifier() letter by letter. */
static void test_modifiers(void)
{
	static const struct mod_case c[] = {
		{ "cycles:u", 0, 1, 1, 1, 0, 0, 0, 1 },
		{ "cycles:k", 1, 0, 1, 0, 0, 0, 0, 1 },
		{ "cycles:h", 1, 1, 0, 0, 0, 0, 0, 1 },
		{ "cycles:uk", 0, 0, 1, 1, 0, 0, 0, 1 },
		{ "cycles:ku", 0, 0, 1, 1, 0, 0, 0, 1 },
		{ "cycles:ukh", 0, 0, 0, 1, 0, 0, 0, 1 },
		{ "cycles:G", 0, 0, 0, 0, 1, 0, 0, 1 },
		{ "cycles:H", 0, 0, 0, 1, 0, 0, 0, 1 },
		{ "cycles:GH", 0, 0, 0, 0, 0, 0, 0, 1 },
		{ "cycles:Gu", 0, 1, 1, 0, 1, 0, 0, 1 },
		{ "cycles:uG", 0, 1, 1, 0, 1, 0, 0, 1 },
		{ "cycles:Hk", 1, 0, 1, 1, 0, 0, 0, 1 },
		{ "cycles:I", 0, 0, 0, 0, 0, 1, 0, 0 },
		{ "cycles:uI", 0, 1, 1, 1, 0, 1, 0, 1 },
		{ "cycles:p", 0, 0, 0, 1, 0, 0, 1, 0 },
		{ "cycles:pp", 0, 0, 0, 1, 0, 0, 2, 0 },
		{ "cycles:ppp", 0, 0, 0, 1, 0, 0, 3, 0 },
		{ "cycles:P", 0, 0, 0, 0, 0, 0, 3, 0 },
		{ "cycles:Gp", 0, 0, 0, 0, 1, 0, 1, 1 },
		{ "cycles:pG", 0, 0, 0, 0, 1, 0, 1, 1 },
		{ "cycles:kpp", 1, 0, 1, 1, 0, 0, 2, 1 },
		{ "instructions:upp", 0, 1, 1, 1, 0, 0, 2, 1 },
		{ "cycles:uP", 0, 1, 1, 1, 0, 0, 3, 1 },
		{ "cpu-clock:k", 1, 0, 1, 0, 0, 0, 0, 1 },
		{ "L1-dcache-load-misses:u", 0, 1, 1, 1, 0, 0, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct evspec e = parse_ok(c[i].spec);
		const struct perf_event_attr *a = &e.attr;

		CHECK(a->exclude_user == (unsigned)c[i].eu && a->exclude_kernel == (unsigned)c[i].ek &&
		      a->exclude_hv == (unsigned)c[i].eh && a->exclude_guest == (unsigned)c[i].eG &&
		      a->exclude_host == (unsigned)c[i].eH && a->exclude_idle == (unsigned)c[i].eI &&
		      a->precise_ip == (unsigned)c[i].precise && e.has_modifiers == c[i].has,
		      "%s: u%u k%u h%u G%u H%u I%u p%u has%d", c[i].spec, a->exclude_user, a->exclude_kernel,
		      a->exclude_hv, a->exclude_guest, a->exclude_host, a->exclude_idle, a->precise_ip,
		      e.has_modifiers);
		CHECK_STR(e.name, c[i].spec, "name keeps the modifiers");
	}
	{
		/* Nothing beyond the fields evspec owns: the engine sets the rest. */
		struct evspec e = parse_ok("instructions:upp");
		struct perf_event_attr want;

		memset(&want, 0, sizeof(want));
		want.size = sizeof(want);
		want.type = PERF_TYPE_HARDWARE;
		want.config = PERF_COUNT_HW_INSTRUCTIONS;
		want.exclude_kernel = want.exclude_hv = want.exclude_guest = 1;
		want.precise_ip = 2;
		CHECK(memcmp(&e.attr, &want, sizeof(want)) == 0, "attr holds only type, config, excludes, precise");
	}
	parse_exact("cycles:x", "event cycles:x: unknown modifier 'x' (valid: u k h I G H p P)");
	parse_bad("cycles:uS", "unknown modifier 'S'");
	parse_bad("cycles:pppp", "at most 3");
}

static void test_modifier_edges(void)
{
	struct evspec e = parse_ok("cycles:ppP");

	CHECK(e.attr.precise_ip == 3, ":ppP asks for the top level");
	parse_bad("cycles:", "nothing after ':'");
	parse_bad("cs::u", "want subsys:name");
	parse_bad(":u", "want subsys:name");
}

static void test_pmu(void)
{
	struct evspec e = parse_ok("cpu/event=0x3c,umask=0x01,inv,cmask=2/");

	CHECK(e.attr.type == 4 && e.attr.config == (0x3c | (0x01 << 8) | (1u << 23) | (2u << 24)) && !e.has_modifiers,
	      "terms placed by format (config 0x%llx)", (unsigned long long)e.attr.config);
	CHECK_STR(e.name, "cpu/event=0x3c,umask=0x01,inv,cmask=2/", "name as written");
	e = parse_ok("cpu/event=0x3c,any,edge=1/");
	CHECK(e.attr.config == (0x3c | (1u << 21) | (1u << 18)), "single-bit formats config:21 and config:18");
	e = parse_ok("cpu/event=60/");
	CHECK(e.attr.config == 0x3c, "decimal value");
	e = parse_ok("cpu/event=010/");
	CHECK(e.attr.config == 10, "010 is ten, as in perf's lexer, not octal");
	e = parse_ok("cpu/config=0x1234,config1=5,config2=0x7,name=mine/");
	CHECK(e.attr.config == 0x1234 && e.attr.config1 == 5 && e.attr.config2 == 7, "built-in config terms");
	CHECK_STR(e.name, "mine", "name= names the event");
	e = parse_ok("cpu/config1/");
	CHECK(e.attr.config1 == 1 && e.attr.config == 0, "bare config1 means 1, as in perf");
	e = parse_ok("cpu/ldlat=30/");
	CHECK(e.attr.config1 == 30, "term placed in config1");
	e = parse_ok("cpu/inst-retired/");
	CHECK(e.attr.config == (0xc0 | (0x01 << 8)), "alias from the events directory");
	e = parse_ok("cpu/inst-retired,umask=0x2/");
	CHECK(e.attr.config == (0xc0 | (0x02 << 8)), "a later term replaces the alias's value");
	e = parse_ok("cpu/cpu-cycles,cmask=1/u");
	CHECK(e.attr.config == (0x3c | (1u << 24)) && e.attr.exclude_kernel && !e.attr.exclude_user &&
	      e.has_modifiers, "alias + term + perf-style modifier after the slash");
	e = parse_ok("cpu/cpu-cycles/k");
	CHECK(e.attr.config == 0x3c && e.attr.exclude_user && !e.attr.exclude_kernel, "cpu/…/k");
	parse_exact("cpu/cpu-cycles/:k", "event cpu/cpu-cycles/:k: modifiers follow the closing '/' directly, as in cpu/…/k");
	e = parse_ok("cpu/mem-loads,ldlat=3/");
	CHECK(e.attr.config == (0xcd | (1 << 8)) && e.attr.config1 == 3, "alias with ldlat=? filled by the user");
	e = parse_ok("cpu/ldlat=3,mem-loads/");
	CHECK(e.attr.config1 == 3, "the ? term may come before the alias");
	parse_bad("cpu/mem-loads/", "term 'ldlat' needs a value: add ldlat=N");
	e = parse_ok("uncore_x/split=0xff/");
	CHECK(e.attr.type == 17 && e.attr.config == (0xfULL | (0xfULL << 32)), "split bit ranges");
	e = parse_ok("uncore_x/rev=0x21/");
	CHECK(e.attr.config1 == (1ULL | (1ULL << 33)), "value bits fill format bits lowest first (0x%llx)",
	      (unsigned long long)e.attr.config1);
	e = parse_ok("uncore_x/filter=0xbeef/");
	CHECK(e.attr.config2 == 0xbeef, "term placed in config2");
	parse_exact("cpu/umask=0x100/", "event cpu/umask=0x100/: value 0x100 too wide for term 'umask' (8 bits, max 0xff)");
	parse_bad("uncore_x/split=0x100/", "too wide for term 'split' (8 bits, max 0xff)");
	parse_bad("cpu/inv=2/", "too wide for term 'inv' (1 bits");
	parse_bad("uncore_x/filter=0x10000/", "too wide");
	parse_bad("cpu/config=0x10000000000000000/", "wider than 64 bits");
	parse_bad("uncore_x/weird=1/", "cannot read");
	{
		char want[700];

		snprintf(want, sizeof(want), "PMU 'nopmu' not found in %s/bus/event_source/devices (see perftop --list-events)",
			 sysfs);
		parse_exact("nopmu/config=1/", want);
		snprintf(want, sizeof(want), "PMU cpu has no term 'bogus' (see %s/bus/event_source/devices/cpu/format)", sysfs);
		parse_exact("cpu/bogus=1/", want);
	}
	parse_bad("broken/event=1/", "PMU 'broken' not found");
	parse_bad("cpu/bogus/", "PMU cpu has no event or term 'bogus'");
	parse_bad("cpu/../type/", "no event or term '../type'");
	parse_bad("../cpu/config=1/", "not found");
	parse_bad("cpu/event=zz/", "term 'event' wants a number (decimal or 0x hex), not 'zz'");
	parse_bad("cpu/event=-1/", "wants a number");
	parse_bad("cpu/event=/", "wants a number");
	parse_bad("cpu/event=0x/", "wants a number");
	parse_bad("cpu/event=?/", "needs a value");
	parse_bad("cpu/event=1,,umask=1/", "empty term");
	parse_bad("cpu/period=1000/", "term 'period' is not supported by perftop");
	parse_bad("cpu/name=/", "name= wants a value");
	parse_bad("cpu//", "no terms");
	parse_bad("cpu/event=1", "pmu/term=value");
	parse_bad("/event=1/", "no PMU name");
	parse_bad("cpu/event=1/x", "unknown modifier 'x'");
	parse_bad("cpu/event=1/:", "follow the closing '/' directly");
	{
		char longname[300];

		snprintf(longname, sizeof(longname), "cpu/event=1,name=%0200d/", 7);
		e = parse_ok(longname);
		CHECK(strlen(e.name) == EVSPEC_NAME_MAX - 1 && e.attr.config == 1, "a long name= is cut, not refused");
	}
}

static void test_tracepoints(void)
{
	struct evspec e;

	evspec_set_roots(sysfs, tracefs);
	e = parse_ok("sched:sched_switch");
	CHECK(e.attr.type == PERF_TYPE_TRACEPOINT && e.attr.config == 316 && EXCL(e) == 0 && !e.has_modifiers,
	      "tracepoint id from tracefs");
	CHECK_STR(e.name, "sched:sched_switch", "tracepoint name");
	e = parse_ok("sched:sched_switch:k");
	CHECK(e.attr.config == 316 && e.attr.exclude_user && e.attr.exclude_hv && !e.attr.exclude_kernel &&
	      e.has_modifiers, "tracepoint with a modifier");
	e = parse_ok("sched:sched_wakeup:u");
	CHECK(e.attr.config == 318 && e.attr.exclude_kernel, "another tracepoint, :u");
	e = parse_ok("rcu:rcu_utilization");
	CHECK(e.attr.type == PERF_TYPE_TRACEPOINT && e.attr.config == 41, "rcu:… is a tracepoint, not raw rc");
	parse_bad("sched:nope", "tracepoint sched:nope not found in");
	parse_bad("nosys:x", "not found");
	parse_bad("sched:sched_switch:x", "unknown modifier 'x'");
	parse_bad("sched:*", "wildcards are not supported");
	parse_bad("sched:a.b", "unknown event 'sched:a.b'");
	parse_bad("sched:", "want subsys:name");
	parse_bad("sched:../x", "PMU");
	evspec_set_roots(sysfs, notracefs);
	parse_exact("sched:sched_switch",
		    "tracepoint sched:sched_switch: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
	e = parse_ok("cycles:u");
	CHECK(e.attr.exclude_kernel, "modifiers need no tracefs");
	evspec_set_roots(sysfs, tracefs);
}

static void test_lists(void)
{
	struct evspec *evs;
	size_t n;
	char big[400];

	CHECK(evspec_parse_list("cycles,cpu/event=0x3c,umask=1/,cs:u", &evs, &n, err, sizeof(err)) == 0 && n == 3,
	      "list with commas inside a PMU event: %s", err);
	if (evs && n == 3) {
		CHECK_STR(evs[0].name, "cycles", "first item");
		CHECK_STR(evs[1].name, "cpu/event=0x3c,umask=1/", "PMU item kept whole");
		CHECK(evs[1].attr.type == 4 && evs[1].attr.config == 0x13c, "PMU item parsed");
		CHECK(evs[2].attr.exclude_kernel && evs[2].attr.type == PERF_TYPE_SOFTWARE, "modifier on the last item");
	}
	free(evs);
	CHECK(evspec_parse_list("cpu/event=1,umask=2/u,sched:sched_switch,instructions:k", &evs, &n, err,
				sizeof(err)) == 0 && n == 3 && evs[0].attr.exclude_kernel && evs[1].attr.config == 316,
	      "PMU with modifier, tracepoint, symbol: %s", err);
	free(evs);
	big[0] = '\0';
	for (int i = 0; i < 40; i++)
		strlcat(big, i ? ",cs" : "cs", sizeof(big));
	CHECK(evspec_parse_list(big, &evs, &n, err, sizeof(err)) == 0 && n == 40 &&
	      evs[39].attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES, "40 events: the array grows");
	free(evs);
	CHECK(evspec_parse_list("cycles,,cs", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "empty event") && !evs &&
	      n == 0, "a,,b rejected: %s", err);
	CHECK(evspec_parse_list("cycles,", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "empty"), "trailing comma");
	CHECK(evspec_parse_list(",cycles", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "empty"), "leading comma");
	CHECK(evspec_parse_list("", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "empty event list"), "empty list");
	CHECK(evspec_parse_list("cycles,nope", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "'nope'") && !evs,
	      "unknown event in a list named: %s", err);
	CHECK(evspec_parse_list("{cycles,instructions}", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "groups"),
	      "event groups refused plainly: %s", err);
}

static void test_exclude(void)
{
	static const char *const words[] = { "user", "kernel", "hv", "idle", "host", "guest" };
	unsigned bits;
	char buf[64];
	int ok = 1;

	for (unsigned i = 0; i < 6; i++)
		CHECK(evspec_exclude_parse(words[i], &bits, err, sizeof(err)) == 0 && bits == 1u << i, "--exclude %s", words[i]);
	CHECK(evspec_exclude_parse("user,hv,guest", &bits, err, sizeof(err)) == 0 && bits == (EXCL_USER | EXCL_HV | EXCL_GUEST),
	      "exclude words");
	evspec_exclude_format(bits, buf, sizeof(buf));
	CHECK_STR(buf, "user,hv,guest", "evspec_exclude_format");
	CHECK(evspec_exclude_parse("", &bits, err, sizeof(err)) == 0 && bits == 0, "empty exclude = none");
	evspec_exclude_format(0, buf, sizeof(buf));
	CHECK_STR(buf, "", "no bits, empty text");
	CHECK(evspec_exclude_parse("user,bogus", &bits, err, sizeof(err)) < 0 &&
	      strstr(err, "'bogus' (valid: user,kernel,hv,idle,host,guest)"), "unknown word named: %s", err);
	CHECK(evspec_exclude_parse("user,,hv", &bits, err, sizeof(err)) < 0, "empty word refused");
	evspec_exclude_format(EXCL_ALL, buf, sizeof(buf));
	CHECK_STR(buf, "user,kernel,hv,idle,host,guest", "all six");
	evspec_exclude_format(EXCL_ALL, buf, 8);
	CHECK(strlen(buf) < 8, "short buffer: cut, terminated");
	for (unsigned b = 0; b <= EXCL_ALL; b++) {
		struct perf_event_attr a;
		unsigned back;

		memset(&a, 0, sizeof(a));
		evspec_set_exclude(&a, b);
		evspec_exclude_format(b, buf, sizeof(buf));
		if (evspec_exclude_bits(&a) != b || evspec_exclude_parse(buf, &back, err, sizeof(err)) || back != b)
			ok = 0;
	}
	CHECK(ok, "all 64 combinations round-trip through attr and text");
	{
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		evspec_set_exclude(&a, EXCL_KERNEL | EXCL_IDLE | EXCL_HOST);
		CHECK(a.exclude_kernel && a.exclude_idle && a.exclude_host && !a.exclude_user && !a.exclude_guest &&
		      !a.exclude_hv, "bits land on the right attr fields");
	}
}

static char *listing(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	evspec_list_print(f);
	fclose(f);
	return text;
}

/* What a direct open says, to compare with the listing's verdict. */
static int can_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const char *line_of(const char *text, const char *start)
{
	static char line[256];
	const char *p = strstr(text, start);
	size_t n;

	if (p == NULL)
		return "";
	n = strcspn(p, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)n, p);
	return line;
}

static void test_list_print(void)
{
	char *text = listing();
	int rc;

	CHECK(text != NULL, "listing written");
	if (text == NULL)
		return;
	CHECK(strstr(text, "Hardware events\n") && strstr(text, "\nSoftware events\n") &&
	      strstr(text, "\nHardware cache events\n") && strstr(text, "\nPMUs") && strstr(text, "\nTracepoints\n"),
	      "all sections");
	CHECK(strstr(text, "  cpu-cycles OR cycles ") && strstr(text, "  context-switches OR cs "), "aliases shown");
	CHECK(strstr(text, "  L1-dcache-load-misses ") && strstr(text, "  iTLB-load-misses ") &&
	      !strstr(text, "L1-icache-stores"), "cache events in perf's spelling, only valid ops");
	CHECK(strstr(line_of(text, "  cpu "), "type 4") && strstr(line_of(text, "  cpu "), "4 event aliases") &&
	      strstr(line_of(text, "  cpu "), "terms: any,cmask,edge,event,inv,ldlat,umask"),
	      "fixture PMU listed: %s", line_of(text, "  cpu "));
	CHECK(strstr(text, "  uncore_x ") && !strstr(text, "  broken "), "PMUs need a type file");
	CHECK(strstr(text, "3 tracepoints in 2 subsystems") != NULL, "tracepoints counted: %s",
	      line_of(text, "  3 tracepoints"));
	rc = can_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (rc == 0)
		CHECK(strstr(line_of(text, "  task-clock "), "]  supported"), "task-clock probed: %s",
		      line_of(text, "  task-clock "));
	else
		CHECK_SKIP("perf_event_open refused here");
	rc = can_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (rc == -ENOENT)
		CHECK(strstr(line_of(text, "  cpu-cycles"), "not supported (ENOENT: no such event on this PMU)"),
		      "no hardware PMU: %s", line_of(text, "  cpu-cycles"));
	else if (rc == 0)
		CHECK(strstr(line_of(text, "  cpu-cycles"), "]  supported"), "hardware PMU: cycles supported");
	else
		CHECK_SKIP("cycles neither opens nor says ENOENT here");
	free(text);

	evspec_set_roots(sysfs, notracefs);
	text = listing();
	CHECK(text && strstr(text, "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing"),
	      "listing without tracefs gives the mount hint");
	free(text);
	evspec_set_roots(sysfs, tracefs);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_evspec FIXTURES\n");
		return 2;
	}
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", argv[1]);
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs", argv[1]);
	snprintf(notracefs, sizeof(notracefs), "%s/notracefs", argv[1]);
	evspec_set_roots(sysfs, tracefs);
	test_symbols();
	test_cache();
	test_raw();
	test_modifiers();
	test_modifier_edges();
	test_pmu();
	test_tracepoints();
	test_lists();
	test_exclude();
	test_list_print();
	parse_exact("", "empty event name (see perftop --list-events)");
	parse_exact("nosuchevent", "unknown event 'nosuchevent' (see perftop --list-events)");
	return check_done();
}
