/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One counter by name from a /proc file of "name value" lines
 * (/proc/vmstat) or "name: value" lines (/proc/meminfo), for the
 * defrag-mode guest programs. 0 when the file or the name is missing.
 */
#ifndef DEFRAG_MODE_VMSTAT_H
#define DEFRAG_MODE_VMSTAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value after "<name><sep>" in @path; 0 if missing. */
static inline unsigned long proc_value(const char *path, const char *name, char sep)
{
	char line[256];
	size_t len = strlen(name);
	unsigned long v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == sep) {
			v = strtoul(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* One /proc/vmstat counter (names are unique there). */
static inline unsigned long vmstat(const char *name)
{
	return proc_value("/proc/vmstat", name, ' ');
}

#endif
