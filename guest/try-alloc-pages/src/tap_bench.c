// SPDX-License-Identifier: GPL-2.0
/*
 * try-alloc-pages guest module: micro-benchmark and memcg probe.
 *
 * Built out of tree against the kernel under test, loaded in the guest
 * only. It measures what exists on each kernel: the try_alloc_pages()
 * parts are compiled only when <linux/gfp.h> defines try_alloc_pages
 * (the series does, base does not).
 *
 * mode=bench      print "tap: <key> <value>" lines (ns per alloc+free, NMI
 *                 success rates, memcg charge cost) at load; rmmod after.
 * mode=hold       allocate nr pages with try_alloc_pages() (ctx=task|nmi)
 *                 and keep them until rmmod, which frees them with
 *                 free_pages_nolock(); memory.current shows the charge meanwhile.
 */
#include <linux/module.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <asm/apic.h>
#include <asm/nmi.h>

static char *mode = "bench";
module_param(mode, charp, 0444);
static char *ctx = "task";
module_param(ctx, charp, 0444);
static int nr = 256;
module_param(nr, int, 0444);
static int iters = 4000;
module_param(iters, int, 0444);
static int trials = 7;
module_param(trials, int, 0444);
static int nmis = 300;
module_param(nmis, int, 0444);

#ifdef try_alloc_pages
#define HAVE_TAP 1
#else
#define HAVE_TAP 0
#endif

enum kind { K_NOWAIT, K_NOWAIT_ZERO, K_KERNEL, K_KERNEL_ACCOUNT, K_TAP };
static const char * const kind_name[] = {
	"nowait", "nowait_zero", "kernel", "kernel_account", "try_alloc",
};

static struct page *k_alloc(enum kind k, unsigned int order)
{
	switch (k) {
	case K_NOWAIT:
		return alloc_pages(GFP_NOWAIT | __GFP_NOWARN, order);
	case K_NOWAIT_ZERO:
		return alloc_pages(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO, order);
	case K_KERNEL:
		return alloc_pages(GFP_KERNEL, order);
	case K_KERNEL_ACCOUNT:
		return alloc_pages(GFP_KERNEL | __GFP_ACCOUNT, order);
	case K_TAP:
#if HAVE_TAP
		return try_alloc_pages(NUMA_NO_NODE, order);
#else
		return NULL;
#endif
	}
	return NULL;
}

static void k_free(enum kind k, struct page *page, unsigned int order)
{
#if HAVE_TAP
	if (k == K_TAP) {
		free_pages_nolock(page, order);
		return;
	}
#endif
	__free_pages(page, order);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* median over trials of ns per alloc+free; -1 when the allocation failed */
static s64 bench_one(enum kind k, unsigned int order)
{
	u64 t[16];
	int i, j, n = min(trials, 16);

	for (j = 0; j < n; j++) {
		u64 start = ktime_get_ns();

		for (i = 0; i < iters; i++) {
			struct page *p = k_alloc(k, order);

			if (!p)
				return -1;
			k_free(k, p, order);
		}
		t[j] = ktime_get_ns() - start;
		cond_resched();
	}
	sort(t, n, sizeof(t[0]), cmp_u64, NULL);
	return div_u64(t[n / 2], iters);
}

/* NMI side */

struct nmi_job {
	unsigned int order;
	bool keep;		/* hand the page back instead of freeing it */
	struct mem_cgroup *memcg;	/* charge here (NMI has no task memcg) */
	struct page *page;
	int ok;
	int fail;
	int done;
};
static struct nmi_job *nmi_job;
static atomic_t nmi_seen;

static int tap_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct nmi_job *j = xchg(&nmi_job, NULL);
	struct page *p;

	if (!j)
		return NMI_DONE;
	atomic_inc(&nmi_seen);
	if (j->memcg) {
		struct mem_cgroup *old = set_active_memcg(j->memcg);

		p = k_alloc(K_TAP, j->order);
		set_active_memcg(old);
	} else {
		p = k_alloc(K_TAP, j->order);
	}
	if (p) {
		j->ok++;
		if (j->keep)
			j->page = p;
		else
			k_free(K_TAP, p, j->order);
	} else {
		j->fail++;
	}
	smp_store_release(&j->done, 1);
	return NMI_HANDLED;
}

static bool nmi_once(struct nmi_job *j)
{
	u64 deadline;
	bool got;

	j->done = 0;
	preempt_disable();
	WRITE_ONCE(nmi_job, j);
	__apic_send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	deadline = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;
	while (!smp_load_acquire(&j->done) && ktime_get_mono_fast_ns() < deadline)
		cpu_relax();
	got = !xchg(&nmi_job, NULL);
	while (got && !smp_load_acquire(&j->done))
		cpu_relax();
	preempt_enable();
	return got;
}

/* The hammer: another CPU takes and drops zone->lock in a loop. */
static struct zone *hammer_zone;
static int hammer_hold_ns = 2000;
module_param(hammer_hold_ns, int, 0444);
static unsigned long hammer_rounds;

static int hammer_fn(void *arg)
{
	while (!kthread_should_stop()) {
		unsigned long flags;

		spin_lock_irqsave(&hammer_zone->lock, flags);
		ndelay(hammer_hold_ns);
		spin_unlock_irqrestore(&hammer_zone->lock, flags);
		hammer_rounds++;
		cpu_relax();
		if (!(hammer_rounds & 1023))
			cond_resched();
	}
	return 0;
}

static void nmi_rates(const char *label)
{
	unsigned int order;

	for (order = 0; order <= PAGE_ALLOC_COSTLY_ORDER; order++) {
		struct nmi_job j = { .order = order };
		int i, lost = 0;

		for (i = 0; i < nmis; i++)
			if (!nmi_once(&j))
				lost++;
		pr_info("tap: nmi_%s_order%u ok %d fail %d lost %d\n",
			label, order, j.ok, j.fail, lost);
	}
}

static void bench_nmi(void)
{
	struct task_struct *t;
	struct page *p;
	int cpu, other;

	if (register_nmi_handler(NMI_LOCAL, tap_nmi, 0, "tap_bench")) {
		pr_info("tap: nmi_handler unavailable\n");
		return;
	}
	nmi_rates("idle");

	p = alloc_page(GFP_KERNEL);
	if (!p)
		goto out;
	hammer_zone = page_zone(p);
	__free_page(p);
	cpu = get_cpu();
	put_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other >= nr_cpu_ids) {
		pr_info("tap: nmi_hammer unavailable (one CPU)\n");
		goto out;
	}
	t = kthread_create(hammer_fn, NULL, "tap_hammer");
	if (IS_ERR(t))
		goto out;
	kthread_bind(t, other);
	wake_up_process(t);
	msleep(20);
	/* stay on our CPU while the hammer runs on the other one */
	migrate_disable();
	nmi_rates("hammer");
	migrate_enable();
	kthread_stop(t);
	pr_info("tap: hammer_rounds %lu hold_ns %d zone %s\n", hammer_rounds,
		hammer_hold_ns, hammer_zone->name);
out:
	unregister_nmi_handler(NMI_LOCAL, "tap_bench");
	pr_info("tap: nmi_seen %d\n", atomic_read(&nmi_seen));
}

static void bench(void)
{
	unsigned int order;
	enum kind k;

	pr_info("tap: have_try_alloc_pages %d\n", HAVE_TAP);
	pr_info("tap: iters %d trials %d\n", iters, trials);
	/* warm up the per-cpu lists */
	bench_one(K_NOWAIT, 0);
	for (order = 0; order <= PAGE_ALLOC_COSTLY_ORDER; order++) {
		for (k = K_NOWAIT; k <= K_TAP; k++) {
			if (k == K_TAP && !HAVE_TAP)
				continue;
			pr_info("tap: ns_%s_order%u %lld\n", kind_name[k], order,
				bench_one(k, order));
		}
	}
	if (HAVE_TAP)
		bench_nmi();
}

/* hold mode */
static struct page **held;
static int nr_held;

static void hold_nmi(void)
{
	struct nmi_job j = { .order = 0, .keep = true };
	int i;

	/* as BPF does: charge the memcg of the task that set things up */
	j.memcg = get_mem_cgroup_from_mm(current->mm);

	/* allocate in NMI, keep in task context */
	for (i = 0; i < nr; i++) {
		j.page = NULL;
		if (!nmi_once(&j))
			break;
		if (j.page)
			held[nr_held++] = j.page;
	}
	mem_cgroup_put(j.memcg);
}

static int __init tap_init(void)
{
	if (!strcmp(mode, "bench")) {
		/*
		 * Stay loaded (the bench script unloads it): a failed load
		 * makes busybox insmod retry with init_module(), which ran
		 * the whole benchmark twice.
		 */
		bench();
		return 0;
	}
	if (!strcmp(mode, "hold")) {
		int i;

		if (!HAVE_TAP)
			return -EOPNOTSUPP;
		held = kvcalloc(nr, sizeof(*held), GFP_KERNEL);
		if (!held)
			return -ENOMEM;
		if (!strcmp(ctx, "nmi")) {
			if (register_nmi_handler(NMI_LOCAL, tap_nmi, 0, "tap_bench"))
				return -ENODEV;
			hold_nmi();
			unregister_nmi_handler(NMI_LOCAL, "tap_bench");
		} else {
			for (i = 0; i < nr; i++) {
				struct page *p = k_alloc(K_TAP, 0);

				if (p)
					held[nr_held++] = p;
			}
		}
		pr_info("tap: held %d of %d\n", nr_held, nr);
		return 0;
	}
	return -EINVAL;
}

static void __exit tap_exit(void)
{
	int i;

	for (i = 0; i < nr_held; i++)
		k_free(K_TAP, held[i], 0);
	pr_info("tap: freed %d\n", nr_held);
	kvfree(held);
}

module_init(tap_init);
module_exit(tap_exit);
MODULE_DESCRIPTION("try_alloc_pages guest benchmark and memcg probe");
MODULE_LICENSE("GPL");
