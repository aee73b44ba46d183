// SPDX-License-Identifier: GPL-2.0
/*
 * The lab's check of the struct pages memory hotplug writes when it onlines
 * memory (memmap_init_range() with MEMINIT_HOTPLUG), for memmap_hotplug.sh.
 * Not part of any series.  The reference is the slow path, one
 * __init_single_page() and __SetPageOffline() per page, as Linux 7.3.4
 * writes it, rebuilt here from the same inline helpers: the kernel's
 * functions are static or not exported, and an oracle that shares no code
 * with the kernel under test checks the template's seed as well as its
 * copies.  On a kernel without the hot-added memmap template (7.3.4, the
 * first series alone) it checks the oracle itself.
 *
 * Write "START_PFN NR_PAGES" (decimal or 0x-prefixed hex) to
 * /sys/kernel/debug/lab_memmap_hotplug to arm it: a memory notifier, on
 * each MEM_GOING_ONLINE (online_pages() has just initialized the range it
 * notifies, and nothing else has touched it), compares every page of that
 * range within [START_PFN, START_PFN + NR_PAGES), word by word, with the
 * reference for the same PFN, zone and node, and hashes the pages' words
 * and the reference's into two digests, range by range as they are
 * notified, each in PFN order.  Reading gives:
 *
 *   armed 1
 *   start_pfn 0x240000
 *   nr_pages 131072
 *   pages 131072
 *   ranges 4
 *   mismatch 0
 *   first_mismatch none
 *   digest 9c1e5ad2770b4f13
 *   slow_digest 9c1e5ad2770b4f13
 *   struct_page_size 64
 *
 * ranges counts the notifications that reached the armed range, pages the
 * pages compared, mismatch those that differ from the reference, and
 * first_mismatch names the first of them, "0xPFN word W" with W the index
 * of its first differing word.  Memory onlined with memmap_on_memory keeps
 * the memmap of each block in the block's first pages, which are not
 * notified: struct_page_size, sizeof(struct page), tells how many those
 * are.  Writing "START_PFN NR_PAGES" again starts over; "off" (or
 * unloading) unregisters the notifier and keeps the counts for reading.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define LAB_WORDS	(sizeof(struct page) / sizeof(unsigned long))
#define LAB_BUF_SIZE	512

/* The comparisons since the module was last armed. */
struct lab_hotplug {
	bool armed;
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

/* Protects lab and lab_buf; the notifier takes it. */
static DEFINE_MUTEX(lab_lock);
static struct lab_hotplug lab;
static char lab_buf[LAB_BUF_SIZE];
static struct dentry *lab_dentry;

static inline u64 lab_mix(u64 h, u64 v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 31);
}

/*
 * @ref: @page of @pfn as 7.3.4's __init_single_page() and __SetPageOffline()
 * write it, in zone @zone of node @nid.
 */
static void lab_reference(struct page *ref, struct page *page,
			  unsigned long pfn, unsigned long zone, int nid)
{
	memset(ref, 0, sizeof(*ref));
	set_page_links(ref, zone, nid, pfn);
	/* init_page_count(), without its page_ref_set tracepoint. */
	atomic_set(&ref->_refcount, 1);
	atomic_set(&ref->_mapcount, -1);
	page_cpupid_reset_last(ref);
	page_kasan_tag_reset(ref);
	/* INIT_LIST_HEAD() of @page's lru, where @page is. */
	ref->lru.next = &page->lru;
	ref->lru.prev = &page->lru;
#ifdef WANT_PAGE_VIRTUAL
	if (!is_highmem_idx(zone))
		set_page_address(ref, __va(pfn << PAGE_SHIFT));
#endif
	__SetPageOffline(ref);
}

/*
 * Serializes arming and disarming, and protects lab_registered.  The
 * notifier runs under the memory notifier chain's lock and takes lab_lock:
 * registering takes the chain's lock too, so it is done under this mutex
 * and never under lab_lock.
 */
static DEFINE_MUTEX(lab_arm_lock);
static bool lab_registered;

/* Compare the struct page of @pfn, just initialized, with the slow path's. */
static void lab_one(struct lab_hotplug *h, unsigned long pfn,
		    unsigned long zone, int nid)
{
	struct page *page = pfn_to_page(pfn);
	const unsigned long *slow;
	struct page ref;
	unsigned long word;
	unsigned int w;
	bool differs = false;

	lab_reference(&ref, page, pfn, zone, nid);
	slow = (const unsigned long *)&ref;

	for (w = 0; w < LAB_WORDS; w++) {
		word = READ_ONCE(((unsigned long *)page)[w]);
		h->hash = lab_mix(h->hash, word);
		h->slow_hash = lab_mix(h->slow_hash, slow[w]);
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

static int lab_notify(struct notifier_block *nb, unsigned long action,
		      void *arg)
{
	const struct memory_notify *mn = arg;
	unsigned long start, end, pfn, zone;
	struct page *first;
	int nid;

	if (action != MEM_GOING_ONLINE)
		return NOTIFY_OK;

	mutex_lock(&lab_lock);
	if (!lab.armed)
		goto out;
	start = max(mn->start_pfn, lab.start_pfn);
	end = min(mn->start_pfn + mn->nr_pages, lab.start_pfn + lab.nr_pages);
	if (start >= end)
		goto out;

	/* move_pfn_range_to_zone() gave the whole range one zone and node. */
	first = pfn_to_page(mn->start_pfn);
	zone = page_zonenum(first);
	nid = page_to_nid(first);
	lab.ranges++;
	for (pfn = start; pfn < end; pfn++) {
		lab_one(&lab, pfn, zone, nid);
		if (!(pfn % 1024))
			cond_resched();
	}
out:
	mutex_unlock(&lab_lock);
	return NOTIFY_OK;
}

/* First of the memory notifiers: none has touched the pages before it. */
static struct notifier_block lab_nb = {
	.notifier_call	= lab_notify,
	.priority	= INT_MAX,
};

static void lab_disarm(void)
{
	mutex_lock(&lab_arm_lock);
	if (lab_registered) {
		unregister_memory_notifier(&lab_nb);
		lab_registered = false;
	}
	mutex_lock(&lab_lock);
	lab.armed = false;
	mutex_unlock(&lab_lock);
	mutex_unlock(&lab_arm_lock);
}

static int lab_arm(unsigned long start_pfn, unsigned long nr_pages)
{
	int ret = 0;

	mutex_lock(&lab_arm_lock);
	mutex_lock(&lab_lock);
	memset(&lab, 0, sizeof(lab));
	lab.start_pfn = start_pfn;
	lab.nr_pages = nr_pages;
	lab.armed = true;
	mutex_unlock(&lab_lock);
	if (!lab_registered) {
		ret = register_memory_notifier(&lab_nb);
		if (ret) {
			mutex_lock(&lab_lock);
			lab.armed = false;
			mutex_unlock(&lab_lock);
		} else {
			lab_registered = true;
		}
	}
	mutex_unlock(&lab_arm_lock);
	return ret;
}

/* "START_PFN NR_PAGES" arms the check anew, "off" disarms it. */
static int lab_command(char *args)
{
	unsigned long start_pfn, nr_pages;
	char *tok;
	int ret;

	if (!strcmp(args, "off")) {
		lab_disarm();
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
	return lab_arm(start_pfn, nr_pages);
}

static ssize_t lab_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char kbuf[64];
	int ret;

	if (count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';
	ret = lab_command(strim(kbuf));
	return ret ? ret : count;
}

/* The state, for a read; called with lab_lock held. */
static int lab_format(const struct lab_hotplug *h, char *buf, size_t size)
{
	int len;

	len = scnprintf(buf, size, "armed %d\nstart_pfn 0x%lx\nnr_pages %lu\n",
			h->armed, h->start_pfn, h->nr_pages);
	len += scnprintf(buf + len, size - len,
			 "pages %lu\nranges %lu\nmismatch %lu\n",
			 h->pages, h->ranges, h->mismatch);
	if (h->mismatch)
		len += scnprintf(buf + len, size - len,
				 "first_mismatch 0x%lx word %u\n",
				 h->first_mismatch_pfn, h->first_mismatch_word);
	else
		len += scnprintf(buf + len, size - len, "first_mismatch none\n");
	len += scnprintf(buf + len, size - len,
			 "digest %016llx\nslow_digest %016llx\n",
			 h->hash, h->slow_hash);
	len += scnprintf(buf + len, size - len, "struct_page_size %zu\n",
			 sizeof(struct page));
	return len;
}

static ssize_t lab_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	ssize_t ret;
	int len;

	mutex_lock(&lab_lock);
	len = lab_format(&lab, lab_buf, sizeof(lab_buf));
	ret = simple_read_from_buffer(ubuf, count, ppos, lab_buf, len);
	mutex_unlock(&lab_lock);
	return ret;
}

static const struct file_operations lab_fops = {
	.owner	= THIS_MODULE,
	.read	= lab_read,
	.write	= lab_write,
	.llseek	= default_llseek,
};

static int __init lab_memmap_hotplug_init(void)
{
	lab_dentry = debugfs_create_file("lab_memmap_hotplug", 0600, NULL,
					 NULL, &lab_fops);
	return PTR_ERR_OR_ZERO(lab_dentry);
}

static void __exit lab_memmap_hotplug_exit(void)
{
	debugfs_remove(lab_dentry);
	lab_disarm();
}

module_init(lab_memmap_hotplug_init);
module_exit(lab_memmap_hotplug_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Check the struct pages memory hotplug onlines against the slow path");
