// SPDX-License-Identifier: GPL-2.0
/*
 * perfsw: check that perf still works: open a software CPU clock event on
 * this task, burn a little CPU, read a non-zero count. Then try a hardware
 * cycles event and report (not fail) if the guest has no PMU.
 * Exit 0 if the software event counted, 1 otherwise.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_event(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

int main(void)
{
	volatile unsigned long x = 0;
	uint64_t count = 0;
	unsigned long i;
	int fd;

	fd = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (fd < 0) {
		perror("perf_event_open(task-clock)");
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < 20000000; i++)
		x += i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count) || !count) {
		fprintf(stderr, "task-clock did not count\n");
		return 1;
	}
	printf("task-clock %llu ns\n", (unsigned long long)count);
	close(fd);

	fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (fd < 0)
		perror("perf_event_open(cycles) (no PMU expected under TCG)");
	else
		printf("cycles event available\n");
	return 0;
}
