// SPDX-License-Identifier: GPL-2.0
/*
 * kpidle: idle page tracking against kpromoted's page table scanner, for
 * guest/kpromoted/tests.
 *
 *   kpidle HOT COLD
 *
 * maps HOT + COLD anonymous pages (no THP) bound to node 1 (mbind: they
 * are placed there and kpromoted's policy check keeps them there), marks
 * every page idle through /sys/kernel/mm/page_idle/bitmap and reads the
 * bits back (a page still in a per-CPU LRU batch cannot be marked: only
 * the pages read back idle are counted), flushes the TLB (mprotect), so
 * that the next access walks the page table and sets the accessed bit,
 * and writes to each of the HOT pages. It prints
 *
 *   marked HOT_MARKED COLD_MARKED
 *   accessed HOT
 *
 * then waits until its stdin is closed (the caller lets the scanner pass
 * meanwhile), reads the bitmap again for the marked pages and prints
 *
 *   hot idle I of HOT_MARKED moved M
 *   cold idle I of COLD_MARKED moved M
 *
 * (moved: pages whose PFN changed since they were marked). A hot page the
 * scanner found accessed must not read idle; a cold page must.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND	2
#define PAGE		4096UL
#define BITMAP		"/sys/kernel/mm/page_idle/bitmap"

static int pagemap_fd, bitmap_fd;

static uint64_t pfn_of(char *addr)
{
	uint64_t e;

	if (pread(pagemap_fd, &e, 8, (uintptr_t)addr / PAGE * 8) != 8 ||
	    !(e & (1ULL << 63)))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/* The bitmap is read and written in 8-byte words of 64 PFNs each. */
static void set_idle(uint64_t pfn)
{
	uint64_t w = 1ULL << (pfn % 64);

	if (pwrite(bitmap_fd, &w, 8, pfn / 64 * 8) != 8)
		perror("write " BITMAP);
}

static int is_idle(uint64_t pfn)
{
	uint64_t w;

	if (pread(bitmap_fd, &w, 8, pfn / 64 * 8) != 8) {
		perror("read " BITMAP);
		return -1;
	}
	return (w >> (pfn % 64)) & 1;
}

int main(int argc, char **argv)
{
	long hot, n, i, marked[2] = { 0, 0 }, idle[2] = { 0, 0 };
	long moved[2] = { 0, 0 };
	unsigned long mask = 1UL << 1;
	uint64_t *pfns;
	char *area, buf[64];

	if (argc != 3) {
		fprintf(stderr, "usage: kpidle HOT COLD\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	hot = atol(argv[1]);
	n = hot + atol(argv[2]);
	pfns = calloc(n, sizeof(*pfns));
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	bitmap_fd = open(BITMAP, O_RDWR);
	if (!pfns || pagemap_fd < 0 || bitmap_fd < 0) {
		perror(bitmap_fd < 0 ? BITMAP : "pagemap");
		return 1;
	}
	area = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (madvise(area, n * PAGE, MADV_NOHUGEPAGE))
		perror("madvise(MADV_NOHUGEPAGE)");
	if (syscall(SYS_mbind, area, n * PAGE, MPOL_BIND, &mask,
		    sizeof(mask) * 8, 0)) {
		perror("mbind");
		return 1;
	}
	for (i = 0; i < n; i++)
		area[i * PAGE] = 1;
	for (i = 0; i < n; i++) {
		pfns[i] = pfn_of(area + i * PAGE);
		if (pfns[i])
			set_idle(pfns[i]);
	}
	for (i = 0; i < n; i++) {
		if (pfns[i] && is_idle(pfns[i]) == 1)
			marked[i >= hot]++;
		else
			pfns[i] = 0;
	}
	printf("marked %ld %ld\n", marked[0], marked[1]);

	/* Flush the TLB: an access that hits it sets no accessed bit. */
	if (mprotect(area, n * PAGE, PROT_READ) ||
	    mprotect(area, n * PAGE, PROT_READ | PROT_WRITE)) {
		perror("mprotect");
		return 1;
	}
	for (i = 0; i < hot; i++)
		area[i * PAGE]++;
	printf("accessed %ld\n", hot);

	while (read(0, buf, sizeof(buf)) > 0)
		;

	for (i = 0; i < n; i++) {
		if (!pfns[i])
			continue;
		if (pfn_of(area + i * PAGE) != pfns[i])
			moved[i >= hot]++;
		else if (is_idle(pfns[i]) == 1)
			idle[i >= hot]++;
	}
	printf("hot idle %ld of %ld moved %ld\n", idle[0], marked[0], moved[0]);
	printf("cold idle %ld of %ld moved %ld\n", idle[1], marked[1], moved[1]);
	return 0;
}
