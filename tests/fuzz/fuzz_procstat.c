/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary text as /proc/stat, and as /proc/loadavg
 * and /proc/meminfo (the first byte says where the input is cut in two),
 * through procstat's parsers. They must stay within the output array, never
 * read past the text's end (ASan), and give figures that hold together:
 * a CPU's busy time is part of its total unless the sum wrapped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procstat_cpu cpus[4];
	struct procstat_sys sys;
	struct procstat_task task;
	char *text, *second;
	size_t cut;
	int n;

	if (size == 0)
		return 0;
	cut = size > 1 ? data[0] % size : 0;
	text = malloc(size + 1); /* the input after its first byte, a null at the cut and at the end */
	if (text == NULL)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = text[size] = '\0';
	n = procstat_parse_cpus(text, cpus, 4);
	if (n < 0 || n > 4)
		abort();
	for (int i = 0; i < n; i++)
		if (cpus[i].cpu < 0)
			abort();
	(void)procstat_stat_complete(text); /* where a read may stop: in bounds on any text */
	(void)procstat_parse_task(text, &task); /* a task's stat: comm may hold anything */
	text[cut] = '\0';
	second = text + cut + 1; /* at most text + size: a null */
	if (procstat_parse_sys(text, second, &sys) == 0 && sys.mem_used > sys.mem_total)
		abort();
	free(text);
	return 0;
}
