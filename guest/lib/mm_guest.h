/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs share beyond the tree's
 * tools/testing/selftests/kselftest.h (which prints their KTAP and gives
 * their exit codes): the clocks they time with. Built in by each topic's
 * guest/<t>/build with -I guest/lib.
 */
#ifndef MM_GUEST_H
#define MM_GUEST_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (not set by anyone, never steps back). */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds of CPU time the calling thread has used. */
static inline double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
