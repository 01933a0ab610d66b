// SPDX-License-Identifier: GPL-2.0
/*
 * BPF arena from user space, no BPF program: create a BPF_MAP_TYPE_ARENA
 * map with BPF_F_MMAPABLE, mmap it, touch every page (each first touch
 * faults a page in through bpf_map_alloc_pages()), check the pages are
 * zeroed and charged to our memcg, then unmap and close and check the
 * charge goes away (no leak).
 * Usage: arena_test NPAGES   (run inside a cgroup v2 with memory on)
 * Prints "# ..." lines and exits 0 on success, 1 on a failed check,
 * 2 when the arena cannot be created.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

static char cgpath[512];

static long memcg_current(void)
{
	char path[600];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", cgpath);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long npages = argc > 1 ? atol(argv[1]) : 1024;
	long psz = sysconf(_SC_PAGESIZE), before, touched, after, i;
	union bpf_attr attr;
	int fd, bad = 0, tries;
	char line[600];
	unsigned char *p;
	FILE *f;

	f = fopen("/proc/self/cgroup", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = 0;
				snprintf(cgpath, sizeof(cgpath), "%s", line + 3);
			}
		fclose(f);
	}
	if (!strcmp(cgpath, "/"))
		cgpath[0] = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARENA;
	attr.max_entries = npages;
	attr.map_flags = BPF_F_MMAPABLE;
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0) {
		printf("# arena map create: %s\n", strerror(errno));
		return 2;
	}
	p = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("# arena mmap: %s\n", strerror(errno));
		return 2;
	}
	before = memcg_current();
	for (i = 0; i < npages; i++) {
		unsigned char *q = p + i * psz;

		if (q[0] || q[psz - 1] || memchr(q, 1, psz))
			bad++;
		memset(q, 0xa5, psz);
		if (q[psz / 2] != 0xa5)
			bad++;
	}
	touched = memcg_current();
	munmap(p, npages * psz);
	close(fd);
	/* the map is freed from a workqueue: wait for the charge to go */
	for (tries = 0; tries < 100; tries++) {
		after = memcg_current();
		if (after - before < 128 * psz)
			break;
		usleep(50000);
	}
	printf("# arena: cgroup %s pages %ld bad %d memory.current before %ld touched %ld after %ld\n",
	       cgpath[0] ? cgpath : "/", npages, bad, before, touched, after);
	if (bad)
		return 1;
	if (before < 0) {
		printf("# arena: no memory.current (not in a memcg)\n");
		return 1;
	}
	/* charged: at least npages minus one per-cpu stock batch */
	if (touched - before < (npages - 64) * psz) {
		printf("# arena: pages not charged to the memcg\n");
		return 1;
	}
	/* uncharged again, up to the per-cpu stocks */
	if (after - before > 128 * psz) {
		printf("# arena: %ld bytes still charged after free\n", after - before);
		return 1;
	}
	return 0;
}
