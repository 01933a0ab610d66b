// SPDX-License-Identifier: GPL-2.0
/*
 * A merged region survives compaction: MADV_MERGE 4096 pages of 64
 * distinct contents, fragment memory around them, compact, then check
 * every byte and that pages of equal contents still share one frame.
 * Prints how many frames compaction moved. Exit 0 on success.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_MERGE
#define MADV_MERGE 26
#endif
#define NPAGES	4096
#define KINDS	64

static long psize;

static uint64_t pfn_of(int fd, void *addr)
{
	uint64_t ent;

	if (pread(fd, &ent, 8, (uintptr_t)addr / psize * 8) != 8)
		return 0;
	return ent >> 63 ? ent & ((1ULL << 55) - 1) : 0;
}

static void fill(char *p, int kind)
{
	long i;

	for (i = 0; i < psize; i++)
		p[i] = (char)(kind * 37 + i * 13 + (i >> 9));
}

static int check(const char *p, int kind)
{
	long i;

	for (i = 0; i < psize; i++)
		if (p[i] != (char)(kind * 37 + i * 13 + (i >> 9)))
			return 0;
	return 1;
}

int main(void)
{
	static uint64_t before[NPAGES], after[NPAGES];
	size_t chunk = 64UL << 20;
	int fd, i, moved = 0, bad = 0, unshared = 0;
	char *p, *junk[2];
	FILE *f;

	psize = sysconf(_SC_PAGESIZE);
	fd = open("/proc/self/pagemap", O_RDONLY);
	/* Interleave the region with junk so that freeing the junk leaves holes */
	junk[0] = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	junk[1] = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || p == MAP_FAILED || junk[0] == MAP_FAILED ||
	    junk[1] == MAP_FAILED) {
		perror("setup");
		return 1;
	}
	madvise(p, NPAGES * psize, MADV_NOHUGEPAGE);
	for (i = 0; i < NPAGES; i++) {
		memset(junk[i & 1] + (size_t)i * psize * 2, 1, psize);
		fill(p + (size_t)i * psize, i % KINDS);
	}
	if (madvise(p, NPAGES * psize, MADV_MERGE)) {
		perror("MADV_MERGE");
		return 1;
	}
	munmap(junk[0], chunk);
	munmap(junk[1], chunk);
	for (i = 0; i < NPAGES; i++) {
		before[i] = pfn_of(fd, p + (size_t)i * psize);
		if (i >= KINDS && before[i] != before[i % KINDS])
			unshared++;
	}
	printf("# before compaction: %d of %d pages not sharing their frame\n",
	       unshared, NPAGES - KINDS);
	if (unshared || !before[0]) {
		printf("# pages were not merged\n");
		return 1;
	}
	f = fopen("/proc/sys/vm/compact_memory", "w");
	if (!f || fputs("1\n", f) < 0 || fclose(f)) {
		perror("compact_memory");
		return 1;
	}
	for (i = 0; i < NPAGES; i++) {
		after[i] = pfn_of(fd, p + (size_t)i * psize);
		if (after[i] != before[i])
			moved++;
		if (!check(p + (size_t)i * psize, i % KINDS))
			bad++;
		if (i >= KINDS && after[i] != after[i % KINDS])
			unshared++;
	}
	printf("# compaction moved %d of %d merged mappings; %d bad pages, %d unshared\n",
	       moved, NPAGES, bad, unshared);
	/* Copy on write still works after the move */
	p[5] ^= 1;
	if (pfn_of(fd, p) == after[0] || !check(p + KINDS * psize, 0))
		bad++;
	return bad || unshared;
}
