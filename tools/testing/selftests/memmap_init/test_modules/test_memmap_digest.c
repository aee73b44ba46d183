// SPDX-License-Identifier: GPL-2.0
/*
 * Digest the struct pages of a ZONE_DEVICE PFN range, so that user space
 * can check that two initializations of the same memmap produced the same
 * struct pages (see memmap_threads.sh).
 *
 * Write "START_PFN NR_PAGES" (decimal or 0x-prefixed hex) to
 * /sys/kernel/debug/test_memmap_digest, then read back one line per digest:
 *
 *   start_pfn 0x240000
 *   nr_pages 262144
 *   pages 262144
 *   heads 0
 *   tails 0
 *   pgmap_mismatch 0
 *   poisoned 0
 *   first_poisoned_pfn none
 *   flags 5c5f8e1a0d8b2f49
 *   ...
 *
 * The range must lie within one live dev_pagemap, whose reference is held
 * while the pages are read.  Every field is hashed in PFN order, with the
 * pointers that differ from one bind to the next (the dev_pagemap, which
 * drivers allocate per bind) or from one PFN range to another (compound
 * heads, and zone_device_data pointing at other pages of the range)
 * replaced by position-independent values:
 *
 *   flags             page->flags, with the section, node and zone bits
 *   refcount          page->_refcount
 *   mapcount          page->_mapcount (page_type)
 *   pgmap             folio->pgmap of pages that are not tails, as
 *                     "the range's dev_pagemap", NULL or the raw pointer
 *   zone_device_data  NULL, a PFN offset into the range, or the raw pointer
 *   compound_head     tails: the distance to their head; others: 0
 *   folio_order       heads: the folio order
 *   raw               every word of struct page, normalized as above
 *
 * pgmap_mismatch counts the pages whose dev_pagemap is neither NULL (tails)
 * nor the one get_dev_pagemap() returns for the range.
 *
 * poisoned counts the pages whose flags still hold PAGE_POISON_PATTERN:
 * with CONFIG_DEBUG_VM, memory hotplug poisons the memmap of a range it
 * adds and removes (page_init_poison()), so such a page was never written
 * by memmap init.  Only their raw words are hashed: nothing else in them
 * means anything.  first_poisoned_pfn names the first of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define DIGEST_WORDS	(sizeof(struct page) / sizeof(unsigned long))
#define DIGEST_BUF_SIZE	1024

enum digest_field {
	DIGEST_FLAGS,
	DIGEST_REFCOUNT,
	DIGEST_MAPCOUNT,
	DIGEST_PGMAP,
	DIGEST_ZONE_DEVICE_DATA,
	DIGEST_COMPOUND_HEAD,
	DIGEST_FOLIO_ORDER,
	DIGEST_RAW,
	DIGEST_NR_FIELDS,
};

static const char * const digest_field_names[DIGEST_NR_FIELDS] = {
	[DIGEST_FLAGS]			= "flags",
	[DIGEST_REFCOUNT]		= "refcount",
	[DIGEST_MAPCOUNT]		= "mapcount",
	[DIGEST_PGMAP]			= "pgmap",
	[DIGEST_ZONE_DEVICE_DATA]	= "zone_device_data",
	[DIGEST_COMPOUND_HEAD]		= "compound_head",
	[DIGEST_FOLIO_ORDER]		= "folio_order",
	[DIGEST_RAW]			= "raw",
};

struct digest {
	unsigned long start_pfn;
	unsigned long nr_pages;
	unsigned long pages;
	unsigned long heads;
	unsigned long tails;
	unsigned long pgmap_mismatch;
	unsigned long poisoned;
	unsigned long first_poisoned_pfn;
	u64 hash[DIGEST_NR_FIELDS];
};

static DEFINE_MUTEX(digest_lock);
static char digest_buf[DIGEST_BUF_SIZE];
static size_t digest_len;
static struct dentry *digest_dentry;

/* Tags keep the normalized values apart from each other and from pointers. */
#define TAG_NULL	0x0UL
#define TAG_PGMAP	0x1UL
#define TAG_IN_RANGE	0x2UL
#define TAG_SHIFT	2

static inline u64 digest_mix(u64 h, u64 v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 31);
}

/* A pointer to a struct page of [start_pfn, end_pfn), as an offset. */
static unsigned long digest_page_ptr(unsigned long v, unsigned long start_pfn,
				     unsigned long end_pfn)
{
	unsigned long first = (unsigned long)pfn_to_page(start_pfn);
	unsigned long last = (unsigned long)pfn_to_page(end_pfn);

	if (!v)
		return TAG_NULL;
	if (v >= first && v < last && !((v - first) % sizeof(struct page)))
		return (((v - first) / sizeof(struct page)) << TAG_SHIFT) |
		       TAG_IN_RANGE;
	return v;
}

static void digest_one(struct digest *d, unsigned long pfn,
		       const struct dev_pagemap *pgmap)
{
	const unsigned long end_pfn = d->start_pfn + d->nr_pages;
	struct page *page = pfn_to_page(pfn);
	unsigned long words[DIGEST_WORDS];
	const struct page *copy = (const struct page *)words;
	unsigned long info, zdd, pgmap_v, head_v = 0, order_v = 0;
	unsigned int w;
	bool tail;

	/* One snapshot, so that all fields come from the same read. */
	for (w = 0; w < DIGEST_WORDS; w++)
		words[w] = READ_ONCE(((unsigned long *)page)[w]);

	if (PagePoisoned(copy)) {
		if (!d->poisoned++)
			d->first_poisoned_pfn = pfn;
		for (w = 0; w < DIGEST_WORDS; w++)
			d->hash[DIGEST_RAW] = digest_mix(d->hash[DIGEST_RAW],
							 words[w]);
		d->pages++;
		return;
	}

	info = copy->compound_info;
	tail = info & 1;
	if (tail) {
		/* The head, however compound_info encodes it. */
		head_v = pfn - page_to_pfn(compound_head(page));
		pgmap_v = TAG_NULL;
		d->tails++;
	} else {
		const struct dev_pagemap *p = ((const struct folio *)copy)->pgmap;

		if (p == pgmap) {
			pgmap_v = TAG_PGMAP;
		} else {
			pgmap_v = (unsigned long)p;
			d->pgmap_mismatch++;
		}
		if (copy->flags.f & BIT(PG_head)) {
			order_v = folio_order((const struct folio *)page) + 1;
			d->heads++;
		}
	}
	zdd = digest_page_ptr((unsigned long)copy->zone_device_data,
			      d->start_pfn, end_pfn);

	d->hash[DIGEST_FLAGS] = digest_mix(d->hash[DIGEST_FLAGS], copy->flags.f);
	d->hash[DIGEST_REFCOUNT] = digest_mix(d->hash[DIGEST_REFCOUNT],
					      (u32)atomic_read(&copy->_refcount));
	d->hash[DIGEST_MAPCOUNT] = digest_mix(d->hash[DIGEST_MAPCOUNT],
					      (u32)atomic_read(&copy->_mapcount));
	d->hash[DIGEST_PGMAP] = digest_mix(d->hash[DIGEST_PGMAP], pgmap_v);
	d->hash[DIGEST_ZONE_DEVICE_DATA] =
		digest_mix(d->hash[DIGEST_ZONE_DEVICE_DATA], zdd);
	d->hash[DIGEST_COMPOUND_HEAD] =
		digest_mix(d->hash[DIGEST_COMPOUND_HEAD], head_v);
	d->hash[DIGEST_FOLIO_ORDER] =
		digest_mix(d->hash[DIGEST_FOLIO_ORDER], order_v);

	/* Word 1 is compound_info of tails and folio->pgmap of the others. */
	words[offsetof(struct page, compound_info) / sizeof(unsigned long)] =
		tail ? (head_v << TAG_SHIFT) | TAG_IN_RANGE : pgmap_v;
	words[offsetof(struct page, zone_device_data) / sizeof(unsigned long)] = zdd;
	for (w = 0; w < DIGEST_WORDS; w++)
		d->hash[DIGEST_RAW] = digest_mix(d->hash[DIGEST_RAW], words[w]);
	d->pages++;
}

/* Whether [start_pfn, end_pfn) lies within one range of @pgmap. */
static bool digest_range_in_pgmap(const struct dev_pagemap *pgmap,
				  unsigned long start_pfn, unsigned long end_pfn)
{
	int i;

	for (i = 0; i < pgmap->nr_range; i++) {
		const struct range *r = &pgmap->ranges[i];

		if (start_pfn >= PHYS_PFN(r->start) &&
		    end_pfn <= PHYS_PFN(r->end + 1))
			return true;
	}
	return false;
}

static int digest_range(struct digest *d)
{
	unsigned long end_pfn = d->start_pfn + d->nr_pages;
	struct dev_pagemap *pgmap;
	unsigned long pfn;
	int ret = 0;

	pgmap = get_dev_pagemap(d->start_pfn);
	if (!pgmap)
		return -ENXIO;

	if (!digest_range_in_pgmap(pgmap, d->start_pfn, end_pfn)) {
		ret = -ERANGE;
		goto out;
	}

	for (pfn = d->start_pfn; pfn < end_pfn; pfn++) {
		/* A poisoned page has no zone to check: digest_one() counts it. */
		if (!pfn_valid(pfn) ||
		    (!PagePoisoned(pfn_to_page(pfn)) &&
		     !is_zone_device_page(pfn_to_page(pfn)))) {
			ret = -ENXIO;
			goto out;
		}
		digest_one(d, pfn, pgmap);
		if (!(pfn % 1024))
			cond_resched();
	}
out:
	put_dev_pagemap(pgmap);
	return ret;
}

static int digest_format(const struct digest *d, char *buf, size_t size)
{
	int len, i;

	len = scnprintf(buf, size, "start_pfn 0x%lx\nnr_pages %lu\npages %lu\n",
			d->start_pfn, d->nr_pages, d->pages);
	len += scnprintf(buf + len, size - len,
			 "heads %lu\ntails %lu\npgmap_mismatch %lu\npoisoned %lu\n",
			 d->heads, d->tails, d->pgmap_mismatch, d->poisoned);
	if (d->poisoned)
		len += scnprintf(buf + len, size - len,
				 "first_poisoned_pfn 0x%lx\n",
				 d->first_poisoned_pfn);
	else
		len += scnprintf(buf + len, size - len,
				 "first_poisoned_pfn none\n");
	for (i = 0; i < DIGEST_NR_FIELDS; i++)
		len += scnprintf(buf + len, size - len, "%s %016llx\n",
				 digest_field_names[i], d->hash[i]);
	return len;
}

static ssize_t digest_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct digest *d;
	char kbuf[64];
	char *p, *tok;
	int ret;

	if (!count || count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';

	d = kzalloc_obj(*d);
	if (!d)
		return -ENOMEM;

	p = strim(kbuf);
	tok = strsep(&p, " \t");
	ret = tok ? kstrtoul(tok, 0, &d->start_pfn) : -EINVAL;
	if (!ret) {
		p = p ? skip_spaces(p) : NULL;
		ret = p ? kstrtoul(p, 0, &d->nr_pages) : -EINVAL;
	}
	if (!ret && (!d->nr_pages || d->start_pfn + d->nr_pages < d->start_pfn))
		ret = -EINVAL;
	if (ret)
		goto out;

	ret = digest_range(d);
	if (ret)
		goto out;

	mutex_lock(&digest_lock);
	digest_len = digest_format(d, digest_buf, sizeof(digest_buf));
	mutex_unlock(&digest_lock);
	ret = count;
out:
	kfree(d);
	return ret;
}

static ssize_t digest_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&digest_lock);
	if (!digest_len)
		ret = -ENODATA;
	else
		ret = simple_read_from_buffer(ubuf, count, ppos, digest_buf,
					      digest_len);
	mutex_unlock(&digest_lock);
	return ret;
}

static const struct file_operations digest_fops = {
	.owner	= THIS_MODULE,
	.read	= digest_read,
	.write	= digest_write,
	.llseek	= default_llseek,
};

static int __init test_memmap_digest_init(void)
{
	digest_dentry = debugfs_create_file("test_memmap_digest", 0600, NULL,
					    NULL, &digest_fops);
	if (IS_ERR(digest_dentry))
		return PTR_ERR(digest_dentry);
	return 0;
}

static void __exit test_memmap_digest_exit(void)
{
	debugfs_remove(digest_dentry);
}

module_init(test_memmap_digest_init);
module_exit(test_memmap_digest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Digest the struct pages of a ZONE_DEVICE PFN range");
