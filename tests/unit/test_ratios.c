/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Derived ratios: the arithmetic, the estimate mark and the formatting. The
 * hardware events behind them are absent on PMU-less hosts, so this is where
 * they are checked. */
#include "check.h"
#include "ratios.h"

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

static void test_exact(void)
{
	struct ratio_part p[] = {
		{ "task-clock", 1000, true, false },
		{ "cycles", 2000, true, false },
		{ "instructions", 2460, true, false },
		{ "cache-references", 400, true, false },
		{ "cache-misses", 18, true, false },
		{ "branches", 500, true, false },
		{ "branch-misses", 5, true, false },
	};
	struct ratio r[RATIO_COUNT];
	char buf[32];

	ratios_compute(p, 7, r);
	CHECK(r[RATIO_IPC].valid && near(r[RATIO_IPC].value, 1.23) && !r[RATIO_IPC].estimate,
	      "IPC = instructions / cycles, exact (%f)", r[RATIO_IPC].value);
	CHECK(r[RATIO_CACHE_MISS].valid && near(r[RATIO_CACHE_MISS].value, 4.5),
	      "cache miss %% = misses / references (%f)", r[RATIO_CACHE_MISS].value);
	CHECK(r[RATIO_BRANCH_MISS].valid && near(r[RATIO_BRANCH_MISS].value, 1.0),
	      "branch miss %% = branch-misses / branches (%f)", r[RATIO_BRANCH_MISS].value);
	ratios_format(&r[RATIO_IPC], RATIO_IPC, buf, sizeof(buf));
	CHECK_STR(buf, "1.23", "exact IPC has no mark");
	ratios_format(&r[RATIO_CACHE_MISS], RATIO_CACHE_MISS, buf, sizeof(buf));
	CHECK_STR(buf, "4.5%", "exact miss %");
	CHECK(ratios_any(r), "some ratio is valid");
}

static void test_missing(void)
{
	struct ratio_part p[] = {
		{ "cycles", 0, true, false },
		{ "instructions", 100, true, false },
		{ "cache-references", 400, false, false },   /* unsupported / never ran */
		{ "cache-misses", 18, true, false },
		{ "branch-misses", 5, true, false },          /* no branches at all */
	};
	struct ratio r[RATIO_COUNT];
	char buf[32];

	ratios_compute(p, 5, r);
	CHECK(!r[RATIO_IPC].valid, "no IPC when cycles is 0 (no division by zero)");
	CHECK(!r[RATIO_CACHE_MISS].valid, "no miss %% when references were never counted");
	CHECK(!r[RATIO_BRANCH_MISS].valid, "no branch miss %% without branches");
	CHECK(!ratios_any(r), "nothing valid");
	ratios_format(&r[RATIO_IPC], RATIO_IPC, buf, sizeof(buf));
	CHECK_STR(buf, "-", "an invalid ratio shows -");
	ratios_compute(NULL, 0, r);
	CHECK(!ratios_any(r), "no parts, no ratios");
}

static void test_estimate(void)
{
	struct ratio_part p[] = {
		{ "cpu-cycles:u", 1000, true, false },
		{ "instructions:u", 500, true, true },        /* scaled */
		{ "branch-instructions", 200, true, false },
		{ "branch-misses", 3, true, false },
	};
	struct ratio r[RATIO_COUNT];
	char buf[32];

	ratios_compute(p, 4, r);
	CHECK(r[RATIO_IPC].valid && near(r[RATIO_IPC].value, 0.5), "aliases and modifiers match");
	CHECK(r[RATIO_IPC].estimate, "a scaled part makes the ratio an estimate");
	ratios_format(&r[RATIO_IPC], RATIO_IPC, buf, sizeof(buf));
	CHECK_STR(buf, "~0.50", "estimates are marked ~");
	CHECK(r[RATIO_BRANCH_MISS].valid && !r[RATIO_BRANCH_MISS].estimate &&
	      near(r[RATIO_BRANCH_MISS].value, 1.5), "branch-instructions is branches");
	ratios_format(&r[RATIO_BRANCH_MISS], RATIO_BRANCH_MISS, buf, sizeof(buf));
	CHECK_STR(buf, "1.5%", "branch miss % text");
}

static void test_samples(void)
{
	struct agg_event ev[3];
	uint64_t samples[3], period[3];
	struct agg_counts c = { samples, period };
	struct ratio r[RATIO_COUNT];
	bool on[3] = { true, true, true };

	memset(ev, 0, sizeof(ev));
	memset(samples, 0, sizeof(samples));
	memset(period, 0, sizeof(period));
	strlcpy(ev[0].name, "cycles", sizeof(ev[0].name));
	strlcpy(ev[1].name, "instructions", sizeof(ev[1].name));
	strlcpy(ev[2].name, "cache-misses", sizeof(ev[2].name));
	c.period[0] = 4000000;
	c.period[1] = 6000000;
	c.period[2] = 100;
	ratios_from_samples(ev, on, 3, &c, r);
	CHECK(r[RATIO_IPC].valid && r[RATIO_IPC].estimate && near(r[RATIO_IPC].value, 1.5),
	      "sampled period sums give an estimated IPC (%f)", r[RATIO_IPC].value);
	CHECK(!r[RATIO_CACHE_MISS].valid, "no miss %% when references are not sampled");
	on[1] = false;
	ratios_from_samples(ev, on, 3, &c, r);
	CHECK(!r[RATIO_IPC].valid, "an event turned off gives no ratio");
	CHECK_STR(ratios_key(RATIO_IPC), "ipc", "JSON key");
	CHECK_STR(ratios_title(RATIO_CACHE_MISS), "Miss%", "title");
}

int main(void)
{
	test_exact();
	test_missing();
	test_estimate();
	test_samples();
	return check_done();
}
