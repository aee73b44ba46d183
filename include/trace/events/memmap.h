/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM memmap

#if !defined(_TRACE_MEMMAP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MEMMAP_H

#include <linux/types.h>
#include <linux/memremap.h>
#include <linux/tracepoint.h>

#ifdef CONFIG_ZONE_DEVICE

TRACE_DEFINE_ENUM(MEMORY_DEVICE_PRIVATE);
TRACE_DEFINE_ENUM(MEMORY_DEVICE_COHERENT);
TRACE_DEFINE_ENUM(MEMORY_DEVICE_FS_DAX);
TRACE_DEFINE_ENUM(MEMORY_DEVICE_GENERIC);
TRACE_DEFINE_ENUM(MEMORY_DEVICE_PCI_P2PDMA);

TRACE_DEFINE_ENUM(MEMMAP_INIT_TEMPLATE);
TRACE_DEFINE_ENUM(MEMMAP_INIT_TEMPLATE_STREAMING);

/*
 * One event per memmap_init_zone_device() call, including calls that find
 * no page to initialize: which struct pages were initialized, for what
 * kind of pgmap, how, on how many threads (0 when there was no page) for
 * which node, and how long it took.
 */
TRACE_EVENT(memmap_init_zone_device,
	    TP_PROTO(unsigned long start_pfn, unsigned long nr_pages,
		     enum memory_type type, bool altmap,
		     enum memmap_init_backend backend, int threads, int nid,
		     u64 duration_ns),
	    TP_ARGS(start_pfn, nr_pages, type, altmap, backend, threads, nid,
		    duration_ns),
	    TP_STRUCT__entry(__field(unsigned long, start_pfn)
			     __field(unsigned long, nr_pages)
			     __field(int, type)
			     __field(bool, altmap)
			     __field(int, backend)
			     __field(int, threads)
			     __field(int, nid)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->start_pfn = start_pfn;
			   __entry->nr_pages = nr_pages;
			   __entry->type = type;
			   __entry->altmap = altmap;
			   __entry->backend = backend;
			   __entry->threads = threads;
			   __entry->nid = nid;
			   __entry->duration_ns = duration_ns;),
	    TP_printk("start_pfn=0x%lx nr_pages=%lu type=%s altmap=%d backend=%s duration_ns=%llu threads=%d nid=%d",
		      __entry->start_pfn, __entry->nr_pages,
		      __print_symbolic(__entry->type,
				       { MEMORY_DEVICE_PRIVATE, "private" },
				       { MEMORY_DEVICE_COHERENT, "coherent" },
				       { MEMORY_DEVICE_FS_DAX, "fs_dax" },
				       { MEMORY_DEVICE_GENERIC, "generic" },
				       { MEMORY_DEVICE_PCI_P2PDMA, "pci_p2pdma" }),
		      __entry->altmap,
		      __print_symbolic(__entry->backend,
				       { MEMMAP_INIT_TEMPLATE, "template" },
				       { MEMMAP_INIT_TEMPLATE_STREAMING,
					 "template+streaming" }),
		      __entry->duration_ns, __entry->threads, __entry->nid)
);

#endif /* CONFIG_ZONE_DEVICE */

#endif /* _TRACE_MEMMAP_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
