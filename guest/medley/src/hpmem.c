// SPDX-License-Identifier: GPL-2.0
/*
 * hpmem: memory for the hotplug test (guest/medley/tests), bound to one
 * node with the mbind() system call (no libnuma).
 *
 *   hpmem NODE PAGES LO-HI
 *
 * maps PAGES anonymous pages (no THP), binds them to NODE, fills them
 * (every fourth page holds the same content, so MADV_MERGE merges them;
 * the others are unique to their index), merges the range with
 * MADV_MERGE and records one access to each page with kpromoted's
 * debugfs injector (one access: a record pending, not yet hot). LO-HI is
 * a PFN range (the hot-pluggable DIMM); it reports how many pages are in
 * it. Then it reads commands on stdin, one a line:
 *
 *   verify   check every page's content ("verify ok N" or "verify bad ...")
 *   merge    MADV_MERGE the range again (into wherever the pages are now)
 *   record   record one access to every page again
 *   where    how many pages are in LO-HI now
 *   move     move every page back to NODE (mbind, MPOL_MF_MOVE_ALL)
 *   cow      write every merged page (breaking the merge) and verify
 *   exit     leave (exit status 0 when every verify was good)
 *
 * Every answer is one line on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#ifndef MADV_MERGE
#error "MADV_MERGE: build with -DMADV_MERGE=N from the kernel's uapi header (guest/medley/build)"
#endif
#define MPOL_BIND 2
#define MPOL_MF_MOVE_ALL (1 << 2)

static long psz;
static char *area;
static long npages;
static unsigned long long lo, hi;
static int bad_total;
static unsigned long mask;

static uint64_t word(long i, long w)
{
	if (i % 4 == 0)	/* merged: the same in every such page */
		return 0x5eed5eed00000000ULL ^ (uint64_t)w * 0x9e3779b97f4a7c15ULL;
	return ((uint64_t)i << 32) ^ (uint64_t)w * 0xc2b2ae3d27d4eb4fULL ^ 0xa5a5;
}

static void fill(long i)
{
	uint64_t *p = (uint64_t *)(area + i * psz);
	long w;

	for (w = 0; w < psz / 8; w++)
		p[w] = word(i, w);
}

static long check(long i)
{
	uint64_t *p = (uint64_t *)(area + i * psz);
	long w;

	for (w = 0; w < psz / 8; w++)
		if (p[w] != word(i, w))
			return w;
	return -1;
}

static unsigned long long pfn_of(long i)
{
	static int fd = -1;
	uint64_t e;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &e, 8, ((uintptr_t)(area + i * psz) / psz) * 8) != 8)
		return 0;
	if (!(e & (1ULL << 63)))
		return 0;
	return e & ((1ULL << 55) - 1);
}

static void where(void)
{
	long i, in = 0, none = 0;

	for (i = 0; i < npages; i++) {
		unsigned long long pfn = pfn_of(i);

		if (!pfn)
			none++;
		else if (pfn >= lo && pfn < hi)
			in++;
	}
	printf("where %ld of %ld in the range, %ld not present\n", in, npages, none);
}

static void record(void)
{
	int fd = open("/sys/kernel/debug/kpromoted/inject", O_WRONLY);
	long i, done = 0, refused = 0;

	if (fd < 0) {
		printf("record none: %s\n", strerror(errno));
		return;
	}
	for (i = 0; i < npages; i++) {
		char b[64];
		int n = snprintf(b, sizeof(b), "%llu -1\n", pfn_of(i));

		if (write(fd, b, n) == n)
			done++;
		else
			refused++;
	}
	close(fd);
	printf("record %ld recorded, %ld refused\n", done, refused);
}

static void verify(const char *what)
{
	long i, bad = 0, first = -1, w = -1;

	for (i = 0; i < npages; i++) {
		long x = check(i);

		if (x >= 0) {
			if (first < 0) {
				first = i;
				w = x;
			}
			bad++;
		}
	}
	if (bad) {
		uint64_t *p = (uint64_t *)(area + first * psz);

		bad_total += bad;
		printf("%s bad %ld pages, first page %ld word %ld: %#llx, want %#llx\n",
		       what, bad, first, w, (unsigned long long)p[w],
		       (unsigned long long)word(first, w));
	} else {
		printf("%s ok %ld\n", what, npages);
	}
}

/*
 * MADV_MERGE the whole area. EAGAIN says a page was left unmerged because
 * something else held it (a CPU's LRU batch, kpromoted migrating it):
 * the call is made again, ten times at most; another error is final.
 * (Silent: the tests read one line per command.)
 */
static int merge(void)
{
	int try;

	for (try = 0; try < 10; try++) {
		if (!madvise(area, npages * psz, MADV_MERGE))
			return 0;
		if (errno != EAGAIN)
			return -1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	char line[64];
	long i;
	int node;

	if (argc != 4 || sscanf(argv[3], "%llu-%llu", &lo, &hi) != 2) {
		fprintf(stderr, "usage: hpmem NODE PAGES LO-HI\n");
		return KSFT_FAIL;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	node = atoi(argv[1]);
	npages = atol(argv[2]);
	psz = sysconf(_SC_PAGESIZE);
	area = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return KSFT_FAIL;
	}
	mask = 1UL << node;
	if (syscall(SYS_mbind, area, npages * psz, MPOL_BIND, &mask,
		    sizeof(mask) * 8, 0)) {
		perror("mbind");
		return KSFT_FAIL;
	}
	if (madvise(area, npages * psz, MADV_NOHUGEPAGE))
		perror("madvise(MADV_NOHUGEPAGE)");
	for (i = 0; i < npages; i++)
		fill(i);
	if (merge()) {
		printf("merge failed: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	printf("ready %ld pages\n", npages);
	where();
	record();
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "verify")) {
			verify("verify");
		} else if (!strcmp(line, "merge")) {
			if (merge())
				printf("merge failed: %s\n", strerror(errno));
			else
				printf("merge ok\n");
		} else if (!strcmp(line, "record")) {
			record();
		} else if (!strcmp(line, "move")) {
			if (syscall(SYS_mbind, area, npages * psz, MPOL_BIND, &mask,
				    sizeof(mask) * 8, MPOL_MF_MOVE_ALL))
				printf("move failed: %s\n", strerror(errno));
			else
				printf("move ok\n");
		} else if (!strcmp(line, "where")) {
			where();
		} else if (!strcmp(line, "cow")) {
			for (i = 0; i < npages; i += 4)
				area[i * psz] ^= 1;
			for (i = 0; i < npages; i += 4)
				area[i * psz] ^= 1;
			verify("cow");
		} else if (!strcmp(line, "exit")) {
			break;
		} else {
			printf("unknown command '%s'\n", line);
		}
	}
	return bad_total ? KSFT_FAIL : KSFT_PASS;
}
