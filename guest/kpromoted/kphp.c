// SPDX-License-Identifier: GPL-2.0
/*
 * kphp: pages with kpromoted records pending on hot-pluggable memory,
 * for the memory hotplug test of guest/kpromoted/tests.
 *
 *   kphp NODE PAGES LO-HI [ACCESSES]
 *
 * maps PAGES anonymous pages (no THP) bound to NODE (mbind), writes each
 * with a pattern of its index, and records one access to every page in
 * the PFN range LO-HI with kpromoted's debugfs injector (a record
 * pending, not yet hot). With ACCESSES (more than 1), the pages are
 * only placed on NODE (the task policy binds them while they are first
 * written, then goes back to the default, so that no policy keeps them
 * there) and every page in LO-HI gets ACCESSES records in a row (hot,
 * for kpromoted to promote). It prints
 *
 *   in N recorded R refused F
 *
 * then waits until its stdin is closed, checks every page's content,
 * prints "intact N in M" (M: pages now in LO-HI) or "bad ..." and exits
 * 0 if every page is intact.
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

#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define PAGE		4096UL

static char *area;
static long npages;
static unsigned long long lo, hi;

static unsigned long long pfn_of(long i)
{
	static int fd = -1;
	uint64_t e;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &e, 8, (uintptr_t)(area + i * PAGE) / PAGE * 8) != 8)
		return 0;
	if (!(e & (1ULL << 63)))
		return 0;
	return e & ((1ULL << 55) - 1);
}

static int in_range(long i)
{
	unsigned long long pfn = pfn_of(i);

	return pfn >= lo && pfn < hi;
}

static uint64_t word(long i, long w)
{
	return ((uint64_t)i << 32) ^ (uint64_t)w * 0x9e3779b97f4a7c15ULL;
}

int main(int argc, char **argv)
{
	long i, w, in = 0, done = 0, refused = 0, bad = 0, acc = 1, a;
	unsigned long mask;
	char buf[64];
	int fd;

	if ((argc != 4 && argc != 5) ||
	    sscanf(argv[3], "%llu-%llu", &lo, &hi) != 2) {
		fprintf(stderr, "usage: kphp NODE PAGES LO-HI [ACCESSES]\n");
		return 2;
	}
	if (argc == 5)
		acc = atol(argv[4]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	mask = 1UL << atoi(argv[1]);
	npages = atol(argv[2]);
	area = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (madvise(area, npages * PAGE, MADV_NOHUGEPAGE))
		perror("madvise(MADV_NOHUGEPAGE)");
	if (acc > 1 ? syscall(SYS_set_mempolicy, MPOL_BIND, &mask,
			      sizeof(mask) * 8) :
		      syscall(SYS_mbind, area, npages * PAGE, MPOL_BIND, &mask,
			      sizeof(mask) * 8, 0)) {
		perror(acc > 1 ? "set_mempolicy" : "mbind");
		return 1;
	}
	for (i = 0; i < npages; i++)
		for (w = 0; w < (long)(PAGE / 8); w++)
			((uint64_t *)(area + i * PAGE))[w] = word(i, w);
	if (acc > 1 && syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0)) {
		perror("set_mempolicy(MPOL_DEFAULT)");
		return 1;
	}

	fd = open("/sys/kernel/debug/kpromoted/inject", O_WRONLY);
	if (fd < 0) {
		perror("open inject");
		return 1;
	}
	for (i = 0; i < npages; i++) {
		int n;

		if (!in_range(i))
			continue;
		in++;
		n = snprintf(buf, sizeof(buf), "%llu -1\n", pfn_of(i));
		for (a = 0; a < acc; a++)
			if (write(fd, buf, n) != n)
				break;
		if (a == acc)
			done++;
		else
			refused++;
	}
	close(fd);
	printf("in %ld recorded %ld refused %ld\n", in, done, refused);

	while (read(0, buf, sizeof(buf)) > 0)
		;

	in = 0;
	for (i = 0; i < npages; i++) {
		for (w = 0; w < (long)(PAGE / 8); w++)
			if (((uint64_t *)(area + i * PAGE))[w] != word(i, w))
				break;
		if (w < (long)(PAGE / 8))
			bad++;
		in += in_range(i);
	}
	if (bad)
		printf("bad %ld of %ld pages\n", bad, npages);
	else
		printf("intact %ld in %ld\n", npages, in);
	return bad ? 1 : 0;
}
