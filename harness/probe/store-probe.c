// SPDX-License-Identifier: GPL-2.0
/*
 * store-probe: a user-space model of the write pattern of the series'
 * memmap_init_zone_device(): a 64-byte template "struct page" (8 x u64)
 * copied to every consecutive 64-byte slot of a large buffer, word 0
 * changed per element (like the section bits in page->flags).
 *
 * It is NOT a measurement of the kernel: no vmemmap, no page tables being
 * populated, no zone/pgmap bookkeeping.  It only answers "on this CPU, how
 * fast are cached 64-bit stores vs MOVNTI for this pattern, and how close
 * do they get to a plain memset / non-temporal fill of the same bytes".
 *
 * Cases (each timed --repeat times, cases interleaved per repetition):
 *   copy-cached  8 explicit 64-bit stores per element (volatile, so GCC
 *                emits plain movq: no vectorisation, no memcpy/rep movs)
 *   copy-nt      8 MOVNTI per element, one SFENCE at the end
 *     each over  cold: buffer faulted in at start-up, then evicted from the
 *                      caches by reading through a separate large buffer
 *                warm: buffer zeroed with cached stores just before
 *   memset       glibc memset(0) of the buffer (cold), the ceiling
 *   fill-nt      MOVNTI of zeros over the buffer + SFENCE (cold), the ceiling
 *   fill-cached  8 explicit 64-bit zero stores per 64 bytes (cold), for
 *                telling glibc's memset strategy apart from plain stores
 *
 * Build: gcc -std=c11 -O2 -Wall -Wextra -o store-probe store-probe.c
 * (harness/store-probe.sh does this).  On architectures other than x86-64
 * the MOVNTI cases are reported as unavailable.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#define LIBC_NAME "glibc"
#define LIBC_VERSION gnu_get_libc_version()
#else
#define LIBC_NAME "libc"
#define LIBC_VERSION "unknown"
#endif

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_NT 1
#define ARCH_NAME "x86_64"
#else
#define HAVE_NT 0
#if defined(__aarch64__)
#define ARCH_NAME "aarch64"
#else
#define ARCH_NAME "other"
#endif
#endif

#define PROG "store-probe"
#define SLOT 64				/* sizeof(struct page) on x86-64 */
#define WORDS (SLOT / 8)
#define DEFAULT_SIZE (2ULL << 30)
#define DEFAULT_REPEAT 5
#define MAX_REPEAT 1000
/* 128 MiB sections of 4 KiB pages: 2^15 pages per section. */
#define PAGES_PER_SECTION_SHIFT 15
#define SECTION_BITS_SHIFT 44

/*
 * Keep the hot loops out of line and opaque to interprocedural constant
 * propagation, so the template words are loaded from memory into
 * registers like the kernel's, not folded into immediates.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define HOT_LOOP __attribute__((noinline, noipa))
#else
#define HOT_LOOP __attribute__((noinline))
#endif

struct fake_page {
	uint64_t w[WORDS];
};

enum dest { COLD, WARM };

enum case_id {
	C_COPY_CACHED_COLD,
	C_COPY_NT_COLD,
	C_COPY_CACHED_WARM,
	C_COPY_NT_WARM,
	C_MEMSET_COLD,
	C_FILL_NT_COLD,
	C_FILL_CACHED_COLD,
	NR_CASES
};

struct case_desc {
	const char *key;	/* JSON key */
	const char *label;	/* table label */
	enum dest dest;
	int needs_nt;
};

static const struct case_desc cases[NR_CASES] = {
	[C_COPY_CACHED_COLD] = { "copy_cached_cold", "copy, cached 8x movq", COLD, 0 },
	[C_COPY_NT_COLD]     = { "copy_nt_cold", "copy, 8x movnti + sfence", COLD, 1 },
	[C_COPY_CACHED_WARM] = { "copy_cached_warm", "copy, cached 8x movq", WARM, 0 },
	[C_COPY_NT_WARM]     = { "copy_nt_warm", "copy, 8x movnti + sfence", WARM, 1 },
	[C_MEMSET_COLD]      = { "memset_cold", "memset(0) (glibc)", COLD, 0 },
	[C_FILL_NT_COLD]     = { "fill_nt_cold", "fill 0, movnti + sfence", COLD, 1 },
	[C_FILL_CACHED_COLD] = { "fill_cached_cold", "fill 0, cached 8x movq", COLD, 0 },
};

struct stats {
	int valid;
	double median, min, max;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--size SIZE] [--repeat R] [--evict SIZE] [--json FILE]\n"
		"  --size SIZE    destination buffer, bytes with optional K/M/G suffix\n"
		"                 (binary units; default 2G; at most 75%% of MemAvailable)\n"
		"  --repeat R     timed runs per case (default %d), median/min/max reported\n"
		"  --evict SIZE   eviction buffer for the cold cases (default 2x LLC,\n"
		"                 at least 64M, at most 2G)\n"
		"  --json FILE    also write the results as a JSON object to FILE\n"
		"Models the template-copy write pattern in user space; not a kernel measurement.\n",
		DEFAULT_REPEAT);
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2))) fatal(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* "2G", "512M", "64K", "4096": binary units; 0 on any parse error. */
static unsigned long long parse_size(const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	case '\0':
		break;
	default:
		return 0;
	}
	/* Allow "2GiB", "2GB". */
	if (mul != 1 && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end)
		return 0;
	if (v > ULLONG_MAX / mul)
		return 0;
	return v * mul;
}

static unsigned long long mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		/* x86: "model name"; arm64 has no name, only "CPU part". */
		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static unsigned long long llc_size(void)
{
	long v = -1;

#ifdef _SC_LEVEL3_CACHE_SIZE
	v = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (v <= 0)
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return v > 0 ? (unsigned long long)v : 0;
}

static void read_thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128], *l, *r;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		l = strchr(line, '[');
		r = l ? strchr(l, ']') : NULL;
		if (l && r) {
			*r = '\0';
			snprintf(buf, len, "%s", l + 1);
		}
	}
	fclose(f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *alloc_buf(size_t size, const char *what)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fatal("cannot map %zu bytes for the %s buffer: %s", size, what,
		      strerror(errno));
	/* The kernel's vmemmap is PMD-mapped on x86; ask for THP (best effort). */
	(void)madvise(p, size, MADV_HUGEPAGE);
	return p;
}

static inline uint64_t flags_word(uint64_t w0, size_t i)
{
	return w0 | ((uint64_t)(i >> PAGES_PER_SECTION_SHIFT) << SECTION_BITS_SHIFT);
}

/*
 * Cached copy: eight explicit 64-bit stores per element.  The volatile
 * stores keep GCC from vectorising or turning this into a memcpy call, so
 * it is what the kernel (built without SSE) gets: eight movq.
 */
static void HOT_LOOP
copy_cached(struct fake_page *dst, size_t n, const struct fake_page *tmpl)
{
	const uint64_t w0 = tmpl->w[0], w1 = tmpl->w[1], w2 = tmpl->w[2],
		       w3 = tmpl->w[3], w4 = tmpl->w[4], w5 = tmpl->w[5],
		       w6 = tmpl->w[6], w7 = tmpl->w[7];

	for (size_t i = 0; i < n; i++) {
		volatile uint64_t *d = dst[i].w;

		d[0] = flags_word(w0, i);
		d[1] = w1;
		d[2] = w2;
		d[3] = w3;
		d[4] = w4;
		d[5] = w5;
		d[6] = w6;
		d[7] = w7;
	}
}

/* Eight explicit 64-bit zero stores per 64 bytes. */
static void HOT_LOOP
fill_cached(struct fake_page *dst, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		volatile uint64_t *d = dst[i].w;

		d[0] = 0;
		d[1] = 0;
		d[2] = 0;
		d[3] = 0;
		d[4] = 0;
		d[5] = 0;
		d[6] = 0;
		d[7] = 0;
	}
}

#if HAVE_NT
/* MOVNTI copy: eight non-temporal 64-bit stores per element, one SFENCE. */
static void HOT_LOOP
copy_nt(struct fake_page *dst, size_t n, const struct fake_page *tmpl)
{
	const long long w0 = (long long)tmpl->w[0], w1 = (long long)tmpl->w[1],
			w2 = (long long)tmpl->w[2], w3 = (long long)tmpl->w[3],
			w4 = (long long)tmpl->w[4], w5 = (long long)tmpl->w[5],
			w6 = (long long)tmpl->w[6], w7 = (long long)tmpl->w[7];

	for (size_t i = 0; i < n; i++) {
		long long *d = (long long *)dst[i].w;

		_mm_stream_si64(d + 0, (long long)flags_word((uint64_t)w0, i));
		_mm_stream_si64(d + 1, w1);
		_mm_stream_si64(d + 2, w2);
		_mm_stream_si64(d + 3, w3);
		_mm_stream_si64(d + 4, w4);
		_mm_stream_si64(d + 5, w5);
		_mm_stream_si64(d + 6, w6);
		_mm_stream_si64(d + 7, w7);
	}
	_mm_sfence();
}

static void HOT_LOOP
fill_nt(struct fake_page *dst, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long long *d = (long long *)dst[i].w;

		_mm_stream_si64(d + 0, 0);
		_mm_stream_si64(d + 1, 0);
		_mm_stream_si64(d + 2, 0);
		_mm_stream_si64(d + 3, 0);
		_mm_stream_si64(d + 4, 0);
		_mm_stream_si64(d + 5, 0);
		_mm_stream_si64(d + 6, 0);
		_mm_stream_si64(d + 7, 0);
	}
	_mm_sfence();
}
#endif

/* Push the destination out of the caches: read one word per line. */
static uint64_t evict_sink;

static void HOT_LOOP
evict(const struct fake_page *buf, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += ((const volatile uint64_t *)buf[i].w)[0];
	evict_sink += sum;
}

/* Spot-check ~4096 elements and the last one after a timed case. */
static void check_elem(const struct fake_page *dst, size_t i,
		       const struct fake_page *tmpl, const char *what)
{
	for (int w = 0; w < WORDS; w++) {
		uint64_t want = tmpl ? (w ? tmpl->w[w] : flags_word(tmpl->w[0], i)) : 0;

		if (dst[i].w[w] != want)
			fatal("%s: element %zu word %d is 0x%016" PRIx64
			      ", expected 0x%016" PRIx64, what, i, w,
			      dst[i].w[w], want);
	}
}

static void verify(const struct fake_page *dst, size_t n,
		   const struct fake_page *tmpl, const char *what)
{
	size_t step = n / 4096 ? n / 4096 : 1;

	for (size_t i = 0; i < n; i += step)
		check_elem(dst, i, tmpl, what);
	check_elem(dst, n - 1, tmpl, what);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct stats summarise(double *v, int n)
{
	struct stats s = { .valid = 1 };
	double *t = malloc(sizeof(*t) * (size_t)n);

	if (!t)
		fatal("out of memory");
	memcpy(t, v, sizeof(*t) * (size_t)n);
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	s.min = t[0];
	s.max = t[n - 1];
	s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return s;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_number(FILE *f, int valid, double v)
{
	if (valid)
		fprintf(f, "%.3f", v);
	else
		fputs("null", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "evict", required_argument, NULL, 'e' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long size = DEFAULT_SIZE, evict_size = 0, avail, llc;
	const char *json_path = NULL;
	int repeat = DEFAULT_REPEAT, c;
	char cpu[256], thp[32];
	struct fake_page *dst, *ebuf, tmpl;
	size_t n, en;
	double *gbps[NR_CASES];
	struct stats st[NR_CASES];
	double ratio_cold = 0, ratio_warm = 0;
	int have_ratios;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			size = parse_size(optarg);
			if (!size)
				usage_error("--size '%s': want a positive size like 2G, 512M, 65536", optarg);
			break;
		case 'r': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 || v > MAX_REPEAT)
				usage_error("--repeat '%s': want an integer from 1 to %d", optarg, MAX_REPEAT);
			repeat = (int)v;
			break;
		}
		case 'e':
			evict_size = parse_size(optarg);
			if (!evict_size)
				usage_error("--evict '%s': want a positive size like 1G", optarg);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (size % SLOT)
		usage_error("--size %llu is not a multiple of %d bytes", size, SLOT);
	avail = mem_available();
	if (avail && size > avail / 4 * 3)
		usage_error("--size %llu MiB is above 75%% of MemAvailable (%llu MiB)",
			    size >> 20, avail >> 20);

	llc = llc_size();
	if (!evict_size) {
		evict_size = llc ? 2 * llc : 256ULL << 20;
		if (evict_size < 64ULL << 20)
			evict_size = 64ULL << 20;
		if (evict_size > 2ULL << 30)
			evict_size = 2ULL << 30;
		/* Keep both buffers within MemAvailable. */
		if (avail && size + evict_size > avail / 10 * 9)
			evict_size = avail / 10 * 9 - size;
	}
	evict_size -= evict_size % SLOT;
	if (evict_size < SLOT)
		usage_error("no room for an eviction buffer next to --size %llu MiB", size >> 20);

	read_cpu_model(cpu, sizeof(cpu));
	read_thp_mode(thp, sizeof(thp));

	printf("NOTE: this models the template-copy write pattern of memmap_init_zone_device() "
	       "in user space; it is not a measurement of the kernel.\n");
	printf("cpu: %s (%s)\n", cpu, ARCH_NAME);
	printf("size: %llu MiB (%llu x 64-byte elements), repeat: %d, eviction buffer: %llu MiB, "
	       "LLC: %llu KiB, THP: %s, " LIBC_NAME " %s\n",
	       size >> 20, size / SLOT, repeat, evict_size >> 20, llc >> 10, thp,
	       LIBC_VERSION);
	if (!HAVE_NT)
		printf("MOVNTI: unavailable on this architecture; the non-temporal cases are skipped\n");
	if (llc && size <= llc)
		printf("size fits in the LLC: the warm cases are fully cache-resident\n");
	else if (llc)
		printf("size exceeds the LLC: in the warm cases only the tail of the buffer is still cached\n");
	fflush(stdout);

	n = size / SLOT;
	en = evict_size / SLOT;
	dst = alloc_buf(size, "destination");
	ebuf = alloc_buf(evict_size, "eviction");

	/* Template: plausible struct page words; word 0 gets section bits. */
	tmpl.w[0] = 0x0000000000001000ULL;	/* PG_reserved-like bit, zone/node 0 */
	tmpl.w[1] = 0x00000000deadbeefULL;	/* lru.next / pgmap-ish pointer */
	tmpl.w[2] = 0x00000000deadbeefULL;
	tmpl.w[3] = 0;				/* mapping */
	tmpl.w[4] = 0;				/* index */
	tmpl.w[5] = 0xffff888000000000ULL;	/* zone_device_data-ish */
	tmpl.w[6] = 0x00000001ffffffffULL;	/* _mapcount -1, _refcount 1 */
	tmpl.w[7] = 0;				/* memcg_data */

	/* Fault everything in long before the cold cases run. */
	fill_cached(dst, n);
	for (size_t i = 0; i < en; i++)
		for (int w = 0; w < WORDS; w++)
			ebuf[i].w[w] = i + (size_t)w;

	for (int i = 0; i < NR_CASES; i++) {
		gbps[i] = calloc((size_t)repeat, sizeof(double));
		if (!gbps[i])
			fatal("out of memory");
	}

	fprintf(stderr, PROG ": running %d cases x %d repetitions over %llu MiB...\n",
		NR_CASES, repeat, size >> 20);
	for (int r = 0; r < repeat; r++) {
		for (int i = 0; i < NR_CASES; i++) {
			const struct fake_page *want = NULL;
			double t0, t;

			if (cases[i].needs_nt && !HAVE_NT)
				continue;
			if (cases[i].dest == COLD) {
				/*
				 * Fills are checked for zeros afterwards: give
				 * them something to overwrite first.
				 */
				if (i == C_MEMSET_COLD || i == C_FILL_NT_COLD ||
				    i == C_FILL_CACHED_COLD)
					copy_cached(dst, n, &tmpl);
				evict(ebuf, en);
			} else {
				fill_cached(dst, n);
			}

			t0 = now_s();
			switch (i) {
			case C_COPY_CACHED_COLD:
			case C_COPY_CACHED_WARM:
				copy_cached(dst, n, &tmpl);
				want = &tmpl;
				break;
#if HAVE_NT
			case C_COPY_NT_COLD:
			case C_COPY_NT_WARM:
				copy_nt(dst, n, &tmpl);
				want = &tmpl;
				break;
			case C_FILL_NT_COLD:
				fill_nt(dst, n);
				break;
#endif
			case C_MEMSET_COLD:
				memset(dst, 0, size);
				break;
			case C_FILL_CACHED_COLD:
				fill_cached(dst, n);
				break;
			}
			t = now_s() - t0;
			gbps[i][r] = (double)size / t / 1e9;
			verify(dst, n, want, cases[i].key);
		}
	}

	for (int i = 0; i < NR_CASES; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		if (!cases[i].needs_nt || HAVE_NT)
			st[i] = summarise(gbps[i], repeat);
	}
	have_ratios = HAVE_NT;
	if (have_ratios) {
		ratio_cold = st[C_COPY_NT_COLD].median / st[C_COPY_CACHED_COLD].median;
		ratio_warm = st[C_COPY_NT_WARM].median / st[C_COPY_CACHED_WARM].median;
	}

	printf("\n%-26s %-5s %12s %10s %10s\n", "case", "dest", "median GB/s",
	       "min GB/s", "max GB/s");
	for (int i = 0; i < NR_CASES; i++) {
		if (!st[i].valid) {
			printf("%-26s %-5s %12s %10s %10s\n", cases[i].label,
			       cases[i].dest == COLD ? "cold" : "warm", "n/a", "n/a", "n/a");
			continue;
		}
		printf("%-26s %-5s %12.2f %10.2f %10.2f\n", cases[i].label,
		       cases[i].dest == COLD ? "cold" : "warm",
		       st[i].median, st[i].min, st[i].max);
	}
	if (have_ratios)
		printf("\nNT/cached copy (median GB/s): cold %.2f, warm %.2f\n",
		       ratio_cold, ratio_warm);
	else
		printf("\nNT/cached copy: n/a (no MOVNTI on this architecture)\n");

	if (json_path) {
		FILE *f = fopen(json_path, "w");

		if (!f)
			fatal("cannot write %s: %s", json_path, strerror(errno));
		fputs("{\n  \"note\": \"user-space model of the template-copy write pattern; "
		      "not a measurement of the kernel\",\n  \"cpu_model\": ", f);
		json_string(f, cpu);
		fprintf(f, ",\n  \"arch\": \"%s\",\n  \"nt_available\": %s,\n",
			ARCH_NAME, HAVE_NT ? "true" : "false");
		fprintf(f, "  \"size_bytes\": %llu,\n  \"repeat\": %d,\n"
			"  \"evict_bytes\": %llu,\n  \"llc_bytes\": %llu,\n",
			size, repeat, evict_size, llc);
		fputs("  \"thp\": ", f);
		json_string(f, thp);
		fputs(",\n  \"" LIBC_NAME "\": ", f);
		json_string(f, LIBC_VERSION);
		fputs(",\n  \"cases\": {\n", f);
		for (int i = 0; i < NR_CASES; i++) {
			fprintf(f, "    \"%s\": {\"dest\": \"%s\", \"median_gbps\": ",
				cases[i].key, cases[i].dest == COLD ? "cold" : "warm");
			json_number(f, st[i].valid, st[i].median);
			fputs(", \"min_gbps\": ", f);
			json_number(f, st[i].valid, st[i].min);
			fputs(", \"max_gbps\": ", f);
			json_number(f, st[i].valid, st[i].max);
			fputs(", \"samples_gbps\": [", f);
			for (int r = 0; st[i].valid && r < repeat; r++)
				fprintf(f, "%s%.3f", r ? ", " : "", gbps[i][r]);
			fprintf(f, "]}%s\n", i + 1 < NR_CASES ? "," : "");
		}
		fputs("  },\n  \"ratios\": {\"nt_over_cached_cold\": ", f);
		json_number(f, have_ratios, ratio_cold);
		fputs(", \"nt_over_cached_warm\": ", f);
		json_number(f, have_ratios, ratio_warm);
		fputs("}\n}\n", f);
		if (fclose(f))
			fatal("cannot write %s: %s", json_path, strerror(errno));
	}

	for (int i = 0; i < NR_CASES; i++)
		free(gbps[i]);
	munmap(dst, size);
	munmap(ebuf, evict_size);
	return 0;
}
