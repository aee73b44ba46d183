// SPDX-License-Identifier: GPL-2.0
/*
 * memremap_bench: time memremap_pages() of a device-private range.
 *
 * Harness code, not part of the patch series.  On load it reserves a free
 * physical address range of size_mb MiB with request_free_mem_region(),
 * describes it as one MEMORY_DEVICE_PRIVATE range (as lib/test_hmm.c does
 * for its chunks), and then, iterations times, maps it with
 * memremap_pages() -- which populates the vmemmap and runs
 * memmap_init_zone_device() over every PFN -- and unmaps it again with
 * memunmap_pages().  Only memremap_pages() is timed.  Output, one line per
 * iteration and a final line, through the kernel log:
 *
 *   memremap_bench: iter=N size_mb=M memremap_ns=T
 *   memremap_bench: done iterations=N
 *
 * The range is released before init returns.  The module stays loaded
 * (init returns 0) so that a failed load is distinguishable from a
 * finished run; unload it with rmmod.  No page is ever handed out, so the
 * dev_pagemap callbacks are stubs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/topology.h>

#if !IS_ENABLED(CONFIG_DEVICE_PRIVATE)
#error "memremap_bench needs CONFIG_DEVICE_PRIVATE=y (and CONFIG_ZONE_DEVICE=y)"
#endif

static unsigned long size_mb = 1024;
module_param(size_mb, ulong, 0444);
MODULE_PARM_DESC(size_mb,
		 "Size of the device-private range in MiB, a multiple of the 2 MiB subsection (default 1024)");

static int iterations = 10;
module_param(iterations, int, 0444);
MODULE_PARM_DESC(iterations,
		 "Number of timed memremap_pages()/memunmap_pages() rounds (default 10)");

static void memremap_bench_folio_free(struct folio *folio)
{
	/* No page is ever allocated from the range, so none is ever freed. */
}

static vm_fault_t memremap_bench_migrate_to_ram(struct vm_fault *vmf)
{
	/* Nothing maps the range into a process, so this cannot be reached. */
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops memremap_bench_ops = {
	.folio_free	= memremap_bench_folio_free,
	.migrate_to_ram	= memremap_bench_migrate_to_ram,
};

/* Not on the stack: it is large (the altmap) and outlives nothing. */
static struct dev_pagemap memremap_bench_pgmap;

static int __init memremap_bench_init(void)
{
	struct dev_pagemap *pgmap = &memremap_bench_pgmap;
	struct resource *res;
	unsigned long size;
	int i, ret = 0;

	if (iterations < 1) {
		pr_err("iterations=%d: must be at least 1\n", iterations);
		return -EINVAL;
	}
	if (!size_mb || size_mb > (ULONG_MAX >> 20)) {
		pr_err("size_mb=%lu: must be between 1 and %lu\n", size_mb,
		       ULONG_MAX >> 20);
		return -EINVAL;
	}
	size = size_mb << 20;
	if (!IS_ALIGNED(size, SUBSECTION_SIZE)) {
		pr_err("size_mb=%lu: must be a multiple of %lu MiB (one subsection)\n",
		       size_mb, SUBSECTION_SIZE >> 20);
		return -EINVAL;
	}

	res = request_free_mem_region(&iomem_resource, size, KBUILD_MODNAME);
	if (IS_ERR_OR_NULL(res)) {
		ret = res ? PTR_ERR(res) : -ENOMEM;
		pr_err("request_free_mem_region(%lu MiB) failed: %d\n",
		       size_mb, ret);
		return ret;
	}

	pgmap->type = MEMORY_DEVICE_PRIVATE;
	pgmap->range.start = res->start;
	pgmap->range.end = res->end;
	pgmap->nr_range = 1;
	pgmap->ops = &memremap_bench_ops;
	/* Any unique non-NULL token; memremap_pages() insists on one. */
	pgmap->owner = &memremap_bench_pgmap;

	pr_info("range %pR, %d iterations\n", res, iterations);

	for (i = 0; i < iterations; i++) {
		void *addr;
		u64 t0, t;

		t0 = ktime_get_ns();
		addr = memremap_pages(pgmap, numa_node_id());
		t = ktime_get_ns() - t0;
		if (IS_ERR(addr)) {
			/* memremap_pages() has already undone its own work. */
			ret = PTR_ERR(addr);
			pr_err("iter=%d: memremap_pages(%lu MiB) failed: %d\n",
			       i, size_mb, ret);
			break;
		}
		memunmap_pages(pgmap);
		pr_info("iter=%d size_mb=%lu memremap_ns=%llu\n", i, size_mb, t);
		cond_resched();
	}

	release_mem_region(res->start, resource_size(res));
	if (ret)
		return ret;

	pr_info("done iterations=%d\n", iterations);
	return 0;
}

static void __exit memremap_bench_exit(void)
{
	/* Everything was mapped, unmapped and released in init. */
}

module_init(memremap_bench_init);
module_exit(memremap_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Time memremap_pages() of a MEMORY_DEVICE_PRIVATE range (benchmark harness)");
