// SPDX-License-Identifier: GPL-2.0-or-later
/* sha256_x2.c - SHA-256 of one or two equal-length messages at once with the x86 SHA extensions */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sha256_x2.h"

/*
 * Why this file exists: a Merkle level is many blocks of one length that all
 * start from the same salted state.  One SHA-256 stream leaves the SHA unit
 * idle while each round waits for the previous one; two independent streams
 * interleaved instruction by instruction fill those gaps, nearly doubling the
 * throughput per core.  OpenSSL has no multi-buffer SHA-256 interface, so the
 * rounds are written here with compiler intrinsics, selected at run time.
 */

const uint32_t e2v_sha256_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
const uint32_t e2v_sha256_k[64] __attribute__((aligned(16))) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

#define E2V_TARGET __attribute__((target("sha,sse4.1")))

int e2v_sha256_ni_usable(void)
{
	static int usable = -1;
	unsigned int a, b, c, d;

	if (usable >= 0)
		return usable;
	usable = 0;
	/* leaf 1: ECX bit 9 SSSE3, bit 19 SSE4.1; leaf 7: EBX bit 29 SHA */
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19)) &&
	    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)))
		usable = 1;
	return usable;
}

/*
 * The SHA-NI round instruction keeps the eight working variables as two
 * vectors, ABEF and CDGH (highest lane first); a lane pair carries two
 * independent streams through the same steps.
 */
struct e2v_lane {
	__m128i abef, cdgh;
	__m128i w0, w1, w2, w3; /* the last sixteen schedule words, four per vector */
};

E2V_TARGET static inline void e2v_lane_from_words(struct e2v_lane *l, const uint32_t h[8])
{
	__m128i dcba = _mm_loadu_si128((const __m128i *)h);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)(h + 4));
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);

	l->abef = _mm_alignr_epi8(cdab, efgh, 8);
	l->cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
}

/* big-endian bytes of the eight state words: the digest */
E2V_TARGET static inline void e2v_lane_digest(const struct e2v_lane *l, uint8_t *out)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i feba = _mm_shuffle_epi32(l->abef, 0x1b);
	__m128i dchg = _mm_shuffle_epi32(l->cdgh, 0xb1);
	__m128i dcba = _mm_blend_epi16(feba, dchg, 0xf0);
	__m128i hgfe = _mm_alignr_epi8(dchg, feba, 8);

	_mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(dcba, bswap));
	_mm_storeu_si128((__m128i *)(out + 16), _mm_shuffle_epi8(hgfe, bswap));
}

/* four rounds with schedule words @w (already loaded or computed) */
#define E2V_ROUNDS4(L, w, i)                                                                       \
	do {                                                                                       \
		__m128i m_ = _mm_add_epi32(w, _mm_load_si128((const __m128i *)&e2v_sha256_k[i]));  \
		(L).cdgh = _mm_sha256rnds2_epu32((L).cdgh, (L).abef, m_);                          \
		(L).abef = _mm_sha256rnds2_epu32((L).abef, (L).cdgh, _mm_shuffle_epi32(m_, 0x0e)); \
	} while (0)

/* the next four schedule words into @a, which held the oldest four: W[t..t+3] from W[t-16..t-1] */
#define E2V_SCHEDULE(a, b, c, d)                                                                   \
	((a) = _mm_sha256msg2_epu32(                                                               \
		 _mm_add_epi32(_mm_sha256msg1_epu32(a, b), _mm_alignr_epi8(d, c, 4)), d))

/* one group of four rounds for both lanes, computing fresh schedule words first */
#define E2V_GROUP2(i, a, b, c, d)                                                                  \
	do {                                                                                       \
		E2V_SCHEDULE(x.a, x.b, x.c, x.d);                                                  \
		E2V_SCHEDULE(y.a, y.b, y.c, y.d);                                                  \
		E2V_ROUNDS4(x, x.a, i);                                                            \
		E2V_ROUNDS4(y, y.a, i);                                                            \
	} while (0)

#define E2V_GROUP1(i, a, b, c, d)                                                                  \
	do {                                                                                       \
		E2V_SCHEDULE(x.a, x.b, x.c, x.d);                                                  \
		E2V_ROUNDS4(x, x.a, i);                                                            \
	} while (0)

E2V_TARGET static inline __m128i e2v_load_words(const uint8_t *p)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

	return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
}

/* the 48 rounds after the first 16, which read no input: @G is E2V_GROUP1 or E2V_GROUP2 */
#define E2V_LAST48(G)                                                                              \
	do {                                                                                       \
		G(16, w0, w1, w2, w3);                                                             \
		G(20, w1, w2, w3, w0);                                                             \
		G(24, w2, w3, w0, w1);                                                             \
		G(28, w3, w0, w1, w2);                                                             \
		G(32, w0, w1, w2, w3);                                                             \
		G(36, w1, w2, w3, w0);                                                             \
		G(40, w2, w3, w0, w1);                                                             \
		G(44, w3, w0, w1, w2);                                                             \
		G(48, w0, w1, w2, w3);                                                             \
		G(52, w1, w2, w3, w0);                                                             \
		G(56, w2, w3, w0, w1);                                                             \
		G(60, w3, w0, w1, w2);                                                             \
	} while (0)

/*
 * The padding block that ends every message here: the input is whole
 * 64-byte blocks, so it is 0x80, zeros and the length in bits, big-endian.
 */
static void e2v_pad_block(uint64_t total, uint8_t pad[64])
{
	uint64_t bits = total * 8;

	memset(pad, 0, 64);
	pad[0] = 0x80;
	for (int i = 0; i < 8; i++)
		pad[63 - i] = bits >> (8 * i);
}

/* one 64-byte block into the state of lane @l: the single-stream path */
E2V_TARGET static inline void e2v_lane_block(struct e2v_lane *l, const uint8_t *p)
{
	struct e2v_lane x = *l;

	x.w0 = e2v_load_words(p);
	x.w1 = e2v_load_words(p + 16);
	x.w2 = e2v_load_words(p + 32);
	x.w3 = e2v_load_words(p + 48);
	E2V_ROUNDS4(x, x.w0, 0);
	E2V_ROUNDS4(x, x.w1, 4);
	E2V_ROUNDS4(x, x.w2, 8);
	E2V_ROUNDS4(x, x.w3, 12);
	E2V_LAST48(E2V_GROUP1);
	l->abef = _mm_add_epi32(x.abef, l->abef);
	l->cdgh = _mm_add_epi32(x.cdgh, l->cdgh);
}

E2V_TARGET static void e2v_sha256_ni_x1_impl(const struct e2v_sha256_mid *mid, const uint8_t *data,
					     size_t len, uint8_t *out)
{
	uint8_t pad[64] __attribute__((aligned(16)));
	struct e2v_lane x;
	size_t left = len + 64;

	e2v_pad_block(mid->prefix + len, pad);
	e2v_lane_from_words(&x, mid->h);
	for (; left; left -= 64, data += 64)
		e2v_lane_block(&x, left > 64 ? data : pad);
	e2v_lane_digest(&x, out);
}

E2V_TARGET static void e2v_sha256_ni_x2_impl(const struct e2v_sha256_mid *mid, const uint8_t *d1,
					     const uint8_t *d2, size_t len, uint8_t *out1,
					     uint8_t *out2)
{
	/*
	 * Two lanes need sixteen vectors besides the round input: the state at
	 * the start of each block goes to memory, where only its final addition
	 * reads it, so the register allocator spills nothing inside the rounds.
	 */
	volatile __m128i saved[4];
	uint8_t pad[64] __attribute__((aligned(16)));
	struct e2v_lane x, y;
	size_t left = len + 64;

	e2v_pad_block(mid->prefix + len, pad);
	e2v_lane_from_words(&x, mid->h);
	y = x;
	for (; left; left -= 64) {
		const uint8_t *p1 = left > 64 ? d1 : pad, *p2 = left > 64 ? d2 : pad;

		saved[0] = x.abef;
		saved[1] = x.cdgh;
		saved[2] = y.abef;
		saved[3] = y.cdgh;
		x.w0 = e2v_load_words(p1);
		y.w0 = e2v_load_words(p2);
		E2V_ROUNDS4(x, x.w0, 0);
		E2V_ROUNDS4(y, y.w0, 0);
		x.w1 = e2v_load_words(p1 + 16);
		y.w1 = e2v_load_words(p2 + 16);
		E2V_ROUNDS4(x, x.w1, 4);
		E2V_ROUNDS4(y, y.w1, 4);
		x.w2 = e2v_load_words(p1 + 32);
		y.w2 = e2v_load_words(p2 + 32);
		E2V_ROUNDS4(x, x.w2, 8);
		E2V_ROUNDS4(y, y.w2, 8);
		x.w3 = e2v_load_words(p1 + 48);
		y.w3 = e2v_load_words(p2 + 48);
		E2V_ROUNDS4(x, x.w3, 12);
		E2V_ROUNDS4(y, y.w3, 12);
		E2V_LAST48(E2V_GROUP2);
		x.abef = _mm_add_epi32(x.abef, saved[0]);
		x.cdgh = _mm_add_epi32(x.cdgh, saved[1]);
		y.abef = _mm_add_epi32(y.abef, saved[2]);
		y.cdgh = _mm_add_epi32(y.cdgh, saved[3]);
		d1 += 64;
		d2 += 64;
	}
	e2v_lane_digest(&x, out1);
	e2v_lane_digest(&y, out2);
}

/* one compression of a 64-byte block into the state words @h */
E2V_TARGET static void e2v_sha256_ni_compress(uint32_t h[8], const uint8_t *block)
{
	struct e2v_lane x;
	__m128i feba, dchg;

	e2v_lane_from_words(&x, h);
	e2v_lane_block(&x, block);
	feba = _mm_shuffle_epi32(x.abef, 0x1b);
	dchg = _mm_shuffle_epi32(x.cdgh, 0xb1);
	_mm_storeu_si128((__m128i *)h, _mm_blend_epi16(feba, dchg, 0xf0));
	_mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

void e2v_sha256_ni_init(struct e2v_sha256_mid *mid, const uint8_t *first_block)
{
	memcpy(mid->h, e2v_sha256_iv, sizeof(mid->h));
	mid->prefix = 0;
	if (first_block) {
		e2v_sha256_ni_compress(mid->h, first_block);
		mid->prefix = 64;
	}
}

void e2v_sha256_ni_x1(const struct e2v_sha256_mid *mid, const void *data, size_t len, uint8_t *out)
{
	e2v_sha256_ni_x1_impl(mid, data, len, out);
}

void e2v_sha256_ni_x2(const struct e2v_sha256_mid *mid, const void *d1, const void *d2, size_t len,
		      uint8_t *out1, uint8_t *out2)
{
	e2v_sha256_ni_x2_impl(mid, d1, d2, len, out1, out2);
}

#else /* no SHA extensions on this architecture: callers use OpenSSL */

int e2v_sha256_ni_usable(void)
{
	return 0;
}

void e2v_sha256_ni_init(struct e2v_sha256_mid *mid, const uint8_t *first_block)
{
	(void)first_block;
	memcpy(mid->h, e2v_sha256_iv, sizeof(mid->h));
	mid->prefix = 0;
}

void e2v_sha256_ni_x1(const struct e2v_sha256_mid *mid, const void *data, size_t len, uint8_t *out)
{
	(void)mid, (void)data, (void)len, (void)out;
	abort();
}

void e2v_sha256_ni_x2(const struct e2v_sha256_mid *mid, const void *d1, const void *d2, size_t len,
		      uint8_t *out1, uint8_t *out2)
{
	(void)mid, (void)d1, (void)d2, (void)len, (void)out1, (void)out2;
	abort();
}
#endif
