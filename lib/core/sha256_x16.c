// SPDX-License-Identifier: GPL-2.0-or-later
/* sha256_x16.c - SHA-256 of up to sixteen equal-length messages at once, one per vector lane */
#include "config.h"

#include <string.h>

#include "sha256_x16.h"

/*
 * Why this file exists: a Merkle tree's leaf level is thousands of
 * independent blocks of one length, all starting from the same salted state.
 * Where the SHA extensions are slow (Intel before Alder Lake: about 1.2 GB/s a
 * core, the SHA unit is the limit) or missing, sixteen messages side by side,
 * one in each 32-bit lane of a 512-bit vector, hash two to three times faster
 * with plain AVX-512 integer operations: rotates are one instruction
 * (vprord), and Ch, Maj and the three-way XORs one vpternlogd each.
 *
 * The code is written once with the compiler's generic vector type and
 * compiled twice: for AVX-512 (the fast path, chosen at run time) and for
 * the baseline instruction set (slow, but the same lane, transposition and
 * padding logic, so the unit test proves it on any CPU).  Only Maj differs:
 * an intrinsic in the AVX-512 build, which the compiler would not fuse.
 */

typedef uint32_t e2v_v16 __attribute__((vector_size(64)));
typedef uint8_t e2v_b64 __attribute__((vector_size(64)));

#define E2V_INLINE static inline __attribute__((always_inline))

/* written for scalars and vectors alike: the compiler makes rotates and ternary logic of them */
#define E2V_ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define E2V_BSIG0(x) (E2V_ROR(x, 2) ^ E2V_ROR(x, 13) ^ E2V_ROR(x, 22))
#define E2V_BSIG1(x) (E2V_ROR(x, 6) ^ E2V_ROR(x, 11) ^ E2V_ROR(x, 25))
#define E2V_SSIG0(x) (E2V_ROR(x, 7) ^ E2V_ROR(x, 18) ^ ((x) >> 3))
#define E2V_SSIG1(x) (E2V_ROR(x, 17) ^ E2V_ROR(x, 19) ^ ((x) >> 10))
#define E2V_CH(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define E2V_MAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

/* one round, Maj computed by @MAJ; the caller renames the variables instead of moving them */
#define E2V_RND(a, b, c, d, e, f, g, h, kw, MAJ)                                                   \
	do {                                                                                       \
		__typeof__(h) t1_ = (h) + E2V_BSIG1(e) + E2V_CH(e, f, g) + (kw);                   \
		(d) += t1_;                                                                        \
		(h) = t1_ + E2V_BSIG0(a) + MAJ(a, b, c);                                           \
	} while (0)

/* W[t] in place of W[t-16], the sixteen last words kept in a ring */
#define E2V_SCHED(w, j)                                                                            \
	((w)[j] +=                                                                                 \
	 E2V_SSIG1((w)[((j) + 14) & 15]) + (w)[((j) + 9) & 15] + E2V_SSIG0((w)[((j) + 1) & 15]))

/* eight rounds from round t + j, @KW(j) the round's K + W */
#define E2V_RND8(KW, MAJ, j)                                                                       \
	do {                                                                                       \
		E2V_RND(a, b, c, d, e, f, g, h, KW((j) + 0), MAJ);                                 \
		E2V_RND(h, a, b, c, d, e, f, g, KW((j) + 1), MAJ);                                 \
		E2V_RND(g, h, a, b, c, d, e, f, KW((j) + 2), MAJ);                                 \
		E2V_RND(f, g, h, a, b, c, d, e, KW((j) + 3), MAJ);                                 \
		E2V_RND(e, f, g, h, a, b, c, d, KW((j) + 4), MAJ);                                 \
		E2V_RND(d, e, f, g, h, a, b, c, KW((j) + 5), MAJ);                                 \
		E2V_RND(c, d, e, f, g, h, a, b, KW((j) + 6), MAJ);                                 \
		E2V_RND(b, c, d, e, f, g, h, a, KW((j) + 7), MAJ);                                 \
	} while (0)

/* K + W of a data block: the schedule word made just before the round needs it */
#define E2V_KW_DATA(j) (t ? E2V_SCHED(w, j) : w[j]) + k[t + (j)]
/* K + W of the padding block, the same in every lane, computed once */
#define E2V_KW_PAD(j) kw[t + (j)]

/*
 * The last block of every message here: the input is whole 64-byte blocks,
 * so it is 0x80, zeros and the length in bits.  Its schedule depends on the
 * length alone, so it is computed once, in scalars, with K added, and kept
 * for the thread's next call: all the calls of a tree have one length.
 */
static const uint32_t *e2v_x16_pad_kw(uint64_t total)
{
	static __thread uint32_t kw[64];
	static __thread uint64_t kw_total;
	static __thread int kw_valid;
	uint32_t w[16] = { 0x80000000u };

	if (kw_valid && kw_total == total)
		return kw;
	kw_valid = 1;
	kw_total = total;

	w[14] = (uint32_t)((total * 8) >> 32);
	w[15] = (uint32_t)(total * 8);
	for (int t = 0; t < 64; t++) {
		int j = t & 15;

		if (t >= 16)
			E2V_SCHED(w, j);
		kw[t] = w[j] + e2v_sha256_k[t];
	}
	return kw;
}

/* one scalar compression, for the salted state that all lanes share */
static void e2v_x16_compress1(uint32_t s[8], const uint8_t *p)
{
	uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
	const uint32_t *k = e2v_sha256_k;
	uint32_t w[16];

	for (int j = 0; j < 16; j++)
		w[j] = (uint32_t)p[4 * j] << 24 | (uint32_t)p[4 * j + 1] << 16 |
		       (uint32_t)p[4 * j + 2] << 8 | p[4 * j + 3];
	for (int t = 0; t < 64; t += 16) {
		E2V_RND8(E2V_KW_DATA, E2V_MAJ, 0);
		E2V_RND8(E2V_KW_DATA, E2V_MAJ, 8);
	}
	s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
}

void e2v_sha256_x16_init(struct e2v_sha256_mid *mid, const uint8_t *first_block)
{
	memcpy(mid->h, e2v_sha256_iv, sizeof(mid->h));
	mid->prefix = 0;
	if (first_block) {
		e2v_x16_compress1(mid->h, first_block);
		mid->prefix = 64;
	}
}

#define E2V_BSWAP_IDX                                                                              \
	3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 27,  \
		26, 25, 24, 31, 30, 29, 28, 35, 34, 33, 32, 39, 38, 37, 36, 43, 42, 41, 40, 47,    \
		46, 45, 44, 51, 50, 49, 48, 55, 54, 53, 52, 59, 58, 57, 56, 63, 62, 61, 60

/*
 * A 16x16 transposition in four steps; the step of distance d pairs rows i
 * and i + d and swaps bit d of the row number with bit d of the column's.
 */
#define E2V_T8L 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define E2V_T8H 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define E2V_T4L 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define E2V_T4H 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define E2V_T2L 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define E2V_T2H 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define E2V_T1L 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define E2V_T1H 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31

#define E2V_TSTEP(r, d, lo, hi)                                                                    \
	do {                                                                                       \
		_Pragma("GCC unroll 16") for (int i_ = 0; i_ < 16; i_++) if (!(i_ & (d)))          \
		{                                                                                  \
			e2v_v16 x_ = (r)[i_], y_ = (r)[i_ + (d)];                                  \
			(r)[i_] = __builtin_shufflevector(x_, y_, lo);                             \
			(r)[i_ + (d)] = __builtin_shufflevector(x_, y_, hi);                       \
		}                                                                                  \
	} while (0)

/* word j of every message's block at offset @off into lane i of w[j], as big-endian numbers */
E2V_INLINE void e2v_x16_load(e2v_v16 w[16], const uint8_t *const p[16], size_t off)
{
	_Pragma("GCC unroll 16") for (int i = 0; i < 16; i++)
	{
		e2v_b64 b;

		memcpy(&b, p[i] + off, 64); /* unaligned */
		w[i] = (e2v_v16)__builtin_shufflevector(b, b, E2V_BSWAP_IDX);
	}
	E2V_TSTEP(w, 8, E2V_T8L, E2V_T8H);
	E2V_TSTEP(w, 4, E2V_T4L, E2V_T4H);
	E2V_TSTEP(w, 2, E2V_T2L, E2V_T2H);
	E2V_TSTEP(w, 1, E2V_T1L, E2V_T1H);
}

/* the sixteen lanes' state @s through one block's rounds, @KW(j) their K + W, @MAJ their Maj */
#define E2V_X16_ROUNDS(KW, MAJ)                                                                    \
	do {                                                                                       \
		e2v_v16 a = s[0], b = s[1], c = s[2], d = s[3];                                    \
		e2v_v16 e = s[4], f = s[5], g = s[6], h = s[7];                                    \
                                                                                                   \
		_Pragma("GCC unroll 4") for (int t = 0; t < 64; t += 16)                           \
		{                                                                                  \
			E2V_RND8(KW, MAJ, 0);                                                      \
			E2V_RND8(KW, MAJ, 8);                                                      \
		}                                                                                  \
		s[0] += a, s[1] += b, s[2] += c, s[3] += d;                                        \
		s[4] += e, s[5] += f, s[6] += g, s[7] += h;                                        \
	} while (0)

/*
 * The body of e2v_x16_run_*(): the state @s through the @len bytes of the
 * sixteen messages @p and the padding block (K + W @kw), Maj computed by
 * @MAJ.  One function a call, not a block: the compiler may not inline a
 * block's rounds twice, and a call for each block costs the state's trip
 * through memory.
 */
#define E2V_X16_RUN(MAJ)                                                                           \
	do {                                                                                       \
		const uint32_t *k = e2v_sha256_k;                                                  \
		e2v_v16 w[16];                                                                     \
                                                                                                   \
		/* K a broadcast operand of the add, not a constant made on the vector ports */    \
		__asm__("" : "+r"(k));                                                             \
		for (size_t off = 0; off < len; off += 64) {                                       \
			e2v_x16_load(w, p, off);                                                   \
			E2V_X16_ROUNDS(E2V_KW_DATA, MAJ);                                          \
		}                                                                                  \
		E2V_X16_ROUNDS(E2V_KW_PAD, MAJ);                                                   \
	} while (0)

static void e2v_x16_run_generic(e2v_v16 s[8], const uint8_t *const p[16], size_t len,
				const uint32_t *kw)
{
	E2V_X16_RUN(E2V_MAJ);
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/*
 * Maj as the one vpternlogd it is (0xe8: the majority of the three bits):
 * GCC 12 makes two instructions of each plain expression of it tried.
 */
#define E2V_MAJ_AVX512(a, b, c)                                                                    \
	((e2v_v16)_mm512_ternarylogic_epi32((__m512i)(a), (__m512i)(b), (__m512i)(c), 0xe8))

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
e2v_x16_run_avx512(e2v_v16 s[8], const uint8_t *const p[16], size_t len, const uint32_t *kw)
{
	E2V_X16_RUN(E2V_MAJ_AVX512);
}
#else
#define e2v_x16_run_avx512 e2v_x16_run_generic
#endif

/* @avx512: compiled for AVX-512, where e2v_x16_run_avx512() may run */
E2V_INLINE void e2v_x16_impl(const struct e2v_sha256_mid *mid, const void *const data[],
			     unsigned int n, size_t len, uint8_t *const out[], int avx512)
{
	uint32_t words[8][16] __attribute__((aligned(64)));
	const uint8_t *p[16];
	const uint32_t *kw = e2v_x16_pad_kw(mid->prefix + len);
	e2v_v16 s[8];

	/* idle lanes hash a copy of the first message; their digests are dropped */
	for (unsigned int i = 0; i < 16; i++)
		p[i] = data[i < n ? i : 0];
	for (int j = 0; j < 8; j++)
		s[j] = (e2v_v16){ 0 } + mid->h[j];
	if (avx512)
		e2v_x16_run_avx512(s, p, len, kw);
	else
		e2v_x16_run_generic(s, p, len, kw);
	/* cppcheck takes e2v_v16 for one uint32_t: s is 8 vectors of 64 bytes, as large as words */
	// cppcheck-suppress bufferAccessOutOfBounds
	memcpy(words, s, sizeof(words));
	for (unsigned int i = 0; i < n; i++)
		for (int j = 0; j < 8; j++) {
			uint32_t v = words[j][i];

			out[i][4 * j] = v >> 24;
			out[i][4 * j + 1] = v >> 16;
			out[i][4 * j + 2] = v >> 8;
			out[i][4 * j + 3] = v;
		}
}

void e2v_sha256_x16_generic(const struct e2v_sha256_mid *mid, const void *const data[],
			    unsigned int n, size_t len, uint8_t *const out[])
{
	e2v_x16_impl(mid, data, n, len, out, 0);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

int e2v_sha256_x16_usable(void)
{
	static int usable = -1;
	unsigned int a, b, c, d, lo, hi;

	if (usable >= 0)
		return usable;
	usable = 0;
	/* leaf 1: ECX bit 27 OSXSAVE; leaf 7: EBX bits 16 AVX512F, 30 AVX512BW, 31 AVX512VL */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
		return usable;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || (b & 0xc0010000u) != 0xc0010000u)
		return usable;
	/* XCR0: the OS saves SSE, AVX, the opmask and both halves of the ZMM state */
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	usable = (lo & 0xe6) == 0xe6;
	return usable;
}

__attribute__((target("avx512f,avx512bw,avx512vl"))) void
e2v_sha256_x16(const struct e2v_sha256_mid *mid, const void *const data[], unsigned int n,
	       size_t len, uint8_t *const out[])
{
	e2v_x16_impl(mid, data, n, len, out, 1);
}

#else /* no AVX-512 on this architecture */

int e2v_sha256_x16_usable(void)
{
	return 0;
}

void e2v_sha256_x16(const struct e2v_sha256_mid *mid, const void *const data[], unsigned int n,
		    size_t len, uint8_t *const out[])
{
	e2v_x16_impl(mid, data, n, len, out, 0);
}
#endif
