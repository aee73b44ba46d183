// SPDX-License-Identifier: GPL-2.0
/*
 * dax_pattern: write or check a pattern through a shared mapping of a
 * device-dax character device or of a file on a filesystem mounted with
 * -o dax, for the memmap_init selftests.
 *
 *   dax_pattern fill|check|both [-S] PATH OFFSET LENGTH SEED
 *
 * OFFSET and LENGTH (bytes; a K, M or G suffix is allowed) must suit the
 * mapping: device-dax needs them aligned to the device's alignment.  fill
 * extends a regular file to OFFSET + LENGTH first.  Every 64-bit word gets
 * a value derived from SEED and its offset, so a word moved, lost or
 * reused elsewhere is caught.  -S maps with MAP_SHARED_VALIDATE | MAP_SYNC,
 * which only DAX mappings accept: it proves the file is really in DAX
 * mode.
 *
 * check prints "ok" or the number of bad words and the first bad offset,
 * and exits 0 only if every word matched.  both fills and checks within
 * one mapping, for memory that lives only as long as its mapping (p2pmem's
 * allocate file), and on success prints the PFNs the mapping's pages had,
 * "ok pfn FIRST-LAST" in hex (from /proc/self/pagemap: needs
 * CAP_SYS_ADMIN, "ok pfn unknown" without it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif

static uint64_t pattern(uint64_t seed, uint64_t off)
{
	uint64_t x = seed ^ (off * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static unsigned long long parse_size(const char *s)
{
	static const char units[] = "KMG";
	unsigned long long v;
	const char *unit;
	char *end;

	v = strtoull(s, &end, 0);
	unit = *end ? strchr(units, *end) : NULL;
	if (unit) {
		v <<= 10 * (unit - units + 1);
		end++;
	}
	if (*end) {
		fprintf(stderr, "dax_pattern: bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: dax_pattern fill|check|both [-S] PATH OFFSET LENGTH SEED\n");
	exit(2);
}

/*
 * The lowest and highest PFN of the pages mapped at [p, p + len), from
 * /proc/self/pagemap; false when a page is not present or the PFNs are
 * hidden (zero without CAP_SYS_ADMIN).
 */
static int mapped_pfns(const void *p, unsigned long long len,
		       uint64_t *lo, uint64_t *hi)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long long i;
	int fd, ok = 1;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < len && ok; i += psize) {
		uint64_t e, pfn;
		off_t at = ((uintptr_t)p + i) / psize * sizeof(e);

		if (pread(fd, &e, sizeof(e), at) != sizeof(e) ||
		    !(e & (1ULL << 63))) {
			ok = 0;
			break;
		}
		pfn = e & ((1ULL << 55) - 1);
		if (!pfn)
			ok = 0;
		if (pfn < *lo)
			*lo = pfn;
		if (pfn > *hi)
			*hi = pfn;
	}
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long long off, len, seed, i, bad = 0, first_bad = 0;
	int fill, check, sync = 0, fd, flags = MAP_SHARED;
	uint64_t *p, lo, hi;
	int have_pfns = 0;
	struct stat st;

	if (argc < 2)
		bad_args();
	fill = !strcmp(argv[1], "fill") || !strcmp(argv[1], "both");
	check = !strcmp(argv[1], "check") || !strcmp(argv[1], "both");
	if (!fill && !check)
		bad_args();
	argv += 2;
	argc -= 2;
	if (argc && !strcmp(argv[0], "-S")) {
		sync = 1;
		argv++;
		argc--;
	}
	if (argc != 4)
		bad_args();
	off = parse_size(argv[1]);
	len = parse_size(argv[2]);
	seed = strtoull(argv[3], NULL, 0);
	if (!len || len % sizeof(uint64_t))
		bad_args();

	fd = open(argv[0], fill ? O_RDWR | O_CREAT : O_RDWR, 0644);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "dax_pattern: %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	if (fill && S_ISREG(st.st_mode) && (unsigned long long)st.st_size < off + len &&
	    ftruncate(fd, off + len)) {
		fprintf(stderr, "dax_pattern: ftruncate %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	if (sync)
		flags = MAP_SHARED_VALIDATE | MAP_SYNC;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, off);
	if (p == MAP_FAILED) {
		fprintf(stderr, "dax_pattern: mmap %s at %llu, %llu bytes%s: %s\n",
			argv[0], off, len, sync ? ", MAP_SYNC" : "", strerror(errno));
		return 1;
	}

	for (i = 0; fill && i < len / sizeof(uint64_t); i++)
		p[i] = pattern(seed, off + i * sizeof(uint64_t));
	/* Device-dax has no fsync: its stores are already on the device. */
	if (fill && S_ISREG(st.st_mode) && msync(p, len, MS_SYNC)) {
		fprintf(stderr, "dax_pattern: msync: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; check && i < len / sizeof(uint64_t); i++) {
		if (p[i] != pattern(seed, off + i * sizeof(uint64_t)) && !bad++)
			first_bad = off + i * sizeof(uint64_t);
	}
	if (fill && check)
		have_pfns = mapped_pfns(p, len, &lo, &hi);
	munmap(p, len);
	close(fd);

	if (bad) {
		printf("%llu bad words, first at offset %llu\n", bad, first_bad);
		return 1;
	}
	if (fill && check && have_pfns)
		printf("ok pfn %#llx-%#llx\n", (unsigned long long)lo,
		       (unsigned long long)hi);
	else if (fill && check)
		puts("ok pfn unknown");
	else
		puts("ok");
	return 0;
}
