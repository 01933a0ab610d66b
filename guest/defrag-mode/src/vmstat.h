/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One /proc/vmstat counter by name, for the defrag-mode guest programs.
 * Names are unique in /proc/vmstat; 0 when the file or the name is missing.
 */
#ifndef DEFRAG_MODE_VMSTAT_H
#define DEFRAG_MODE_VMSTAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline unsigned long vmstat(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	unsigned long v = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoul(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

#endif
