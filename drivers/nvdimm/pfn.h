/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2014-2015, Intel Corporation.
 */

#ifndef __NVDIMM_PFN_H
#define __NVDIMM_PFN_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/mmzone.h>

#define PFN_SIG_LEN 16
#define PFN_SIG "NVDIMM_PFN_INFO\0"
#define DAX_SIG "NVDIMM_DAX_INFO\0"

struct nd_pfn_sb {
	u8 signature[PFN_SIG_LEN];
	u8 uuid[16];
	u8 parent_uuid[16];
	/*
	 * Compatible hints only, zero before minor version 3 guaranteed it:
	 * a kernel that does not know a bit ignores it (nd_pfn_validate()
	 * does not look at @flags), so a feature that an older kernel must
	 * not ignore needs a new version instead.
	 * PFN_SB_MEMMAP_STREAMING_{ON,OFF}: below.
	 */
	__le32 flags;
	__le16 version_major;
	__le16 version_minor;
	__le64 dataoff; /* relative to namespace_base + start_pad */
	__le64 npfns;
	__le32 mode;
	/* minor-version-1 additions for section alignment */
	/**
	 * @start_pad: Deprecated attribute to pad start-misaligned namespaces
	 *
	 * start_pad is deprecated because the original definition did
	 * not comprehend that dataoff is relative to the base address
	 * of the namespace not the start_pad adjusted base. The result
	 * is that the dax path is broken, but the block-I/O path is
	 * not. The kernel will no longer create namespaces using start
	 * padding, but it still supports block-I/O for legacy
	 * configurations mainly to allow a backup, reconfigure the
	 * namespace, and restore flow to repair dax operation.
	 */
	__le32 start_pad;
	__le32 end_trunc;
	/* minor-version-2 record the base alignment of the mapping */
	__le32 align;
	/* minor-version-3 guarantee the padding and flags are zero */
	/* minor-version-4 record the page size and struct page size */
	__le32 page_size;
	__le16 page_struct_size;
	u8 padding[3994];
	__le64 checksum;
};

/*
 * The namespace's memmap_streaming choice, saved when the kernel created
 * the info block: how memmap_init_zone_device() writes the memmap of this
 * fsdax or devdax mapping (see Documentation/ABI/testing/sysfs-bus-nvdimm).
 * A two-bit field: 0 is "default", 1 "on", 2 "off"; 3 is reserved, never
 * written, and read as "default".  Info blocks older than minor version 3 may have garbage
 * in @flags, so their flags are ignored.  Kernels that predate these bits
 * ignore @flags and follow their own default.
 */
#define PFN_SB_MEMMAP_STREAMING_MASK	GENMASK(1, 0)
#define PFN_SB_MEMMAP_STREAMING_ON	BIT(0)
#define PFN_SB_MEMMAP_STREAMING_OFF	BIT(1)

#endif /* __NVDIMM_PFN_H */
