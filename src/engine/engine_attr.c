/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine attrs: the perf_event_attr of a sampling event (rate, clock,
 * read format, call-graph bits) and of the tracking event, and the record
 * layout that follows from the call-graph options. No state: the events
 * module opens what these build, and the unit tests check them. */
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "perfsys.h"
#include "unwind.h"

void engine_attr_build(struct perf_event_attr *attr, const struct evspec *ev,
		       const struct engine_opts *o, bool inherit)
{
	*attr = ev->attr;
	attr->size = sizeof(*attr);
	attr->sample_type = RECORD_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->inherit = inherit;
	if (o->period) {
		/* Every sample's period is -c's (record_layout.period): with
		 * PERF_SAMPLE_PERIOD the kernel would take a software event's
		 * or a tracepoint's every hit, whatever the period. */
		attr->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		attr->freq = 0;
		attr->sample_period = o->period;
	} else if (ev->attr.type == PERF_TYPE_TRACEPOINT) {
		/* Tracepoints: every hit, as perf does, unless -c says otherwise. */
		attr->freq = 0;
		attr->sample_period = 1;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq;
	}
	attr->watermark = 1;
	/* Times comparable across CPUs and with clock_gettime: the drain merges
	 * the CPUs' records by time up to "now less a slack". */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* read() then tells how long the event really ran: multiplexing. */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	engine_attr_callgraph(attr, &o->cg);
}

void engine_attr_layout(struct record_layout *layout, const struct callgraph_opts *cg, uint64_t period)
{
	memset(layout, 0, sizeof(*layout));
	layout->period = period;
	switch (cg->mode) {
	case CALLGRAPH_FP:
		layout->extra = PERF_SAMPLE_CALLCHAIN;
		if ((layout->regs_user_mask = unwind_regs_mask()) != 0)
			layout->extra |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		break;
	case CALLGRAPH_DWARF:
		layout->extra = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		layout->regs_user_mask = unwind_regs_mask();
		break;
	case CALLGRAPH_LBR:
		/* The kernel half from the callchain, the user half from the LBR. */
		layout->extra = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		break;
	default:
		break;
	}
}

/* The attr bits of a call-graph mode, as perf record -g / --call-graph sets them. */
void engine_attr_callgraph(struct perf_event_attr *attr, const struct callgraph_opts *cg)
{
	struct record_layout lay;

	engine_attr_layout(&lay, cg, 0);
	if (lay.extra == 0)
		return;
	attr->sample_type |= lay.extra;
	attr->sample_max_stack = cg->max_stack;
	if (cg->mode == CALLGRAPH_DWARF) {
		attr->sample_regs_user = lay.regs_user_mask;
		attr->sample_stack_user = cg->stack_size;
		/* User frames come from unwinding the stack copy; the kernel
		 * still gives its own half of the chain. */
		attr->exclude_callchain_user = 1;
	} else if (cg->mode == CALLGRAPH_FP && lay.regs_user_mask) {
		attr->sample_regs_user = lay.regs_user_mask;
		attr->sample_stack_user = CALLGRAPH_LEAF_STACK;
	} else if (cg->mode == CALLGRAPH_LBR) {
		attr->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					   PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES;
		attr->exclude_callchain_user = 1;
	}
}

/* Whether MMAP2 records may carry build-ids (attr.build_id, Linux 5.12):
 * probed once with a disabled event on ourselves; a kernel that rejects
 * the bit gets the inode form, silently. */
static bool mmap_build_id_supported(void)
{
	static int state; /* 0 unknown, 1 yes, -1 no */
	struct perf_event_attr attr;
	int fd;

	if (state)
		return state > 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perfsys_open(&attr, 0, -1, -1, 0);
	state = fd >= 0 ? 1 : -1;
	if (fd >= 0)
		close(fd);
	return state > 0;
}

void engine_attr_tracking(struct perf_event_attr *attr, bool inherit)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = RECORD_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	/* The build-id keys the file as it was mapped, even once replaced. */
	attr->build_id = mmap_build_id_supported();
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->inherit = inherit;
	attr->watermark = 1;
	attr->use_clockid = 1; /* as the sampling events': one timeline */
	attr->clockid = CLOCK_MONOTONIC;
	/* It counts nothing, and side-band records come regardless: excluding
	 * the kernel (as perf's aux dummy does) lets perf_event_paranoid=2
	 * allow it for an unprivileged -p PID --exclude kernel. */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

bool engine_attr_never_multiplexed(uint32_t type)
{
	return type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT;
}
