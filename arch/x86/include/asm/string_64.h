/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_STRING_64_H
#define _ASM_X86_STRING_64_H

#ifdef __KERNEL__
#include <linux/jump_label.h>
#include <linux/unroll.h>

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
 * Copy @cnt bytes, a multiple of 8, with one MOVNTI per word.  Only for
 * small constant sizes, where the loop unrolls into fixed-offset stores.
 */
static __always_inline void __memcpy_flushcache_word(void *dst, const void *src)
{
	asm ("movntiq %1, %0" : "=m"(*(u64 *)dst) : "r"(*(u64 *)src));
}

static __always_inline void __memcpy_flushcache_words(void *dst,
						      const void *src,
						      size_t cnt)
{
	size_t i;

	unrolled_full
	for (i = 0; i < cnt; i += 8)
		__memcpy_flushcache_word(dst + i, src + i);
}

static __always_inline void memcpy_flushcache(void *dst, const void *src, size_t cnt)
{
	if (__builtin_constant_p(cnt)) {
		switch (cnt) {
			case 4:
				asm ("movntil %1, %0" : "=m"(*(u32 *)dst) : "r"(*(u32 *)src));
				return;
			case 8:
				asm ("movntiq %1, %0" : "=m"(*(u64 *)dst) : "r"(*(u64 *)src));
				return;
			case 16:
				asm ("movntiq %1, %0" : "=m"(*(u64 *)dst) : "r"(*(u64 *)src));
				asm ("movntiq %1, %0" : "=m"(*(u64 *)(dst + 8)) : "r"(*(u64 *)(src + 8)));
				return;
			/*
			 * struct page sized objects.  An unaligned destination
			 * needs the cache flushing of __memcpy_flushcache().
			 */
			case 32: case 40: case 48: case 56: case 64:
			case 72: case 80: case 88: case 96:
				if (!((unsigned long)dst & 7)) {
					__memcpy_flushcache_words(dst, src, cnt);
					return;
				}
				break;
		}
	}
	__memcpy_flushcache(dst, src, cnt);
}

/*
 * KASAN and KMSAN keep the instrumented generic memcpy_nontemporal(): the
 * MOVNTI sequences above are invisible to them.
 */
#if !defined(CONFIG_KASAN) && !defined(CONFIG_KMSAN)
#define __HAVE_ARCH_MEMCPY_NONTEMPORAL 1
/*
 * Whole words to a word-aligned destination stay non-temporal from start
 * to end in memcpy_flushcache(); anything else is an ordinary memcpy().
 */
static __always_inline void memcpy_nontemporal(void *dst, const void *src,
					       size_t cnt)
{
	if (!(cnt & 7) && !((unsigned long)dst & 7))
		memcpy_flushcache(dst, src, cnt);
	else
		memcpy(dst, src, cnt);
}

static __always_inline void memcpy_nontemporal_drain(void)
{
	asm volatile("sfence" ::: "memory");
}
#endif
#endif

#endif /* __KERNEL__ */

#endif /* _ASM_X86_STRING_64_H */
