// SPDX-License-Identifier: GPL-2.0
/*
 * Map device-private memory of a chosen size, node, folio order and start
 * offset, so that the memmap_init selftests can bind ranges no driver
 * makes: compound pages larger than a chunk of the multithreaded memmap
 * init, a range that does not start at a compound page boundary (the
 * tests map none: vmemmap optimization assumes aligned heads), memory of
 * a given node (see memmap_threads.sh).  Nothing backs the pages: they
 * exist for memmap_init_zone_device() and test_memmap_digest.ko only.
 *
 * Write "SIZE_MB NID ORDER OFFSET_MB" to /sys/kernel/debug/test_memmap_pgmap
 * to map SIZE_MB MiB of device-private memory for node NID with folios of
 * 2^ORDER pages (vmemmap_shift), starting OFFSET_MB MiB past a boundary of
 * such a folio; write "unmap" to remove it.  One mapping at a time.  Read
 * back the mapping ("none" without one):
 *
 *   start_pfn 0x1040200 nr_pages 262144 nid 1 order 10
 *
 * SIZE_MB must be a multiple of the folio size and OFFSET_MB of 2 MiB (a
 * memory hotplug subsection); NID must be online.  A request that breaks
 * these rules, or whose numbers overflow, is refused with -EINVAL (-EBUSY
 * while a mapping exists); one too large for free physical address space
 * fails with the error of request_free_mem_region() or memremap_pages().
 * A refused or failed request maps nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(pgmap_lock);
static struct dev_pagemap pgmap;
static struct resource *pgmap_res;
static int pgmap_nid;
static int pgmap_owner;
static struct dentry *pgmap_file;

static void pgmap_folio_free(struct folio *folio)
{
}

static vm_fault_t pgmap_migrate_to_ram(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pgmap_ops = {
	.folio_free	= pgmap_folio_free,
	.migrate_to_ram	= pgmap_migrate_to_ram,
};

static void pgmap_unmap(void)
{
	if (!pgmap_res)
		return;
	memunmap_pages(&pgmap);
	release_mem_region(pgmap_res->start, resource_size(pgmap_res));
	pgmap_res = NULL;
}

static int pgmap_map(unsigned long size_mb, int nid, unsigned int order,
		     unsigned long offset_mb)
{
	u64 folio, size, offset;
	struct resource *res;
	void *ret;

	if (pgmap_res)
		return -EBUSY;
	if (!size_mb || order > MAX_FOLIO_ORDER ||
	    check_mul_overflow((u64)size_mb, (u64)SZ_1M, &size) ||
	    check_mul_overflow((u64)offset_mb, (u64)SZ_1M, &offset))
		return -EINVAL;
	folio = PAGE_SIZE << order;
	if (!IS_ALIGNED(size, folio) || !IS_ALIGNED(offset, SZ_2M) ||
	    offset >= folio || size > U64_MAX - folio - offset ||
	    nid < 0 || nid >= MAX_NUMNODES || !node_online(nid))
		return -EINVAL;

	/* Room to move the start to a folio boundary, then past it. */
	res = request_free_mem_region(&iomem_resource, size + folio + offset,
				      KBUILD_MODNAME);
	if (IS_ERR(res))
		return PTR_ERR(res);

	memset(&pgmap, 0, sizeof(pgmap));
	pgmap.type = MEMORY_DEVICE_PRIVATE;
	pgmap.range.start = ALIGN(res->start, folio) + offset;
	pgmap.range.end = pgmap.range.start + size - 1;
	pgmap.nr_range = 1;
	pgmap.vmemmap_shift = order;
	pgmap.ops = &pgmap_ops;
	pgmap.owner = &pgmap_owner;

	ret = memremap_pages(&pgmap, nid);
	if (IS_ERR(ret)) {
		release_mem_region(res->start, resource_size(res));
		return PTR_ERR(ret);
	}
	pgmap_res = res;
	pgmap_nid = nid;
	return 0;
}

static ssize_t pgmap_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned long size_mb, offset_mb;
	unsigned int order;
	char buf[64];
	int nid, ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	mutex_lock(&pgmap_lock);
	if (sysfs_streq(buf, "unmap")) {
		pgmap_unmap();
		ret = 0;
	} else if (sscanf(buf, "%lu %d %u %lu", &size_mb, &nid, &order,
			  &offset_mb) == 4) {
		ret = pgmap_map(size_mb, nid, order, offset_mb);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&pgmap_lock);

	return ret ? ret : count;
}

static ssize_t pgmap_read(struct file *file, char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[128];
	int len;

	mutex_lock(&pgmap_lock);
	if (pgmap_res)
		len = scnprintf(buf, sizeof(buf),
				"start_pfn %#lx nr_pages %lu nid %d order %lu\n",
				PHYS_PFN(pgmap.range.start),
				PHYS_PFN(range_len(&pgmap.range)), pgmap_nid,
				pgmap.vmemmap_shift);
	else
		len = scnprintf(buf, sizeof(buf), "none\n");
	mutex_unlock(&pgmap_lock);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations pgmap_fops = {
	.owner	= THIS_MODULE,
	.read	= pgmap_read,
	.write	= pgmap_write,
	.llseek	= default_llseek,
};

static int __init test_memmap_pgmap_init(void)
{
	pgmap_file = debugfs_create_file(KBUILD_MODNAME, 0600, NULL, NULL,
					 &pgmap_fops);
	return 0;
}

static void __exit test_memmap_pgmap_exit(void)
{
	debugfs_remove(pgmap_file);
	mutex_lock(&pgmap_lock);
	pgmap_unmap();
	mutex_unlock(&pgmap_lock);
}

module_init(test_memmap_pgmap_init);
module_exit(test_memmap_pgmap_exit);
MODULE_DESCRIPTION("Map device-private memory of a given shape for the memmap_init selftests");
MODULE_LICENSE("GPL");
