/* The event-spec parser against what perf does, on fixture sysfs/tracefs trees. */
#include "check.h"
#include "evspec.h"

static char err[512];

static struct evspec parse_ok(const char *s)
{
	struct evspec e;

	err[0] = '\0';
	CHECK(evspec_parse(s, &e, err, sizeof(err)) == 0, "parses: %s %s", s, err);
	return e;
}

static void parse_bad(const char *s, const char *want)
{
	struct evspec e;
	int rc = evspec_parse(s, &e, err, sizeof(err));

	CHECK(rc < 0 && strstr(err, want) != NULL, "rejects %s: \"%s\" mentions \"%s\"", s, err, want);
}

#define EXCL(e) evspec_exclude_bits(&(e).attr)

static void test_names(void)
{
	struct evspec e;

	e = parse_ok("cycles");
	CHECK(e.attr.type == PERF_TYPE_HARDWARE && e.attr.config == PERF_COUNT_HW_CPU_CYCLES && EXCL(e) == 0 &&
	      !e.has_modifiers, "cycles: hardware, no excludes");
	e = parse_ok("cpu-cycles");
	CHECK(e.attr.config == PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles alias");
	e = parse_ok("branch-instructions");
	CHECK(e.attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions alias");
	e = parse_ok("idle-cycles-backend");
	CHECK(e.attr.config == PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "idle-cycles-backend alias");
	e = parse_ok("ref-cycles");
	CHECK(e.attr.config == PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles");
	e = parse_ok("cs");
	CHECK(e.attr.type == PERF_TYPE_SOFTWARE && e.attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES, "cs alias");
	e = parse_ok("faults");
	CHECK(e.attr.config == PERF_COUNT_SW_PAGE_FAULTS, "faults alias");
	e = parse_ok("migrations");
	CHECK(e.attr.config == PERF_COUNT_SW_CPU_MIGRATIONS, "migrations alias");
	e = parse_ok("major-faults");
	CHECK(e.attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults");
	e = parse_ok("dummy");
	CHECK(e.attr.config == PERF_COUNT_SW_DUMMY, "dummy");
	CHECK_STR(e.name, "dummy", "name kept");
}

static void test_cache(void)
{
	struct evspec e;

	e = parse_ok("L1-dcache-load-misses");
	CHECK(e.attr.type == PERF_TYPE_HW_CACHE && e.attr.config == (PERF_COUNT_HW_CACHE_L1D |
	      (PERF_COUNT_HW_CACHE_OP_READ << 8) | ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16)),
	      "L1-dcache-load-misses config");
	e = parse_ok("L1-dcache-loads");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8)), "L1-dcache-loads = access");
	e = parse_ok("LLC-stores");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_WRITE << 8)), "LLC-stores");
	e = parse_ok("dTLB-load-misses");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (1 << 16)),
	      "dTLB-load-misses");
	e = parse_ok("iTLB-load-misses");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_ITLB | (1 << 16)), "iTLB-load-misses");
	e = parse_ok("L1-icache-prefetches");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_L1I | (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8)), "prefetches");
	e = parse_ok("branch-loads");
	CHECK(e.attr.config == PERF_COUNT_HW_CACHE_BPU, "branch-loads (cache table, not 'branches')");
	e = parse_ok("node-load-misses");
	CHECK(e.attr.config == (PERF_COUNT_HW_CACHE_NODE | (1 << 16)), "node-load-misses");
	parse_bad("L1-dcache-eats", "unknown event");
	parse_bad("L2-dcache-loads", "unknown event");
}

static void test_raw(void)
{
	struct evspec e = parse_ok("r1a8");

	CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0x1a8, "r1a8 raw");
	e = parse_ok("rFFFFFFFFFFFFFFFF");
	CHECK(e.attr.config == UINT64_MAX, "64-bit raw");
	parse_bad("rxyz", "raw event");
	parse_bad("r1FFFFFFFFFFFFFFFF", "raw event");
	parse_bad("r", "unknown event");
}

static void test_modifiers(void)
{
	struct evspec e = parse_ok("cycles:u");

	CHECK(!e.attr.exclude_user && e.attr.exclude_kernel && e.attr.exclude_hv && e.attr.exclude_guest &&
	      !e.attr.exclude_host && e.has_modifiers, ":u = exclude kernel, hv, guest");
	e = parse_ok("cycles:k");
	CHECK(e.attr.exclude_user && !e.attr.exclude_kernel && e.attr.exclude_hv && !e.attr.exclude_guest,
	      ":k = exclude user, hv");
	e = parse_ok("cycles:h");
	CHECK(e.attr.exclude_user && e.attr.exclude_kernel && !e.attr.exclude_hv, ":h = exclude user, kernel");
	e = parse_ok("cycles:uk");
	CHECK(!e.attr.exclude_user && !e.attr.exclude_kernel && e.attr.exclude_hv && e.attr.exclude_guest,
	      ":uk = exclude hv, guest");
	e = parse_ok("cycles:G");
	CHECK(!e.attr.exclude_guest && e.attr.exclude_host && EXCL(e) == EXCL_HOST, ":G = exclude host");
	e = parse_ok("cycles:H");
	CHECK(e.attr.exclude_guest && !e.attr.exclude_host, ":H = exclude guest");
	e = parse_ok("cycles:Gu");
	CHECK(!e.attr.exclude_guest && e.attr.exclude_host && e.attr.exclude_kernel,
	      ":Gu = guest user only: G first keeps guest");
	e = parse_ok("cycles:I");
	CHECK(e.attr.exclude_idle && !e.has_modifiers && EXCL(e) == EXCL_IDLE, ":I = exclude idle only");
	e = parse_ok("cycles:p");
	CHECK(e.attr.precise_ip == 1 && e.attr.exclude_guest, ":p precise 1, implies exclude_guest");
	e = parse_ok("cycles:ppp");
	CHECK(e.attr.precise_ip == 3, ":ppp precise 3");
	e = parse_ok("cycles:P");
	CHECK(e.attr.precise_ip == 3, ":P max precise");
	e = parse_ok("instructions:upp");
	CHECK(e.attr.precise_ip == 2 && e.attr.exclude_kernel, ":upp");
	e = parse_ok("cpu-clock:k");
	CHECK(e.attr.type == PERF_TYPE_SOFTWARE && e.attr.exclude_user, "software event with a modifier");
	CHECK_STR(e.name, "cpu-clock:k", "name keeps the modifier");
	parse_bad("cycles:x", "unknown modifier 'x'");
	parse_bad("cycles:pppp", "ppp");
	parse_bad("cycles:", "empty modifier");
}

static void test_pmu(void)
{
	struct evspec e = parse_ok("cpu/event=0x3c,umask=0x01,inv,cmask=2/");

	CHECK(e.attr.type == 4 && e.attr.config == (0x3c | (0x01 << 8) | (1u << 23) | (2u << 24)),
	      "PMU terms placed by format (config 0x%llx)", (unsigned long long)e.attr.config);
	e = parse_ok("cpu/config=0x1234,config1=5,name=mine/");
	CHECK(e.attr.config == 0x1234 && e.attr.config1 == 5, "built-in config terms");
	CHECK_STR(e.name, "mine", "name= term names the event");
	e = parse_ok("cpu/ldlat=30/");
	CHECK(e.attr.config1 == 30, "term placed in config1");
	e = parse_ok("cpu/inst-retired/");
	CHECK(e.attr.config == (0xc0 | (0x01 << 8)), "alias from the events directory");
	e = parse_ok("cpu/cpu-cycles,cmask=1/:u");
	CHECK(e.attr.config == (0x3c | (1u << 24)) && e.attr.exclude_kernel, "alias + term + modifier");
	e = parse_ok("uncore_x/split=0xff/");
	CHECK(e.attr.type == 17 && e.attr.config == (0xfULL | (0xfULL << 32)), "split bit ranges");
	parse_bad("uncore_x/split=0x1ff/", "does not fit");
	parse_bad("cpu/umask=0x100/", "does not fit");
	parse_bad("nopmu/config=1/", "PMU 'nopmu' not found");
	parse_bad("cpu/bogus=1/", "no term 'bogus'");
	parse_bad("cpu/event=zz/", "wants a number");
	parse_bad("cpu//", "no terms");
	parse_bad("cpu/event=1", "pmu/term");
	parse_bad("../cpu/config=1/", "PMU");
}

static void test_tracepoints(const char *fixtures)
{
	char sysfs[512], tracefs[512];
	struct evspec e;

	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", fixtures);
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs", fixtures);
	evspec_set_roots(sysfs, tracefs);
	e = parse_ok("sched:sched_switch");
	CHECK(e.attr.type == PERF_TYPE_TRACEPOINT && e.attr.config == 316, "tracepoint id from tracefs");
	e = parse_ok("sched:sched_switch:k");
	CHECK(e.attr.config == 316 && e.attr.exclude_user, "tracepoint with a modifier");
	parse_bad("sched:nope", "not found");
	parse_bad("sched:a.b", "not a known event");
	parse_bad("sched:../x", "PMU");
	snprintf(tracefs, sizeof(tracefs), "%s/notracefs", fixtures);
	evspec_set_roots(sysfs, tracefs);
	parse_bad("sched:sched_switch", "mount -t tracefs nodev /sys/kernel/tracing");
}

static void test_lists(void)
{
	struct evspec *evs;
	size_t n;
	unsigned bits;
	char buf[64];

	CHECK(evspec_parse_list("cycles,cpu/event=0x3c,umask=1/,cs:u", &evs, &n, err, sizeof(err)) == 0 && n == 3,
	      "list with commas inside a PMU event: %s", err);
	if (n == 3) {
		CHECK_STR(evs[1].name, "cpu/event=0x3c,umask=1/", "PMU item kept whole");
		CHECK(evs[2].attr.exclude_kernel, "modifier on the last item");
	}
	free(evs);
	CHECK(evspec_parse_list("cycles,,cs", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "empty"), "a,,b rejected");
	CHECK(evspec_parse_list("cycles,", &evs, &n, err, sizeof(err)) < 0, "trailing comma rejected");
	CHECK(evspec_parse_list("", &evs, &n, err, sizeof(err)) < 0, "empty list rejected");
	CHECK(evspec_parse_list("cycles,nope", &evs, &n, err, sizeof(err)) < 0 && strstr(err, "nope"),
	      "unknown event in a list named");

	CHECK(exclude_parse("user,hv,guest", &bits, err, sizeof(err)) == 0 && bits == (EXCL_USER | EXCL_HV | EXCL_GUEST),
	      "exclude words");
	exclude_format(bits, buf, sizeof(buf));
	CHECK_STR(buf, "user,hv,guest", "exclude round trip");
	CHECK(exclude_parse("", &bits, err, sizeof(err)) == 0 && bits == 0, "empty exclude = none");
	CHECK(exclude_parse("user,bogus", &bits, err, sizeof(err)) < 0 && strstr(err, "bogus"), "unknown word named");
	exclude_format(EXCL_ALL, buf, sizeof(buf));
	CHECK_STR(buf, "user,kernel,hv,idle,host,guest", "all six");
	{
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		evspec_set_exclude(&a, EXCL_KERNEL | EXCL_IDLE | EXCL_HOST);
		CHECK(a.exclude_kernel && a.exclude_idle && a.exclude_host && !a.exclude_user && !a.exclude_guest &&
		      evspec_exclude_bits(&a) == (EXCL_KERNEL | EXCL_IDLE | EXCL_HOST), "attr bits round trip");
	}
}

int main(int argc, char **argv)
{
	char sysfs[512];

	if (argc < 2) {
		fprintf(stderr, "usage: test_evspec FIXTURES\n");
		return 2;
	}
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", argv[1]);
	evspec_set_roots(sysfs, NULL);
	test_names();
	test_cache();
	test_raw();
	test_modifiers();
	test_pmu();
	test_tracepoints(argv[1]);
	test_lists();
	parse_bad("", "empty");
	parse_bad("nosuchevent", "unknown event 'nosuchevent'");
	return check_done();
}
