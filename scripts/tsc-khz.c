// SPDX-License-Identifier: GPL-2.0
/*
 * The host's TSC frequency in kHz, for guests under TCG: their TSC is the
 * host's (QEMU's rdtsc returns the host counter), and a kernel without
 * ACPI has no HPET or PM timer to calibrate it against, so it marks the
 * TSC unstable and times on refined-jiffies. boot.sh passes this value as
 * tsc_early_khz=. Measured against CLOCK_MONOTONIC_RAW over 3 x 200 ms,
 * keeping the pass whose clock reads bracketed the TSC reads most tightly.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec pause = { 0, 200000000 };
	double best = -1, khz = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double t0 = now();
		unsigned long long c0 = __rdtsc();
		double t0b = now();
		double t1, t1b, width;
		unsigned long long c1;

		nanosleep(&pause, NULL);
		t1 = now();
		c1 = __rdtsc();
		t1b = now();
		width = (t1b - t1) + (t0b - t0);
		if (best < 0 || width < best) {
			best = width;
			khz = (c1 - c0) / (((t1 + t1b) - (t0 + t0b)) / 2) / 1000;
		}
	}
	printf("%.0f\n", khz);
	return 0;
}
