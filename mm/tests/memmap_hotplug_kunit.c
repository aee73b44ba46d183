// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit test of the template copy that initializes the memmap of hot-added
 * memory.
 *
 * Onlining memory writes its struct pages by copying a template
 * (memmap_init_hotplug_template() here); memmap_init_hotplug_slow() writes
 * them page by page the way the kernel did before, __init_single_page()
 * and PageOffline.  Both
 * write whatever struct pages they are given, as the memmap of hot-added
 * memory is virtually contiguous, so the test gives them a scratch array:
 * it writes the array both ways over a poison pattern and compares the
 * results field by field.  A word the template copy leaves unwritten keeps
 * the poison; a field it gets wrong differs from the slow path's.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "../mm_init.h"

#define MHK_POISON	0xa5

/*
 * Any PFN will do: only page->virtual depends on it, where it exists.
 * The cases' ranges start this far into a section-aligned one.
 */
#define MHK_BASE_PFN	(64 * PAGES_PER_SECTION)

struct mhk_case {
	const char *name;
	enum zone_type zone;
	/* The range: PFNs [MHK_BASE_PFN + offset, ... + nr). */
	unsigned long offset;
	unsigned long nr;
};

static const struct mhk_case mhk_cases[] = {
	{ "ZONE_NORMAL, two sections", ZONE_NORMAL, 0, 2 * PAGES_PER_SECTION },
	{ "ZONE_MOVABLE, two sections", ZONE_MOVABLE, 0, 2 * PAGES_PER_SECTION },
	{ "ZONE_MOVABLE, across a section, unaligned", ZONE_MOVABLE,
	  PAGES_PER_SECTION - 3, 5 },
	{ "ZONE_NORMAL, one page: the seed alone", ZONE_NORMAL, 1, 1 },
};

static void mhk_case_desc(const struct mhk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mhk, mhk_cases, mhk_case_desc);

/* The fields of struct page that the comparison names. */
struct mhk_field {
	const char *name;
	size_t offset;
	size_t size;
};

static const struct mhk_field mhk_fields[] = {
	{ "flags", offsetof(struct page, flags),
	  sizeof_field(struct page, flags) },
	{ "lru", offsetof(struct page, lru),
	  sizeof_field(struct page, lru) },
	{ "mapping", offsetof(struct page, mapping),
	  sizeof_field(struct page, mapping) },
	{ "__folio_index", offsetof(struct page, __folio_index),
	  sizeof_field(struct page, __folio_index) },
	{ "private", offsetof(struct page, private),
	  sizeof_field(struct page, private) },
	{ "_mapcount", offsetof(struct page, _mapcount),
	  sizeof_field(struct page, _mapcount) },
	{ "_refcount", offsetof(struct page, _refcount),
	  sizeof_field(struct page, _refcount) },
#ifdef CONFIG_MEMCG
	{ "memcg_data", offsetof(struct page, memcg_data),
	  sizeof_field(struct page, memcg_data) },
#endif
#ifdef WANT_PAGE_VIRTUAL
	{ "virtual", offsetof(struct page, virtual),
	  sizeof_field(struct page, virtual) },
#endif
#ifdef LAST_CPUPID_NOT_IN_PAGE_FLAGS
	{ "_last_cpupid", offsetof(struct page, _last_cpupid),
	  sizeof_field(struct page, _last_cpupid) },
#endif
	/* Whatever is left, KMSAN's metadata and padding included. */
	{ "struct page", 0, sizeof(struct page) },
};

static void mhk_vfree(void *p)
{
	vfree(p);
}

static void *mhk_vmalloc(struct kunit *test, size_t size)
{
	void *p = vmalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mhk_vfree, p), 0);
	return p;
}

static void mhk_template_matches_slow_path(struct kunit *test)
{
	const struct mhk_case *c = test->param_value;
	unsigned long pfn = MHK_BASE_PFN + c->offset, i;
	size_t size = c->nr * sizeof(struct page);
	struct page *scratch, *tmpl, *slow;
	int nid = numa_mem_id();
	unsigned int f;

	scratch = mhk_vmalloc(test, size);
	tmpl = mhk_vmalloc(test, size);
	slow = mhk_vmalloc(test, size);

	memset(scratch, MHK_POISON, size);
	memmap_init_hotplug_template(scratch, pfn, c->nr, c->zone, nid);
	memcpy(tmpl, scratch, size);

	memset(scratch, MHK_POISON, size);
	memmap_init_hotplug_slow(scratch, pfn, c->nr, c->zone, nid);
	memcpy(slow, scratch, size);

	for (f = 0; f < ARRAY_SIZE(mhk_fields); f++) {
		const struct mhk_field *fld = &mhk_fields[f];
		unsigned long bad = 0, first_bad = 0;
		size_t off, len;

		for (i = 0; i < c->nr; i++) {
			if (memcmp((void *)&tmpl[i] + fld->offset,
				   (void *)&slow[i] + fld->offset, fld->size)) {
				if (!bad++)
					first_bad = i;
			}
		}
		if (!bad)
			continue;

		/* Show the first word of the field that differs. */
		for (off = fld->offset; off < fld->offset + fld->size;
		     off += sizeof(long))
			if (memcmp((void *)&tmpl[first_bad] + off,
				   (void *)&slow[first_bad] + off, sizeof(long)))
				break;
		len = min(sizeof(long), fld->offset + fld->size - off);
		KUNIT_FAIL(test,
			   "%s differs from the slow path on %lu of %lu pages; the first is pfn %#lx, at byte %zu of struct page: template %*phN, slow path %*phN",
			   fld->name, bad, c->nr, pfn + first_bad, off,
			   (int)len, (void *)&tmpl[first_bad] + off,
			   (int)len, (void *)&slow[first_bad] + off);
	}

	/* The slow path itself: what every hot-added page must look like. */
	for (i = 0; i < c->nr; i++) {
		KUNIT_EXPECT_TRUE(test, PageOffline(&slow[i]));
		KUNIT_EXPECT_EQ(test, page_zonenum(&slow[i]), c->zone);
		KUNIT_EXPECT_EQ(test, page_ref_count(&slow[i]), 1);
		if (test->status == KUNIT_FAILURE)
			break;
	}
}

static struct kunit_case mhk_test_cases[] = {
	KUNIT_CASE_PARAM(mhk_template_matches_slow_path, mhk_gen_params),
	{}
};

static struct kunit_suite mhk_test_suite = {
	.name = "memmap_hotplug",
	.test_cases = mhk_test_cases,
};

kunit_test_suite(mhk_test_suite);

MODULE_DESCRIPTION("KUnit test of the hot-added memmap template copy");
MODULE_LICENSE("GPL");
