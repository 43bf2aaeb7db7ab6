/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec: turn perf-syntax event names into perf_event_attr. Pure parsing;
 * only tracepoints and PMU terms read sysfs/tracefs (roots overridable for tests). */
#ifndef PERFTOP_EVSPEC_H
#define PERFTOP_EVSPEC_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bits for --exclude and for the per-event exclude state. */
enum {
	EXCL_USER = 1u << 0,
	EXCL_KERNEL = 1u << 1,
	EXCL_HV = 1u << 2,
	EXCL_IDLE = 1u << 3,
	EXCL_HOST = 1u << 4,
	EXCL_GUEST = 1u << 5,
	EXCL_ALL = (1u << 6) - 1,
	EXCL_COUNT = 6,
};

#define EVSPEC_NAME_MAX 128

/* How samples carry their call stacks (-g, --call-graph). */
enum callgraph_mode { CALLGRAPH_NONE, CALLGRAPH_FP, CALLGRAPH_DWARF, CALLGRAPH_LBR };

struct callgraph_opts {
	enum callgraph_mode mode;
	uint32_t stack_size;      /* dwarf: user stack bytes copied per sample */
	uint16_t max_stack;       /* frames at most (attr.sample_max_stack) */
};

#define CALLGRAPH_DWARF_SIZE 8192
/* -g: the user registers and this much stack too, so that the leaf's return
 * address comes from its CFI: a leaf without a frame of its own would
 * otherwise hide its caller (gcc omits it in leaves, frame pointers or not). */
#define CALLGRAPH_LEAF_STACK 512

struct evspec {
	char name[EVSPEC_NAME_MAX];   /* display name: as typed, or pmu term name=… */
	struct perf_event_attr attr;  /* type, config, config1, config2, exclude_*, precise_ip */
	int has_modifiers;            /* :u/:k/:h/:G/:H given: --exclude must not override */
};

/* Roots default to "/sys" and "/sys/kernel/tracing" (falls back to
 * /sys/kernel/debug/tracing). Tests point them at fixture trees. */
void evspec_set_roots(const char *sysfs_root, const char *tracefs_root);

/* Parse one event ("cycles:u", "r1a8", "cpu/config=0x3c,name=x/", "sched:sched_switch").
 * Returns 0, or -1 with a one-line reason in err (what is wrong and how to fix it). */
int evspec_parse(const char *str, struct evspec *out, char *err, size_t errlen);

/* Comma-separated list; commas inside pmu/…/ belong to the event. *out is malloc'd. */
int evspec_parse_list(const char *list, struct evspec **out, size_t *n, char *err, size_t errlen);

/* "user,kernel,hv,idle,host,guest" -> EXCL_* bits. 0 or -1 with err. */
int evspec_exclude_parse(const char *list, unsigned *bits, char *err, size_t errlen);

/* EXCL_* bits <-> attr exclude_* fields. */
unsigned evspec_exclude_bits(const struct perf_event_attr *attr);
void evspec_set_exclude(struct perf_event_attr *attr, unsigned bits);

/* Writes the names of the set bits, comma separated ("user,hv"); "" when none. */
void evspec_exclude_format(unsigned bits, char *buf, size_t len);

/* Every known event with a probe (a real perf_event_open on this host) saying
 * whether it works; tracepoints are summarised, not listed one by one. */
void evspec_list_print(FILE *out);

#endif
