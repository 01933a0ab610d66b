// SPDX-License-Identifier: GPL-2.0
/*
 * nmialloc: a background load of try_alloc_pages() / free_pages_nolock()
 * from NMI and hard-IRQ context, for the medley's hotplug test and stress.
 * Loaded in the guest only, built out of tree against the medley kernel.
 *
 * While loaded, one kthread per online CPU sends NMIs to its own CPU and
 * an hrtimer (hard-IRQ mode) fires on each CPU every 2 ms. Each handler
 * allocates a page of order 0-3 with try_alloc_pages(nid, order), fills
 * it with a pattern derived from its PFN, and gives back the page the
 * previous handler on that CPU kept, after checking its pattern, with
 * free_pages_nolock(). So pages stay allocated across handlers, and a
 * page the allocator handed out twice, or one that changed under its
 * owner, shows as a pattern mismatch.
 *
 * The counters are in /sys/module/nmialloc/parameters/stats (nmis, irqs,
 * ok, fail, bad, lost); rmmod prints them. The load does nothing the
 * test counts on in time: the test asserts only bad == 0 and that some
 * allocation succeeded once some handlers ran.
 */
#include <linux/module.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <asm/apic.h>
#include <asm/nmi.h>

static int nid = NUMA_NO_NODE;
module_param(nid, int, 0444);

/* counted per CPU, only by the handlers of that CPU (or once all stopped) */
struct stats {
	unsigned long nmis, irqs, ok, fail, bad, lost;
};

struct slot {
	struct page *page;	/* kept by the last handler */
	unsigned int order;
	unsigned int next_order;
	bool nmi_pending;
	struct hrtimer timer;
	struct task_struct *thread;
	struct stats st;
};
static DEFINE_PER_CPU(struct slot, slots);
static bool stopping;

static struct stats total(void)
{
	struct stats t = {};
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stats *s = &per_cpu_ptr(&slots, cpu)->st;

		t.nmis += READ_ONCE(s->nmis);
		t.irqs += READ_ONCE(s->irqs);
		t.ok += READ_ONCE(s->ok);
		t.fail += READ_ONCE(s->fail);
		t.bad += READ_ONCE(s->bad);
		t.lost += READ_ONCE(s->lost);
	}
	return t;
}

/* /sys/module/nmialloc/parameters/stats: "nmis N irqs N ok N fail N bad N lost N" */
static int stats_get(char *buf, const struct kernel_param *kp)
{
	struct stats t = total();

	return sysfs_emit(buf, "nmis %lu irqs %lu ok %lu fail %lu bad %lu lost %lu\n",
			  t.nmis, t.irqs, t.ok, t.fail, t.bad, t.lost);
}

static const struct kernel_param_ops stats_ops = { .get = stats_get };
module_param_cb(stats, &stats_ops, NULL, 0444);

static u64 pattern(struct page *page, unsigned int i)
{
	return ((u64)page_to_pfn(page) << 20) ^ (i * 0x9e3779b97f4a7c15ULL);
}

/*
 * One word per 64 bytes: enough to see a page handed out twice or
 * written by someone else, and short enough for an NMI handler under
 * TCG and KASAN (the whole of an order-3 page took 6 ms there).
 */
#define STRIDE	(64 / sizeof(u64))

static void fill(struct page *page, unsigned int order)
{
	unsigned int i, n = (PAGE_SIZE << order) / sizeof(u64);
	u64 *p = page_address(page);

	for (i = 0; i < n; i += STRIDE)
		p[i] = pattern(page, i);
}

static bool intact(struct page *page, unsigned int order)
{
	unsigned int i, n = (PAGE_SIZE << order) / sizeof(u64);
	u64 *p = page_address(page);

	for (i = 0; i < n; i += STRIDE)
		if (p[i] != pattern(page, i))
			return false;
	return true;
}

/* One round: give back the kept page, allocate and keep a new one. */
static void round_here(struct slot *s)
{
	unsigned int order = s->next_order;
	struct page *page;

	s->next_order = (order + 1) % (PAGE_ALLOC_COSTLY_ORDER + 1);
	if (s->page) {
		if (!intact(s->page, s->order))
			s->st.bad++;
		free_pages_nolock(s->page, s->order);
		s->page = NULL;
	}
	if (READ_ONCE(stopping))
		return;
	page = try_alloc_pages(nid, order);
	if (!page) {
		s->st.fail++;
		return;
	}
	s->st.ok++;
	fill(page, order);
	s->page = page;
	s->order = order;
}

static int nmialloc_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct slot *s = this_cpu_ptr(&slots);

	if (!READ_ONCE(s->nmi_pending))
		return NMI_DONE;
	WRITE_ONCE(s->nmi_pending, false);
	s->st.nmis++;
	round_here(s);
	return NMI_HANDLED;
}

static enum hrtimer_restart nmialloc_timer(struct hrtimer *t)
{
	struct slot *s = container_of(t, struct slot, timer);
	unsigned long flags;

	/* an NMI may land here: keep the slot to one user at a time */
	local_irq_save(flags);
	s->st.irqs++;
	if (!READ_ONCE(s->nmi_pending))
		round_here(s);
	local_irq_restore(flags);
	if (READ_ONCE(stopping))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ms_to_ktime(2));
	return HRTIMER_RESTART;
}

static int nmialloc_thread(void *arg)
{
	struct slot *s = arg;

	hrtimer_start(&s->timer, ms_to_ktime(2), HRTIMER_MODE_REL_PINNED_HARD);
	while (!kthread_should_stop()) {
		u64 deadline;

		/*
		 * Interrupts stay on: the NMI may interrupt the timer's
		 * handler or the allocator called from it. An NMI that
		 * has not come within 2 s is counted lost and left
		 * pending (its handler still runs if it comes later).
		 */
		if (!READ_ONCE(s->nmi_pending)) {
			preempt_disable();
			WRITE_ONCE(s->nmi_pending, true);
			__apic_send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
			deadline = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;
			while (READ_ONCE(s->nmi_pending) &&
			       ktime_get_mono_fast_ns() < deadline)
				cpu_relax();
			if (READ_ONCE(s->nmi_pending))
				s->st.lost++;
			preempt_enable();
		}
		usleep_range(500, 1000);
	}
	return 0;
}

static void nmialloc_stop(void)
{
	int cpu;

	WRITE_ONCE(stopping, true);
	for_each_possible_cpu(cpu) {
		struct slot *s = per_cpu_ptr(&slots, cpu);

		if (s->thread)
			kthread_stop(s->thread);
		s->thread = NULL;
		hrtimer_cancel(&s->timer);
	}
	unregister_nmi_handler(NMI_LOCAL, "nmialloc");
	/* no handler runs any more: give back what the slots kept */
	for_each_possible_cpu(cpu) {
		struct slot *s = per_cpu_ptr(&slots, cpu);

		WRITE_ONCE(s->nmi_pending, false);
		if (s->page) {
			if (!intact(s->page, s->order))
				s->st.bad++;
			free_pages_nolock(s->page, s->order);
			s->page = NULL;
		}
	}
}

static int __init nmialloc_init(void)
{
	int cpu, err;

	if (nid != NUMA_NO_NODE && (nid < 0 || nid >= MAX_NUMNODES || !node_online(nid)))
		return -EINVAL;
	err = register_nmi_handler(NMI_LOCAL, nmialloc_nmi, 0, "nmialloc");
	if (err)
		return err;
	for_each_possible_cpu(cpu) {
		struct slot *s = per_cpu_ptr(&slots, cpu);

		hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		s->timer.function = nmialloc_timer;
	}
	for_each_online_cpu(cpu) {
		struct slot *s = per_cpu_ptr(&slots, cpu);
		struct task_struct *t;

		t = kthread_create(nmialloc_thread, s, "nmialloc/%d", cpu);
		if (IS_ERR(t)) {
			nmialloc_stop();
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		s->thread = t;
		wake_up_process(t);
	}
	pr_info("nmialloc: running on node %d\n", nid);
	return 0;
}

static void __exit nmialloc_exit(void)
{
	struct stats t;

	nmialloc_stop();
	t = total();
	pr_info("nmialloc: nmis %lu irqs %lu ok %lu fail %lu bad %lu lost %lu\n",
		t.nmis, t.irqs, t.ok, t.fail, t.bad, t.lost);
}

module_init(nmialloc_init);
module_exit(nmialloc_exit);
MODULE_DESCRIPTION("try_alloc_pages() from NMI and hard-IRQ context, as a load");
MODULE_LICENSE("GPL");
