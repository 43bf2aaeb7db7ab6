/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cpumap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int push(int **arr, size_t *n, size_t *cap, int v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		int *p = reallocarray(*arr, ncap, sizeof(**arr));

		if (p == NULL)
			return -ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

static int parse_num(const char **s, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	*v = strtol(*s, &end, 10);
	if (errno || *v < 0 || *v >= CPUMAP_MAX)
		return -EINVAL;
	*s = end;
	return 0;
}

int cpumap_parse_cpus(const char *s, int **out, size_t *n)
{
	int *arr = NULL;
	size_t cnt = 0, cap = 0, i, j;
	int err = -EINVAL;

	while (*s && *s != '\n') {
		long lo, hi;

		if (parse_num(&s, &lo))
			goto fail;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_num(&s, &hi) || hi < lo)
				goto fail;
		}
		for (long c = lo; c <= hi; c++)
			if ((err = push(&arr, &cnt, &cap, (int)c)) != 0)
				goto fail;
		err = -EINVAL;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto fail;
	}
	if (cnt == 0)
		goto fail;
	qsort(arr, cnt, sizeof(*arr), cmp_int);
	for (i = 1, j = 1; i < cnt; i++)
		if (arr[i] != arr[j - 1])
			arr[j++] = arr[i];
	*out = arr;
	*n = j;
	return 0;
fail:
	free(arr);
	return err;
}

int cpumap_online(const char *sysfs_root, int **out, size_t *n)
{
	char path[512], buf[4096];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs_root);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	err = cpumap_parse_cpus(buf, out, n);
	return err;
}

int cpumap_threads(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	struct dirent *de;
	int *arr = NULL;
	size_t cnt = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d)) != NULL) {
		long tid;
		char *end;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (push(&arr, &cnt, &cap, (int)tid)) {
			closedir(d);
			free(arr);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (cnt == 0) {
		free(arr);
		return -ESRCH;
	}
	if (cnt > 1)
		qsort(arr, cnt, sizeof(*arr), cmp_int);
	*out = arr;
	*n = cnt;
	return 0;
}

int cpumap_parse_pids(const char *s, pid_t **out, size_t *n)
{
	int *arr = NULL;
	size_t cnt = 0, cap = 0;

	while (*s) {
		char *end;
		long v;

		if (!isdigit((unsigned char)*s))
			goto fail;
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || v <= 0 || v > 4194304 /* PID_MAX_LIMIT */)
			goto fail;
		if (push(&arr, &cnt, &cap, (int)v))
			goto fail;
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto fail;
	}
	if (cnt == 0)
		goto fail;
	*out = arr;
	*n = cnt;
	return 0;
fail:
	free(arr);
	return -EINVAL;
}
