/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_STRING_64_H
#define _ASM_X86_STRING_64_H

#ifdef __KERNEL__
#include <linux/jump_label.h>

/* Written 2002 by Andi Kleen */

/* Even with __builtin_ the compiler may decide to use the out of line
   function. */

#if defined(__SANITIZE_MEMORY__) && defined(__NO_FORTIFY)
#include <linux/kmsan_string.h>
#endif

#define __HAVE_ARCH_MEMCPY 1
extern void *memcpy(void *to, const void *from, size_t len);
extern void *__memcpy(void *to, const void *from, size_t len);

#define __HAVE_ARCH_MEMSET
void *memset(void *s, int c, size_t n);
void *__memset(void *s, int c, size_t n);
KCFI_REFERENCE(__memset);

/*
 * KMSAN needs to instrument as much code as possible. Use C versions of
 * memsetXX() from lib/string.c under KMSAN.
 */
#if !defined(CONFIG_KMSAN)
#define __HAVE_ARCH_MEMSET16
static inline void *memset16(uint16_t *s, uint16_t v, size_t n)
{
	const auto s0 = s;
	asm volatile (
		"rep stosw"
		: "+D" (s), "+c" (n)
		: "a" (v)
		: "memory"
	);
	return s0;
}

#define __HAVE_ARCH_MEMSET32
static inline void *memset32(uint32_t *s, uint32_t v, size_t n)
{
	const auto s0 = s;
	asm volatile (
		"rep stosl"
		: "+D" (s), "+c" (n)
		: "a" (v)
		: "memory"
	);
	return s0;
}

#define __HAVE_ARCH_MEMSET64
static inline void *memset64(uint64_t *s, uint64_t v, size_t n)
{
	const auto s0 = s;
	asm volatile (
		"rep stosq"
		: "+D" (s), "+c" (n)
		: "a" (v)
		: "memory"
	);
	return s0;
}
#endif

#define __HAVE_ARCH_MEMMOVE
void *memmove(void *dest, const void *src, size_t count);
void *__memmove(void *dest, const void *src, size_t count);
KCFI_REFERENCE(__memmove);

int memcmp(const void *cs, const void *ct, size_t count);
size_t strlen(const char *s);
char *strcpy(char *dest, const char *src);
char *strcat(char *dest, const char *src);
int strcmp(const char *cs, const char *ct);

#ifdef CONFIG_ARCH_HAS_UACCESS_FLUSHCACHE
#define __HAVE_ARCH_MEMCPY_FLUSHCACHE 1
void __memcpy_flushcache(void *dst, const void *src, size_t cnt);

/*
 * Fixed-size MOVNTI sequences, stores in ascending address order.  The
 * asm is volatile and clobbers memory so that the compiler neither drops
 * nor reorders a non-temporal store against the code around it.
 */
static __always_inline void movnti_4(void *dst, const void *src)
{
	asm volatile("movntil %1, %0" : "=m"(*(u32 *)dst)
		     : "r"(*(const u32 *)src) : "memory");
}

static __always_inline void movnti_8(void *dst, const void *src)
{
	asm volatile("movntiq %1, %0" : "=m"(*(u64 *)dst)
		     : "r"(*(const u64 *)src) : "memory");
}

static __always_inline void movnti_16(void *dst, const void *src)
{
	movnti_8(dst, src);
	movnti_8(dst + 8, src + 8);
}

static __always_inline void movnti_32(void *dst, const void *src)
{
	movnti_16(dst, src);
	movnti_16(dst + 16, src + 16);
}

static __always_inline void movnti_64(void *dst, const void *src)
{
	movnti_32(dst, src);
	movnti_32(dst + 32, src + 32);
}

static __always_inline void memcpy_flushcache(void *dst, const void *src, size_t cnt)
{
	if (!__builtin_constant_p(cnt)) {
		__memcpy_flushcache(dst, src, cnt);
		return;
	}

	/*
	 * Besides the small sizes, the sizes of x86-64's struct page: 64
	 * bytes, 80 with KMSAN's metadata or with _last_cpupid outside
	 * page->flags (struct page is 16-byte aligned), 96 with both; and
	 * 32 and 48 next to them.
	 */
	switch (cnt) {
	case 4:
		movnti_4(dst, src);
		break;
	case 8:
		movnti_8(dst, src);
		break;
	case 16:
		movnti_16(dst, src);
		break;
	case 32:
		movnti_32(dst, src);
		break;
	case 48:
		movnti_32(dst, src);
		movnti_16(dst + 32, src + 32);
		break;
	case 64:
		movnti_64(dst, src);
		break;
	case 80:
		movnti_64(dst, src);
		movnti_16(dst + 64, src + 64);
		break;
	case 96:
		movnti_64(dst, src);
		movnti_32(dst + 64, src + 64);
		break;
	default:
		__memcpy_flushcache(dst, src, cnt);
		break;
	}
}

/*
 * KASAN and KMSAN do not see the stores of the asm above: x86 selects
 * ARCH_HAS_MEMCPY_NONTEMPORAL without them only, and kernels with them
 * keep the generic memcpy_nontemporal(), whose memcpy() they instrument.
 */
#ifdef CONFIG_ARCH_HAS_MEMCPY_NONTEMPORAL
/* MOVNTI, through the memcpy_flushcache() that pmem already uses. */
#define memcpy_nontemporal memcpy_nontemporal
static __always_inline void memcpy_nontemporal(void *dst, const void *src,
					       size_t cnt)
{
	memcpy_flushcache(dst, src, cnt);
}

/* MOVNTI stores are weakly ordered: SFENCE orders them before later ones. */
#define memcpy_nontemporal_drain memcpy_nontemporal_drain
static __always_inline void memcpy_nontemporal_drain(void)
{
	asm volatile("sfence" ::: "memory");
}
#endif
#endif

#endif /* __KERNEL__ */

#endif /* _ASM_X86_STRING_64_H */
