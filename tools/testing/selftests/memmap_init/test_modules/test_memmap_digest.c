// SPDX-License-Identifier: GPL-2.0
/*
 * Digest the struct pages of a ZONE_DEVICE PFN range, so that user space
 * can check that two initializations of the same memmap produced the same
 * struct pages (see memmap_threads.sh), or, in hotplug mode (below), check
 * the struct pages memory hotplug writes against the slow path's (see the
 * lab's memmap_hotplug.sh).
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
 *
 * Hotplug mode checks the struct pages memory hotplug initializes when it
 * onlines memory (memmap_init_range() with MEMINIT_HOTPLUG) against the
 * slow path, one __init_single_page() and __SetPageOffline() per page:
 * memmap_init_hotplug_page(), which a kernel with the hot-added memmap
 * template exports to tests (EXPORT_SYMBOL_IF_KUNIT) when it is built with
 * its KUnit test, CONFIG_MEMMAP_HOTPLUG_KUNIT_TEST.  Write "hotplug START_PFN
 * NR_PAGES" to arm it: a memory notifier, on each MEM_GOING_ONLINE (when
 * online_pages() has just initialized the range it notifies and nothing
 * else has touched it), compares every page of that range within
 * [START_PFN, START_PFN + NR_PAGES), word by word, with a reference the
 * slow path builds for the same PFN, zone and node, and hashes the pages'
 * words and the reference's into two digests, range by range as they are
 * notified, each in PFN order.  Reading then gives:
 *
 *   hotplug_start_pfn 0x240000
 *   hotplug_nr_pages 131072
 *   hotplug_pages 131072
 *   hotplug_ranges 4
 *   hotplug_mismatch 0
 *   hotplug_first_mismatch none
 *   hotplug_digest 9c1e5ad2770b4f13
 *   hotplug_slow_digest 9c1e5ad2770b4f13
 *   hotplug_struct_page_size 64
 *
 * hotplug_ranges counts the notifications that reached the armed range,
 * hotplug_pages the pages compared, hotplug_mismatch those that differ
 * from the reference, and hotplug_first_mismatch names the first of them,
 * "0xPFN word W" with W the index of its first differing word.  Memory
 * onlined with memmap_on_memory keeps the memmap of each block in the
 * block's first pages, which are not notified: hotplug_struct_page_size,
 * sizeof(struct page), tells how many those are.  Writing "hotplug START_PFN NR_PAGES" again
 * starts over, "hotplug off" (or unloading) unregisters the notifier and
 * returns to the digests above, which are refused (-EBUSY) while armed.
 * Without CONFIG_MEMMAP_HOTPLUG_KUNIT_TEST every "hotplug" write fails
 * with -EOPNOTSUPP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/memory.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
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

/* Protects the digest buffer, hotplug_armed and the hotplug state. */
static DEFINE_MUTEX(digest_lock);
static char digest_buf[DIGEST_BUF_SIZE];
static size_t digest_len;
static struct dentry *digest_dentry;
/* Hotplug mode: reads give its state, digests are refused. */
static bool hotplug_armed;
static char hotplug_buf[DIGEST_BUF_SIZE];

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

#if IS_ENABLED(CONFIG_MEMMAP_HOTPLUG_KUNIT_TEST)
/* mm/mm_init.h's declaration, which a module outside mm/ cannot include. */
void memmap_init_hotplug_page(struct page *page, unsigned long pfn,
			      unsigned long zone, int nid);
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* The comparisons of hotplug mode since it was last armed. */
struct digest_hotplug {
	unsigned long start_pfn;
	unsigned long nr_pages;
	unsigned long pages;
	unsigned long ranges;
	unsigned long mismatch;
	unsigned long first_mismatch_pfn;
	unsigned int first_mismatch_word;
	u64 hash;
	u64 slow_hash;
};

static struct digest_hotplug hotplug;

/*
 * Serializes arming and disarming, and protects hotplug_registered.  The
 * notifier runs under the memory notifier chain's lock, which it holds
 * while it takes digest_lock: registering takes the chain's lock too, so
 * it is done under this mutex and never under digest_lock.
 */
static DEFINE_MUTEX(hotplug_arm_lock);
static bool hotplug_registered;

/* Compare the struct page of @pfn, just initialized, with the slow path's. */
static void digest_hotplug_one(struct digest_hotplug *h, unsigned long pfn,
			       unsigned long zone, int nid)
{
	struct page *page = pfn_to_page(pfn);
	const unsigned long *slow;
	struct page ref;
	unsigned long word;
	unsigned int w;
	bool differs = false;

	/* A word the slow path leaves alone compares as 0. */
	memset(&ref, 0, sizeof(ref));
	memmap_init_hotplug_page(&ref, pfn, zone, nid);
	/* INIT_LIST_HEAD() pointed the copy's lru at the copy. */
	ref.lru.next = &page->lru;
	ref.lru.prev = &page->lru;
	slow = (const unsigned long *)&ref;

	for (w = 0; w < DIGEST_WORDS; w++) {
		word = READ_ONCE(((unsigned long *)page)[w]);
		h->hash = digest_mix(h->hash, word);
		h->slow_hash = digest_mix(h->slow_hash, slow[w]);
		if (word == slow[w] || differs)
			continue;
		differs = true;
		if (!h->mismatch) {
			h->first_mismatch_pfn = pfn;
			h->first_mismatch_word = w;
		}
	}
	if (differs)
		h->mismatch++;
	h->pages++;
}

static int digest_hotplug_notify(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	const struct memory_notify *mn = arg;
	unsigned long start, end, pfn, zone;
	struct page *first;
	int nid;

	if (action != MEM_GOING_ONLINE)
		return NOTIFY_OK;

	mutex_lock(&digest_lock);
	if (!hotplug_armed)
		goto out;
	start = max(mn->start_pfn, hotplug.start_pfn);
	end = min(mn->start_pfn + mn->nr_pages,
		  hotplug.start_pfn + hotplug.nr_pages);
	if (start >= end)
		goto out;

	/* move_pfn_range_to_zone() gave the whole range one zone and node. */
	first = pfn_to_page(mn->start_pfn);
	zone = page_zonenum(first);
	nid = page_to_nid(first);
	hotplug.ranges++;
	for (pfn = start; pfn < end; pfn++) {
		digest_hotplug_one(&hotplug, pfn, zone, nid);
		if (!(pfn % 1024))
			cond_resched();
	}
out:
	mutex_unlock(&digest_lock);
	return NOTIFY_OK;
}

/* First of the memory notifiers: none has touched the pages before it. */
static struct notifier_block digest_hotplug_nb = {
	.notifier_call	= digest_hotplug_notify,
	.priority	= INT_MAX,
};

static void digest_hotplug_disarm(void)
{
	mutex_lock(&hotplug_arm_lock);
	if (hotplug_registered) {
		unregister_memory_notifier(&digest_hotplug_nb);
		hotplug_registered = false;
	}
	mutex_lock(&digest_lock);
	hotplug_armed = false;
	mutex_unlock(&digest_lock);
	mutex_unlock(&hotplug_arm_lock);
}

/* "START_PFN NR_PAGES" arms hotplug mode anew, "off" disarms it. */
static int digest_hotplug_write(char *args)
{
	unsigned long start_pfn, nr_pages;
	char *tok;
	int ret;

	if (!args)
		return -EINVAL;
	args = skip_spaces(args);
	if (!strcmp(args, "off")) {
		digest_hotplug_disarm();
		return 0;
	}
	tok = strsep(&args, " \t");
	ret = kstrtoul(tok, 0, &start_pfn);
	if (ret)
		return ret;
	if (!args)
		return -EINVAL;
	ret = kstrtoul(skip_spaces(args), 0, &nr_pages);
	if (ret)
		return ret;
	if (!nr_pages || start_pfn + nr_pages < start_pfn)
		return -EINVAL;

	mutex_lock(&hotplug_arm_lock);
	mutex_lock(&digest_lock);
	memset(&hotplug, 0, sizeof(hotplug));
	hotplug.start_pfn = start_pfn;
	hotplug.nr_pages = nr_pages;
	hotplug_armed = true;
	mutex_unlock(&digest_lock);
	if (!hotplug_registered) {
		ret = register_memory_notifier(&digest_hotplug_nb);
		if (ret) {
			mutex_lock(&digest_lock);
			hotplug_armed = false;
			mutex_unlock(&digest_lock);
		} else {
			hotplug_registered = true;
		}
	}
	mutex_unlock(&hotplug_arm_lock);
	return ret;
}

/* Hotplug mode's state, for a read; called with digest_lock held. */
static int digest_hotplug_format(char *buf, size_t size)
{
	const struct digest_hotplug *h = &hotplug;
	int len;

	len = scnprintf(buf, size,
			"hotplug_start_pfn 0x%lx\nhotplug_nr_pages %lu\n",
			h->start_pfn, h->nr_pages);
	len += scnprintf(buf + len, size - len,
			 "hotplug_pages %lu\nhotplug_ranges %lu\nhotplug_mismatch %lu\n",
			 h->pages, h->ranges, h->mismatch);
	if (h->mismatch)
		len += scnprintf(buf + len, size - len,
				 "hotplug_first_mismatch 0x%lx word %u\n",
				 h->first_mismatch_pfn, h->first_mismatch_word);
	else
		len += scnprintf(buf + len, size - len,
				 "hotplug_first_mismatch none\n");
	len += scnprintf(buf + len, size - len,
			 "hotplug_digest %016llx\nhotplug_slow_digest %016llx\n",
			 h->hash, h->slow_hash);
	len += scnprintf(buf + len, size - len,
			 "hotplug_struct_page_size %zu\n", sizeof(struct page));
	return len;
}
#else
static void digest_hotplug_disarm(void)
{
}

static int digest_hotplug_write(char *args)
{
	pr_info("hotplug mode needs memmap_init_hotplug_page(), which this kernel does not export: it does with CONFIG_MEMMAP_HOTPLUG_KUNIT_TEST\n");
	return -EOPNOTSUPP;
}

static int digest_hotplug_format(char *buf, size_t size)
{
	return 0;
}
#endif /* CONFIG_MEMMAP_HOTPLUG_KUNIT_TEST */

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

	p = strim(kbuf);
	tok = strsep(&p, " \t");
	if (!strcmp(tok, "hotplug")) {
		ret = digest_hotplug_write(p);
		return ret ? ret : count;
	}

	mutex_lock(&digest_lock);
	ret = hotplug_armed ? -EBUSY : 0;
	mutex_unlock(&digest_lock);
	if (ret)
		return ret;

	d = kzalloc_obj(*d);
	if (!d)
		return -ENOMEM;

	ret = kstrtoul(tok, 0, &d->start_pfn);
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
	int len;

	mutex_lock(&digest_lock);
	if (hotplug_armed) {
		len = digest_hotplug_format(hotplug_buf, sizeof(hotplug_buf));
		ret = simple_read_from_buffer(ubuf, count, ppos, hotplug_buf,
					      len);
	} else if (!digest_len) {
		ret = -ENODATA;
	} else {
		ret = simple_read_from_buffer(ubuf, count, ppos, digest_buf,
					      digest_len);
	}
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
	digest_hotplug_disarm();
}

module_init(test_memmap_digest_init);
module_exit(test_memmap_digest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Digest the struct pages of a ZONE_DEVICE PFN range, or check those hotplug onlines");
