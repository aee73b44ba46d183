// SPDX-License-Identifier: GPL-2.0
/*
 * memremap_bench: time memremap_pages() of a device-private range.
 *
 * Harness code, not part of the patch series.  On load it reserves a free
 * physical address range of size bytes with request_free_mem_region(),
 * describes it as one MEMORY_DEVICE_PRIVATE range (as lib/test_hmm.c does
 * for its chunks), and then, iterations times, maps it with
 * memremap_pages() -- which populates the vmemmap and runs
 * memmap_init_zone_device() over every PFN -- and unmaps it again with
 * memunmap_pages().  Only memremap_pages() is timed.  Output, one line per
 * iteration and a final line, through the kernel log:
 *
 *   memremap_bench: iter=N size=BYTES memremap_ns=T
 *   memremap_bench: done iterations=N
 *
 * The range is released before init returns.  The module stays loaded
 * (init returns 0) so that a failed load is distinguishable from a
 * finished run; unload it with rmmod.  No page is ever handed out, so the
 * dev_pagemap callbacks are stubs.
 *
 * With floor_pages=P it measures the store floor instead: the time to
 * write P * sizeof(struct page) bytes with the cheapest stores this CPU
 * (or accelerator) offers.  The buffer (vmalloc_huge()) is written once
 * untimed, then each candidate writes it three times ("pick" phase):
 *
 *   movq8   eight 8-byte stores per 64 bytes (WRITE_ONCE, plain movq)
 *   memset  the kernel's memset()
 *   stosq   rep stosq
 *   movnti  eight 8-byte MOVNTI stores per 64 bytes, then sfence
 *
 * and the candidate with the smallest pick time then writes it
 * floor_reps more times ("run" phase), the floor's samples:
 *
 *   memremap_bench: floor phase=pick|run cand=C rep=K pages=P bytes=B ns=T
 *   memremap_bench: floor fastest=C
 *   memremap_bench: done floor
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
#include <linux/sizes.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#if !IS_ENABLED(CONFIG_DEVICE_PRIVATE)
#error "memremap_bench needs CONFIG_DEVICE_PRIVATE=y (and CONFIG_ZONE_DEVICE=y)"
#endif

static unsigned long size = SZ_1G;
module_param(size, ulong, 0444);
MODULE_PARM_DESC(size,
		 "Size of the device-private range in bytes, a multiple of the 2 MiB subsection (default 1073741824)");

static int iterations = 10;
module_param(iterations, int, 0444);
MODULE_PARM_DESC(iterations,
		 "Number of timed memremap_pages()/memunmap_pages() rounds (default 10)");

static unsigned long floor_pages;
module_param(floor_pages, ulong, 0444);
MODULE_PARM_DESC(floor_pages,
		 "Measure the store floor for this many struct pages instead of memremap_pages() (default 0: off)");

static int floor_reps = 11;
module_param(floor_reps, int, 0444);
MODULE_PARM_DESC(floor_reps,
		 "Timed writes of the fastest floor candidate (default 11)");

#define FLOOR_PICK_REPS	3

static void floor_movq8(void *buf, size_t bytes)
{
	u64 *p = buf, *end = buf + bytes;

	for (; p < end; p += 8) {
		WRITE_ONCE(p[0], 0);
		WRITE_ONCE(p[1], 0);
		WRITE_ONCE(p[2], 0);
		WRITE_ONCE(p[3], 0);
		WRITE_ONCE(p[4], 0);
		WRITE_ONCE(p[5], 0);
		WRITE_ONCE(p[6], 0);
		WRITE_ONCE(p[7], 0);
	}
}

static void floor_memset(void *buf, size_t bytes)
{
	memset(buf, 0, bytes);
}

static void floor_stosq(void *buf, size_t bytes)
{
#ifdef CONFIG_X86_64
	unsigned long cnt = bytes / 8;

	asm volatile("rep stosq"
		     : "+D" (buf), "+c" (cnt)
		     : "a" (0UL)
		     : "memory");
#else
	memset(buf, 0, bytes);
#endif
}

static void floor_movnti(void *buf, size_t bytes)
{
#ifdef CONFIG_X86_64
	u64 *p = buf, *end = buf + bytes;

	for (; p < end; p += 8) {
		asm volatile("movnti %1, 0(%0)\n\t"
			     "movnti %1, 8(%0)\n\t"
			     "movnti %1, 16(%0)\n\t"
			     "movnti %1, 24(%0)\n\t"
			     "movnti %1, 32(%0)\n\t"
			     "movnti %1, 40(%0)\n\t"
			     "movnti %1, 48(%0)\n\t"
			     "movnti %1, 56(%0)"
			     : : "r" (p), "r" (0UL) : "memory");
	}
	asm volatile("sfence" : : : "memory");
#else
	floor_movq8(buf, bytes);
#endif
}

static const struct {
	const char *name;
	void (*fn)(void *buf, size_t bytes);
} floor_cands[] = {
	{ "movq8", floor_movq8 },
	{ "memset", floor_memset },
	{ "stosq", floor_stosq },
	{ "movnti", floor_movnti },
};

static u64 floor_time(int c, void *buf, size_t bytes)
{
	u64 t0 = ktime_get_ns();

	floor_cands[c].fn(buf, bytes);
	return ktime_get_ns() - t0;
}

static int memremap_bench_floor(void)
{
	size_t bytes = floor_pages * sizeof(struct page);
	u64 best = U64_MAX;
	int c, k, fastest = 0;
	void *buf;

	if (floor_reps < 1) {
		pr_err("floor_reps=%d: must be at least 1\n", floor_reps);
		return -EINVAL;
	}
	if (floor_pages > (SIZE_MAX >> 1) / sizeof(struct page)) {
		pr_err("floor_pages=%lu: too large\n", floor_pages);
		return -EINVAL;
	}
	buf = vmalloc_huge(bytes, GFP_KERNEL);
	if (!buf) {
		pr_err("floor: cannot allocate %zu bytes\n", bytes);
		return -ENOMEM;
	}
	/* First touch, untimed: the timed writes find the pages mapped. */
	floor_movq8(buf, bytes);

	for (c = 0; c < ARRAY_SIZE(floor_cands); c++) {
		for (k = 0; k < FLOOR_PICK_REPS; k++) {
			u64 t = floor_time(c, buf, bytes);

			pr_info("floor phase=pick cand=%s rep=%d pages=%lu bytes=%zu ns=%llu\n",
				floor_cands[c].name, k, floor_pages, bytes, t);
			if (t < best) {
				best = t;
				fastest = c;
			}
			cond_resched();
		}
	}
	pr_info("floor fastest=%s\n", floor_cands[fastest].name);
	for (k = 0; k < floor_reps; k++) {
		u64 t = floor_time(fastest, buf, bytes);

		pr_info("floor phase=run cand=%s rep=%d pages=%lu bytes=%zu ns=%llu\n",
			floor_cands[fastest].name, k, floor_pages, bytes, t);
		cond_resched();
	}
	vfree(buf);
	pr_info("done floor\n");
	return 0;
}

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
	int i, ret = 0;

	if (floor_pages)
		return memremap_bench_floor();

	if (iterations < 1) {
		pr_err("iterations=%d: must be at least 1\n", iterations);
		return -EINVAL;
	}
	if (!size || !IS_ALIGNED(size, SUBSECTION_SIZE)) {
		pr_err("size=%lu: must be a multiple of %lu bytes (one subsection), 1 or more\n",
		       size, SUBSECTION_SIZE);
		return -EINVAL;
	}

	res = request_free_mem_region(&iomem_resource, size, KBUILD_MODNAME);
	if (IS_ERR_OR_NULL(res)) {
		ret = res ? PTR_ERR(res) : -ENOMEM;
		pr_err("request_free_mem_region(%lu bytes) failed: %d\n",
		       size, ret);
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
			pr_err("iter=%d: memremap_pages(%lu bytes) failed: %d\n",
			       i, size, ret);
			break;
		}
		memunmap_pages(pgmap);
		pr_info("iter=%d size=%lu memremap_ns=%llu\n", i, size, t);
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
MODULE_DESCRIPTION("Time memremap_pages() of a MEMORY_DEVICE_PRIVATE range, or the store floor (benchmark harness)");
