// SPDX-License-Identifier: GPL-2.0-or-later
/* sha512_x8.c - SHA-512 of up to eight equal-length messages at once, one per 64-bit vector lane */
#include "config.h"

#include <string.h>

#include "sha512_x8.h"

/*
 * The SHA-512 twin of sha256_x16.c (which says why): x86 has no SHA-512
 * instructions before Arrow Lake, and OpenSSL's one stream makes about
 * 0.6 GB/s a core on Ice Lake; eight messages side by side in AVX-512 (vprorq,
 * vpternlogq) go several times faster.  Compiled for AVX-512 and again
 * portable, for the unit test.
 */

typedef uint64_t e2v_v8 __attribute__((vector_size(64)));
typedef uint8_t e2v_b64x __attribute__((vector_size(64)));

#define E2V_INLINE static inline __attribute__((always_inline))

static const uint64_t e2v_x8_iv[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
	0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

/* the first 64 bits of the fractional parts of the cube roots of the first 80 primes */
static const uint64_t e2v_x8_k[80] = {
	0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
	0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
	0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
	0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
	0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
	0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
	0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
	0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
	0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
	0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
	0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
	0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
	0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
	0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
	0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
	0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
	0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
	0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
	0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
	0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

/* for scalars and vectors alike */
#define E2V_ROR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
#define E2V_BSIG0_64(x) (E2V_ROR64(x, 28) ^ E2V_ROR64(x, 34) ^ E2V_ROR64(x, 39))
#define E2V_BSIG1_64(x) (E2V_ROR64(x, 14) ^ E2V_ROR64(x, 18) ^ E2V_ROR64(x, 41))
#define E2V_SSIG0_64(x) (E2V_ROR64(x, 1) ^ E2V_ROR64(x, 8) ^ ((x) >> 7))
#define E2V_SSIG1_64(x) (E2V_ROR64(x, 19) ^ E2V_ROR64(x, 61) ^ ((x) >> 6))
#define E2V_CH64(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define E2V_MAJ64(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

#define E2V_RND64(a, b, c, d, e, f, g, h, kw, MAJ)                                                 \
	do {                                                                                       \
		__typeof__(h) t1_ = (h) + E2V_BSIG1_64(e) + E2V_CH64(e, f, g) + (kw);              \
		(d) += t1_;                                                                        \
		(h) = t1_ + E2V_BSIG0_64(a) + MAJ(a, b, c);                                        \
	} while (0)

#define E2V_SCHED64(w, j)                                                                          \
	((w)[j] += E2V_SSIG1_64((w)[((j) + 14) & 15]) + (w)[((j) + 9) & 15] +                      \
		   E2V_SSIG0_64((w)[((j) + 1) & 15]))

#define E2V_RND64X8(KW, MAJ, j)                                                                    \
	do {                                                                                       \
		E2V_RND64(a, b, c, d, e, f, g, h, KW((j) + 0), MAJ);                               \
		E2V_RND64(h, a, b, c, d, e, f, g, KW((j) + 1), MAJ);                               \
		E2V_RND64(g, h, a, b, c, d, e, f, KW((j) + 2), MAJ);                               \
		E2V_RND64(f, g, h, a, b, c, d, e, KW((j) + 3), MAJ);                               \
		E2V_RND64(e, f, g, h, a, b, c, d, KW((j) + 4), MAJ);                               \
		E2V_RND64(d, e, f, g, h, a, b, c, KW((j) + 5), MAJ);                               \
		E2V_RND64(c, d, e, f, g, h, a, b, KW((j) + 6), MAJ);                               \
		E2V_RND64(b, c, d, e, f, g, h, a, KW((j) + 7), MAJ);                               \
	} while (0)

#define E2V_KW64_DATA(j) (t ? E2V_SCHED64(w, j) : w[j]) + k[t + (j)]
#define E2V_KW64_PAD(j) kw[t + (j)]

/*
 * The padding block's schedule with K added: 0x80, zeros, the length in bits
 * (128-bit); kept for the thread's next call, as in sha256_x16.c
 */
static const uint64_t *e2v_x8_pad_kw(uint64_t total)
{
	static __thread uint64_t kw[80];
	static __thread uint64_t kw_total;
	static __thread int kw_valid;
	uint64_t w[16] = { 0x8000000000000000ULL };

	if (kw_valid && kw_total == total)
		return kw;
	kw_valid = 1;
	kw_total = total;

	w[14] = total >> 61;
	w[15] = total * 8;
	for (int t = 0; t < 80; t++) {
		int j = t & 15;

		if (t >= 16)
			E2V_SCHED64(w, j);
		kw[t] = w[j] + e2v_x8_k[t];
	}
	return kw;
}

static void e2v_x8_compress1(uint64_t s[8], const uint8_t *p)
{
	uint64_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
	const uint64_t *k = e2v_x8_k;
	uint64_t w[16];

	for (int j = 0; j < 16; j++) {
		w[j] = 0;
		for (int i = 0; i < 8; i++)
			w[j] = w[j] << 8 | p[8 * j + i];
	}
	for (int t = 0; t < 80; t += 16) {
		E2V_RND64X8(E2V_KW64_DATA, E2V_MAJ64, 0);
		E2V_RND64X8(E2V_KW64_DATA, E2V_MAJ64, 8);
	}
	s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
}

void e2v_sha512_x8_init(struct e2v_sha512_mid *mid, const uint8_t *first_block)
{
	memcpy(mid->h, e2v_x8_iv, sizeof(mid->h));
	mid->prefix = 0;
	if (first_block) {
		e2v_x8_compress1(mid->h, first_block);
		mid->prefix = 128;
	}
}

#define E2V_BSWAP64_IDX                                                                            \
	7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 23, 22, 21, 20, 19, 18, 17, 16, 31,  \
		30, 29, 28, 27, 26, 25, 24, 39, 38, 37, 36, 35, 34, 33, 32, 47, 46, 45, 44, 43,    \
		42, 41, 40, 55, 54, 53, 52, 51, 50, 49, 48, 63, 62, 61, 60, 59, 58, 57, 56

/* an 8x8 transposition of 64-bit words in three steps, as in sha256_x16.c */
#define E2V_Q4L 0, 1, 2, 3, 8, 9, 10, 11
#define E2V_Q4H 4, 5, 6, 7, 12, 13, 14, 15
#define E2V_Q2L 0, 1, 8, 9, 4, 5, 12, 13
#define E2V_Q2H 2, 3, 10, 11, 6, 7, 14, 15
#define E2V_Q1L 0, 8, 2, 10, 4, 12, 6, 14
#define E2V_Q1H 1, 9, 3, 11, 5, 13, 7, 15

#define E2V_QSTEP(r, d, lo, hi)                                                                    \
	do {                                                                                       \
		_Pragma("GCC unroll 8") for (int i_ = 0; i_ < 8; i_++) if (!(i_ & (d)))            \
		{                                                                                  \
			e2v_v8 x_ = (r)[i_], y_ = (r)[i_ + (d)];                                   \
			(r)[i_] = __builtin_shufflevector(x_, y_, lo);                             \
			(r)[i_ + (d)] = __builtin_shufflevector(x_, y_, hi);                       \
		}                                                                                  \
	} while (0)

/* words 8h..8h+7 of every message's block at @off into w[8h..8h+7], lane i message i */
E2V_INLINE void e2v_x8_load(e2v_v8 w[16], const uint8_t *const p[8], size_t off)
{
	_Pragma("GCC unroll 2") for (int half = 0; half < 2; half++)
	{
		e2v_v8 *r = w + 8 * half;

		_Pragma("GCC unroll 8") for (int i = 0; i < 8; i++)
		{
			e2v_b64x b;

			memcpy(&b, p[i] + off + 64 * half, 64); /* unaligned */
			r[i] = (e2v_v8)__builtin_shufflevector(b, b, E2V_BSWAP64_IDX);
		}
		E2V_QSTEP(r, 4, E2V_Q4L, E2V_Q4H);
		E2V_QSTEP(r, 2, E2V_Q2L, E2V_Q2H);
		E2V_QSTEP(r, 1, E2V_Q1L, E2V_Q1H);
	}
}

/* the eight lanes' state @s through one block's rounds, as E2V_X16_ROUNDS() in sha256_x16.c */
#define E2V_X8_ROUNDS(KW, MAJ)                                                                     \
	do {                                                                                       \
		e2v_v8 a = s[0], b = s[1], c = s[2], d = s[3];                                     \
		e2v_v8 e = s[4], f = s[5], g = s[6], h = s[7];                                     \
                                                                                                   \
		_Pragma("GCC unroll 5") for (int t = 0; t < 80; t += 16)                           \
		{                                                                                  \
			E2V_RND64X8(KW, MAJ, 0);                                                   \
			E2V_RND64X8(KW, MAJ, 8);                                                   \
		}                                                                                  \
		s[0] += a, s[1] += b, s[2] += c, s[3] += d;                                        \
		s[4] += e, s[5] += f, s[6] += g, s[7] += h;                                        \
	} while (0)

/* the body of e2v_x8_run_*(), as E2V_X16_RUN() in sha256_x16.c */
#define E2V_X8_RUN(MAJ)                                                                            \
	do {                                                                                       \
		const uint64_t *k = e2v_x8_k;                                                      \
		e2v_v8 w[16];                                                                      \
                                                                                                   \
		/* K a broadcast operand, not a constant */                                        \
		__asm__("" : "+r"(k));                                                             \
		for (size_t off = 0; off < len; off += 128) {                                      \
			e2v_x8_load(w, p, off);                                                    \
			E2V_X8_ROUNDS(E2V_KW64_DATA, MAJ);                                         \
		}                                                                                  \
		E2V_X8_ROUNDS(E2V_KW64_PAD, MAJ);                                                  \
	} while (0)

static void e2v_x8_run_generic(e2v_v8 s[8], const uint8_t *const p[8], size_t len,
			       const uint64_t *kw)
{
	E2V_X8_RUN(E2V_MAJ64);
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* Maj in one vpternlogq, as E2V_MAJ_AVX512 in sha256_x16.c */
#define E2V_MAJ64_AVX512(a, b, c)                                                                  \
	((e2v_v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), 0xe8))

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
e2v_x8_run_avx512(e2v_v8 s[8], const uint8_t *const p[8], size_t len, const uint64_t *kw)
{
	E2V_X8_RUN(E2V_MAJ64_AVX512);
}
#else
#define e2v_x8_run_avx512 e2v_x8_run_generic
#endif

/* @avx512: compiled for AVX-512, where e2v_x8_run_avx512() may run */
E2V_INLINE void e2v_x8_impl(const struct e2v_sha512_mid *mid, const void *const data[],
			    unsigned int n, size_t len, uint8_t *const out[], int avx512)
{
	uint64_t words[8][8] __attribute__((aligned(64)));
	const uint8_t *p[8];
	const uint64_t *kw = e2v_x8_pad_kw(mid->prefix + len);
	e2v_v8 s[8];

	/* idle lanes hash a copy of the first message; their digests are dropped */
	for (unsigned int i = 0; i < 8; i++)
		p[i] = data[i < n ? i : 0];
	for (int j = 0; j < 8; j++)
		s[j] = (e2v_v8){ 0 } + mid->h[j];
	if (avx512)
		e2v_x8_run_avx512(s, p, len, kw);
	else
		e2v_x8_run_generic(s, p, len, kw);
	/* cppcheck takes e2v_v8 for one uint64_t: s is 8 vectors of 64 bytes, as large as words */
	// cppcheck-suppress bufferAccessOutOfBounds
	memcpy(words, s, sizeof(words));
	for (unsigned int i = 0; i < n; i++)
		for (int j = 0; j < 8; j++)
			for (int k = 0; k < 8; k++)
				out[i][8 * j + k] = words[j][i] >> (56 - 8 * k);
}

void e2v_sha512_x8_generic(const struct e2v_sha512_mid *mid, const void *const data[],
			   unsigned int n, size_t len, uint8_t *const out[])
{
	e2v_x8_impl(mid, data, n, len, out, 0);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
e2v_sha512_x8(const struct e2v_sha512_mid *mid, const void *const data[], unsigned int n,
	      size_t len, uint8_t *const out[])
{
	e2v_x8_impl(mid, data, n, len, out, 1);
}
#else
void e2v_sha512_x8(const struct e2v_sha512_mid *mid, const void *const data[], unsigned int n,
		   size_t len, uint8_t *const out[])
{
	e2v_x8_impl(mid, data, n, len, out, 0);
}
#endif
