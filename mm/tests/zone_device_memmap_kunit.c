// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit test of the ZONE_DEVICE memmap template copy.
 *
 * memmap_init_zone_device() writes most struct pages of a range by copying
 * a template built through the slow path; memmap_init_zone_device_slow()
 * writes every page through the slow path, as the kernel did before the
 * template.  Map a small range of device-private memory, initialize its
 * memmap both ways over a poison pattern, and compare the two results byte
 * for byte: heads and
 * compound tails of several orders, with and without streaming stores.  A
 * word the template copy leaves unwritten keeps the poison; a field it
 * gets wrong differs from the slow path's.
 */
#include <kunit/test.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/tracepoint.h>
#include <trace/events/memmap.h>

#include "../mm_init.h"

#define ZDM_POISON	0xa5

struct zdm_case {
	const char *name;
	unsigned int order;
	unsigned int streaming;		/* a PGMAP_MEMMAP_STREAMING_* request */
};

static const struct zdm_case zdm_cases[] = {
	{ "order 0",			0, 0 },
	{ "order 0, streaming on",	0, PGMAP_MEMMAP_STREAMING_ON },
	{ "order 0, streaming off",	0, PGMAP_MEMMAP_STREAMING_OFF },
	{ "order 1",			1, 0 },
	{ "order 4, streaming on",	4, PGMAP_MEMMAP_STREAMING_ON },
	{ "order 4, streaming off",	4, PGMAP_MEMMAP_STREAMING_OFF },
	{ "order 9, streaming on",	9, PGMAP_MEMMAP_STREAMING_ON },
	{ "order 9, streaming off",	9, PGMAP_MEMMAP_STREAMING_OFF },
};

static void zdm_case_desc(const struct zdm_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(zdm, zdm_cases, zdm_case_desc);

/*
 * What the probe saw of the test's own range during one
 * memmap_init_zone_device() call.  The tracepoint is global: other binds
 * fire it meanwhile.
 */
struct zdm_seen {
	unsigned long pfn;
	int backend;
	unsigned long nr_pages;
};

static void zdm_memmap_init(void *data, unsigned long start_pfn,
			    unsigned long nr_pages, enum memory_type type,
			    bool altmap, enum memmap_init_backend backend,
			    int threads, int nid, u64 duration_ns)
{
	struct zdm_seen *seen = data;

	if (start_pfn != seen->pfn)
		return;
	WRITE_ONCE(seen->backend, backend);
	WRITE_ONCE(seen->nr_pages, nr_pages);
}

static vm_fault_t zdm_migrate_to_ram(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static void zdm_folio_free(struct folio *folio)
{
}

static const struct dev_pagemap_ops zdm_ops = {
	.folio_free	= zdm_folio_free,
	.migrate_to_ram	= zdm_migrate_to_ram,
};

/*
 * Poison the memmap of [@pfn, @pfn + @nr), initialize it in @zone with
 * memmap_init_zone_device(), or with memmap_init_zone_device_slow() when
 * @slow, and copy the result to @out.  The probe is gone when this
 * returns, whatever happened.
 */
static int zdm_init(struct kunit *test, struct zone *zone,
		    struct dev_pagemap *pgmap, unsigned long pfn,
		    unsigned long nr, bool slow, struct page *out,
		    struct zdm_seen *seen)
{
	struct page *first = pfn_to_page(pfn);
	int ret;

	seen->pfn = pfn;
	seen->backend = -1;
	seen->nr_pages = 0;

	ret = register_trace_memmap_init_zone_device(zdm_memmap_init, seen);
	if (ret) {
		KUNIT_FAIL(test, "cannot probe memmap_init_zone_device: %d", ret);
		return ret;
	}

	memset(first, ZDM_POISON, nr * sizeof(struct page));
	if (slow)
		memmap_init_zone_device_slow(zone, pfn, nr, pgmap);
	else
		memmap_init_zone_device(zone, pfn, nr, pgmap);

	unregister_trace_memmap_init_zone_device(zdm_memmap_init, seen);
	tracepoint_synchronize_unregister();

	memcpy(out, first, nr * sizeof(struct page));
	return 0;
}

static void zdm_release_region(void *data)
{
	struct resource *res = data;

	release_mem_region(res->start, resource_size(res));
}

KUNIT_DEFINE_ACTION_WRAPPER(zdm_memunmap_pages, memunmap_pages,
			    struct dev_pagemap *);

/* The backend a case's request must get, or -1 where the policy decides. */
static int zdm_backend(const struct zdm_case *c)
{
	switch (c->streaming) {
	case PGMAP_MEMMAP_STREAMING_ON:
		return IS_ENABLED(CONFIG_MEMMAP_STREAMING) ?
		       MEMMAP_INIT_TEMPLATE_STREAMING : MEMMAP_INIT_TEMPLATE;
	case PGMAP_MEMMAP_STREAMING_OFF:
		return MEMMAP_INIT_TEMPLATE;
	default:
		return -1;
	}
}

static void zdm_template_matches_slow_path(struct kunit *test)
{
	const struct zdm_case *c = test->param_value;
	unsigned long size = max_t(unsigned long, SZ_8M,
				   4UL << (c->order + PAGE_SHIFT));
	unsigned long pfn, nr = size >> PAGE_SHIFT, i, bad = 0, first_bad = 0;
	struct zdm_seen tmpl_seen, slow_seen;
	struct page *tmpl, *slow;
	struct dev_pagemap *pgmap;
	struct resource *res;
	struct zone *zone;
	void *addr;
	int ret;

	if (c->order > MAX_FOLIO_ORDER)
		kunit_skip(test, "order %u is above MAX_FOLIO_ORDER", c->order);

	tmpl = kunit_kcalloc(test, nr, sizeof(struct page), GFP_KERNEL);
	slow = kunit_kcalloc(test, nr, sizeof(struct page), GFP_KERNEL);
	pgmap = kunit_kzalloc(test, sizeof(*pgmap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmpl);
	KUNIT_ASSERT_NOT_NULL(test, slow);
	KUNIT_ASSERT_NOT_NULL(test, pgmap);

	res = request_free_mem_region(&iomem_resource, size,
				      "zone_device_memmap_kunit");
	if (IS_ERR(res))
		kunit_skip(test, "no free physical range of %lu bytes: %pe",
			   size, res);
	ret = kunit_add_action_or_reset(test, zdm_release_region, res);
	KUNIT_ASSERT_EQ(test, ret, 0);

	pgmap->type = MEMORY_DEVICE_PRIVATE;
	pgmap->range.start = res->start;
	pgmap->range.end = res->end;
	pgmap->nr_range = 1;
	pgmap->ops = &zdm_ops;
	pgmap->owner = test;
	pgmap->vmemmap_shift = c->order;
	pgmap_set_memmap_streaming(pgmap, c->streaming);

	addr = memremap_pages(pgmap, NUMA_NO_NODE);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(addr), "memremap_pages() failed: %pe",
			       addr);
	ret = kunit_add_action_or_reset(test, zdm_memunmap_pages, pgmap);
	KUNIT_ASSERT_EQ(test, ret, 0);
	pfn = PHYS_PFN(res->start);
	/* Read before the memmap holds poison. */
	zone = page_zone(pfn_to_page(pfn));

	if (zdm_init(test, zone, pgmap, pfn, nr, false, tmpl, &tmpl_seen) ||
	    zdm_init(test, zone, pgmap, pfn, nr, true, slow, &slow_seen))
		return;

	for (i = 0; i < nr; i++) {
		if (memcmp(&tmpl[i], &slow[i], sizeof(struct page))) {
			if (!bad++)
				first_bad = i;
		}
	}

	/* The actions unmap the range, its memmap as the slow path wrote it. */
	KUNIT_EXPECT_EQ(test, tmpl_seen.nr_pages, nr);
	KUNIT_EXPECT_GE(test, tmpl_seen.backend, 0);
	if (zdm_backend(c) >= 0)
		KUNIT_EXPECT_EQ(test, tmpl_seen.backend, zdm_backend(c));
	/* The reference is not a bind: it is not traced. */
	KUNIT_EXPECT_EQ(test, slow_seen.nr_pages, 0);

	if (bad) {
		const unsigned long *t = (const unsigned long *)&tmpl[first_bad];
		const unsigned long *s = (const unsigned long *)&slow[first_bad];

		for (i = 0; i < sizeof(struct page) / sizeof(long); i++)
			if (t[i] != s[i])
				break;
		KUNIT_FAIL(test,
			   "%lu of %lu struct pages differ from the slow path; the first is pfn %#lx (page %lu of its order-%u folio), word %lu: template %#lx, slow path %#lx",
			   bad, nr, pfn + first_bad,
			   first_bad & ((1UL << c->order) - 1), c->order,
			   i, t[i], s[i]);
	}
}

static struct kunit_case zdm_test_cases[] = {
	KUNIT_CASE_PARAM(zdm_template_matches_slow_path, zdm_gen_params),
	{}
};

static struct kunit_suite zdm_test_suite = {
	.name = "zone_device_memmap",
	.test_cases = zdm_test_cases,
};

kunit_test_suite(zdm_test_suite);

MODULE_DESCRIPTION("KUnit test of the ZONE_DEVICE memmap template copy");
MODULE_LICENSE("GPL");
