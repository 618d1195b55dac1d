// SPDX-License-Identifier: GPL-2.0-or-later
/* check_merkle.c - unit tests of lib/core/merkle.c against fsverity-utils' digests and trees */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "unit.h"

/*
 * Test data: byte i of a file is (i * 31 + (i >> 12)) & 255, made for
 * fsverity-utils v1.5 with
 *   gen() { python3 -c "import sys; n=int(sys.argv[1]); \
 *     sys.stdout.buffer.write(bytes((i*31+(i>>12))&255 for i in range(n)))" $1; }
 *   gen N > f; fsverity digest --compact [opts] --out-merkle-tree=t f; sha256sum t
 */
struct vector {
	uint64_t size;
	unsigned int alg, block_size;
	const char *salt_hex;
	const char *digest;
	const char *tree_sha256; /* NULL: no tree (empty output file) */
	uint64_t tree_size;
	int zeros; /* the file is all zero bytes (head -c N /dev/zero) */
};

static const struct vector vectors[] = {
	{ 0, 1, 4096, "", "3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95", NULL,
	  0, 0 },
	{ 1, 1, 4096, "", "b803429503d95915829b29fdbc8bbad142f3abfd11b1cadf5526582e685c0551", NULL,
	  0, 0 },
	{ 4096, 1, 4096, "", "fd2da0056dd5efbed78468c371717b57e71c7189bf2698a96bdefc4b14c875f3",
	  NULL, 0, 0 },
	{ 4097, 1, 4096, "", "55948f6041d8f87d9bb200776300310673bc5afd841adcea72e7904fb34125ae",
	  "bc6e4cfdac1ba7a477019105c8e06a401c9b69d07e17da9203b86ede5c8cdd48", 4096, 0 },
	{ 524289, 1, 4096, "", "5fdcfe47a593c188131dd7281facf89d98d9633b36a06f1e2761b6ff5ca85701",
	  "b839413098a2310ddb49202c8748014d8d2bcc88fa34066e8b4b062193d5463b", 3 * 4096, 0 },
	/* --block-size=1024: three levels */
	{ 1048577, 1, 1024, "", "e48c2451940bcd5430efa1f67eb8a52e5b30bce7a8340c3d4367879b712f376f",
	  "95f585422aae92cd7d6185aaf60922814479f21eafa00902c2c8bbef06967d8c", 36864, 0 },
	/* --hash-alg=sha512 --salt=deadbeef */
	{ 524289, 2, 4096, "deadbeef",
	  "fb3f1adf6d9173e9f42cd8b90ce74f61b8c1dda0ef9aca00d0de5d4de0fc084c"
	  "ec64e4d8558e2d46928a1e1c4603ba924787c21f940248b1af4d92b35013be3c",
	  "26f0c9b66dec2960c3360f69738207e1a30f9f63174cdec71d686122d4ee4045", 16384, 0 },
	/* head -c 300000 /dev/zero > z; fsverity digest [opts] --out-merkle-tree=t z */
	{ 300000, 1, 4096, "", "27c818203a382d881056b0fed5fe65ccaf107c457525307d8c5b74ee795a26b9",
	  "b09880fee1e6bca1dc52c654a3ded032b1b60ef6499d08cdb6fb6604a69ee34b", 4096, 1 },
	/* --hash-alg=sha512 --salt=deadbeef */
	{ 300000, 2, 4096, "deadbeef",
	  "1b41caded05717c7bc6d9faf9f891bd1803685f0a2207c2a9ab00bb9967b7baf"
	  "04cf36f563ddc15c21ca59509917e927effe28a992a7efe1d803eaab73fa07ff",
	  "56e27e2280b23634a8a4b57fb45beb909c09e4d43c87c7d2b94c382948572c9d", 12288, 1 },
	/* --block-size=1024 */
	{ 300000, 1, 1024, "", "44232ce68f336d44796dd2674fce97d4df5f11d919b06a7dfcda3500d5a03aac",
	  "c2fef4c3a222b65d9f60fce9ace5f42ff157aa8e8eec1fb3f2840ef3bff8cd02", 11264, 1 },
	/* --block-size=65536 */
	{ 200000, 1, 65536, "", "785acb16558504a48eba5c176bff0541bc2577c70d8372699d98ea5961723c1f",
	  NULL, 65536, 0 },
};

static errcode_t read_zeros(void *ctx, void *buf, size_t count, uint64_t offset)
{
	(void)ctx, (void)offset;
	memset(buf, 0, count);
	return 0;
}

static errcode_t read_pattern(void *ctx, void *buf, size_t count, uint64_t offset)
{
	uint8_t *p = buf;
	uint64_t size = *(uint64_t *)ctx;

	ck_assert_uint_le(offset + count, size);
	for (size_t i = 0; i < count; i++) {
		uint64_t pos = offset + i;

		p[i] = (pos * 31 + (pos >> 12)) & 255;
	}
	return 0;
}

struct tree_buf {
	uint8_t *data;
	uint64_t size;
	uint64_t blocks_seen;
};

static errcode_t collect_tree(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct tree_buf *t = ctx;

	ck_assert_uint_le(offset + size, t->size);
	ck_assert_uint_eq(offset % size, 0);
	memcpy(t->data + offset, block, size);
	t->blocks_seen++;
	return 0;
}

static void run_vector_with(const struct vector *v, unsigned int threads,
			    struct e2verity_workers *workers)
{
	uint8_t salt[32], want[64], got[32];
	struct e2verity_params p = {
		.hash_alg = v->alg,
		.block_size = v->block_size,
		.salt = salt,
		.salt_size = strlen(v->salt_hex) / 2,
		.threads = { .count = threads, .workers = workers },
	};
	struct e2verity_result res;
	struct tree_buf t = { 0 };
	uint64_t size = v->size;

	unit_hex2bin(v->salt_hex, salt, p.salt_size);
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	ck_assert_int_eq(e2verity_geometry(&p, v->size, &res.geo), 0);
	ck_assert_uint_eq(res.geo.tree_size, v->tree_size);
	t.size = res.geo.tree_size;
	t.data = calloc(1, t.size + 1);
	ck_assert_int_eq(e2verity_compute(&p, v->size, v->zeros ? read_zeros : read_pattern, &size,
					  collect_tree, &t, &res),
			 0);
	unit_hex2bin(v->digest, want, res.digest_size);
	ck_assert_mem_eq(res.digest, want, res.digest_size);
	ck_assert_uint_eq(t.blocks_seen, v->tree_size / v->block_size);
	if (v->tree_sha256) {
		e2verity_hash_buf(E2VERITY_HASH_SHA256, t.data, t.size, got);
		unit_hex2bin(v->tree_sha256, want, 32);
		ck_assert_mem_eq(got, want, 32);
	}
	ck_assert_uint_eq(res.desc.data_size, v->size);
	ck_assert_uint_eq(res.desc.sig_size, 0);
	free(t.data);
}

static void run_vector(const struct vector *v, unsigned int threads)
{
	run_vector_with(v, threads, NULL);
}

START_TEST(test_vectors)
{
	run_vector(&vectors[_i], 1);
}
END_TEST

START_TEST(test_vectors_threaded)
{
	run_vector(&vectors[_i], 3);
}
END_TEST

/*
 * One lasting pool for every vector in turn, twice: each thread must take up
 * the new salt and algorithm, and forget the zero-block hash of the last one.
 */
START_TEST(test_vectors_shared_workers)
{
	struct e2verity_workers *w;

	ck_assert_int_eq(e2verity_workers_new(_i, &w), 0);
	for (int round = 0; round < 2; round++)
		for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++)
			run_vector_with(&vectors[v], 0, w);
	e2verity_workers_free(w);
}
END_TEST

/* doc/format.md section 2: 70,000,000 bytes -> levels 134, 2, 1; 137 blocks, root first */
START_TEST(test_geometry_three_levels)
{
	struct e2verity_params p = { 0 };
	struct e2verity_geometry g;

	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	ck_assert_int_eq(e2verity_geometry(&p, 70000000, &g), 0);
	ck_assert_uint_eq(g.data_blocks, 17090);
	ck_assert_uint_eq(g.num_levels, 3);
	ck_assert_uint_eq(g.level_blocks[0], 134);
	ck_assert_uint_eq(g.level_blocks[1], 2);
	ck_assert_uint_eq(g.level_blocks[2], 1);
	ck_assert_uint_eq(g.level_start[2], 0);
	ck_assert_uint_eq(g.level_start[1], 1);
	ck_assert_uint_eq(g.level_start[0], 3);
	ck_assert_uint_eq(g.tree_size, 137 * 4096);
}
END_TEST

START_TEST(test_too_many_levels)
{
	struct e2verity_params p = { .hash_alg = E2VERITY_HASH_SHA512, .block_size = 1024 };
	struct e2verity_geometry g;

	/* 16 hashes per block: 8 levels cover 16^8 blocks of 1 KiB */
	ck_assert_int_eq(e2verity_geometry(&p, (1ULL << 32) * 1024, &g), 0);
	ck_assert_int_eq(e2verity_geometry(&p, (1ULL << 32) * 1024 + 1, &g),
			 E2VERITY_ET_TOO_MANY_LEVELS);
}
END_TEST

/*
 * E2VERITY_PARAMS_HOST_DIGEST: `fsverity digest`'s block sizes, from two
 * hashes a block to 2^30, in trees of up to 64 levels; without it the
 * kernel's alone, as before.
 */
START_TEST(test_host_digest_range)
{
	const unsigned int host = E2VERITY_PARAMS_HOST_DIGEST;
	struct e2verity_params p;
	struct e2verity_geometry g;
	struct e2verity_result res;
	uint64_t size = 5000;

	p = (struct e2verity_params){ .block_size = 64, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	p = (struct e2verity_params){ .block_size = 32, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .hash_alg = E2VERITY_HASH_SHA512,
				      .block_size = 64,
				      .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p.block_size = 128;
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	p = (struct e2verity_params){ .block_size = 1u << 30, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	p = (struct e2verity_params){ .block_size = 1u << 31, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .block_size = 96, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	/* the kernel's range without the flag; an unknown flag is a reserved bit */
	p = (struct e2verity_params){ .block_size = 512 };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .flags = 2 };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_RESERVED_NOT_ZERO);

	/* 5000 bytes of 64-byte blocks: 79 leaves, 7 levels, fit the public geometry */
	p = (struct e2verity_params){ .block_size = 64, .flags = host };
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	ck_assert_int_eq(e2verity_geometry(&p, size, &g), 0);
	ck_assert_uint_eq(g.data_blocks, 79);
	ck_assert_uint_eq(g.num_levels, 7);
	/* 2^20 bytes: 2^14 leaves, 14 levels, more than it holds */
	ck_assert_int_eq(e2verity_geometry(&p, 1u << 20, &g), E2VERITY_ET_TOO_MANY_LEVELS);
	size = 1u << 20;
	ck_assert_int_eq(e2verity_compute(&p, size, read_pattern, &size, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.geo.num_levels, 0);
	ck_assert_uint_eq(res.geo.data_blocks, 1u << 14);
	ck_assert_uint_eq(res.geo.tree_blocks, (1u << 14) - 1);
	ck_assert_uint_eq(res.desc.log_blocksize, 6);
}
END_TEST

START_TEST(test_bad_params)
{
	struct e2verity_params p = { .hash_alg = 3 };
	struct e2verity_result res;
	uint64_t size = 10;

	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_HASH_ALG);
	p = (struct e2verity_params){ .block_size = 3000 };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .block_size = 512 };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .block_size = 131072 };
	ck_assert_int_eq(e2verity_compute(&p, size, read_pattern, &size, NULL, NULL, &res),
			 E2VERITY_ET_BAD_BLOCK_SIZE);
	p = (struct e2verity_params){ .salt_size = 33 };
	ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_SALT_TOO_LONG);
	/* room to grow: a word a later version may use must be zero for this one */
	for (unsigned int i = 0; i < sizeof(p.reserved) / sizeof(p.reserved[0]); i++) {
		p = (struct e2verity_params){ 0 };
		p.reserved[i] = 1;
		ck_assert_int_eq(e2verity_params_validate(&p), E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_compute(&p, size, read_pattern, &size, NULL, NULL, &res),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	p = (struct e2verity_params){ 0 };
	ck_assert_int_eq(e2verity_params_validate(&p), 0);
	ck_assert_uint_eq(p.hash_alg, E2VERITY_HASH_SHA256);
	ck_assert_uint_eq(p.block_size, 4096);
}
END_TEST

/* A fresh 1 MiB ext4-like filesystem in a temporary file (4 KiB blocks, extents). */
static ext2_filsys make_fs(char *path)
{
	struct ext2_super_block param = { 0 };
	ext2_filsys fs;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	close(fd);
	param.s_log_block_size = 2;
	ext2fs_blocks_count_set(&param, 256);
	ext2fs_set_feature_extents(&param);
	ck_assert_int_eq(ext2fs_initialize(path, EXT2_FLAG_RW, &param, unix_io_manager, &fs), 0);
	ck_assert_int_eq(ext2fs_allocate_tables(fs), 0);
	return fs;
}

/*
 * e2verity_set_image_source() takes only a descriptor that holds the
 * filesystem at the offset given (its superblock and UUID): a wrong one
 * would feed the fast reads another file's bytes.
 */
START_TEST(test_image_source)
{
	char path[] = "/tmp/e2verity-check_merkle.XXXXXX";
	ext2_filsys fs = make_fs(path);
	struct e2verity_image *img;
	int fd, null_fd;

	ck_assert_int_eq(ext2fs_flush(fs), 0);
	fd = open(path, O_RDONLY);
	null_fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(null_fd, 0);
	/* the source is the image's: none without one attached */
	ck_assert_int_eq(e2verity_set_image_source(fs, fd, 0), E2VERITY_ET_NO_IMAGE);
	ck_assert_int_eq(e2verity_set_image_source(fs, -1, 0), 0);
	ck_assert_int_eq(e2verity_image_attach(fs, &img), 0);
	ck_assert_int_eq(e2verity_set_image_source(fs, null_fd, 0), E2VERITY_ET_IMAGE_SOURCE);
	ck_assert_int_eq(e2verity_set_image_source(fs, fd, 4096), E2VERITY_ET_IMAGE_SOURCE);
	ck_assert_int_eq(e2verity_set_image_source(fs, fd, 0), 0);
	/* named again: the new one replaces it; forgotten twice: nothing to forget */
	ck_assert_int_eq(e2verity_set_image_source(fs, fd, 0), 0);
	ck_assert_int_eq(e2verity_set_image_source(fs, -1, 0), 0);
	ck_assert_int_eq(e2verity_set_image_source(fs, -1, 0), 0);
	/* named, then forgotten by the detach */
	ck_assert_int_eq(e2verity_set_image_source(fs, fd, 0), 0);
	ck_assert_int_eq(e2verity_image_detach(img), 0);
	ck_assert_ptr_null(fs->priv_data);
	close(fd);
	close(null_fd);
	ext2fs_close_free(&fs);
	unlink(path);
}
END_TEST

/*
 * The library's state of an image is on its fs->priv_data, not in the
 * process: two images each have a transaction at once, and a transaction
 * needs an image.
 */
START_TEST(test_image_handle)
{
	char path1[] = "/tmp/e2verity-check_merkle.XXXXXX";
	char path2[] = "/tmp/e2verity-check_merkle.XXXXXX";
	ext2_filsys fs1 = make_fs(path1), fs2 = make_fs(path2);
	struct e2verity_image *img1, *img2, *again;
	struct e2verity_txn *t1, *t2, *busy;
	int mine;

	ck_assert_int_eq(ext2fs_flush(fs1), 0);
	ck_assert_int_eq(ext2fs_flush(fs2), 0);
	ck_assert_int_eq(e2verity_txn_begin(fs1, &t1), E2VERITY_ET_NO_IMAGE);
	ck_assert_ptr_null(t1);
	/* priv_data that is the application's is left alone */
	fs1->priv_data = &mine;
	ck_assert_int_eq(e2verity_image_attach(fs1, &img1), E2VERITY_ET_PRIV_DATA_BUSY);
	fs1->priv_data = NULL;
	ck_assert_int_eq(e2verity_image_attach(fs1, &img1), 0);
	ck_assert_int_eq(e2verity_image_attach(fs1, &again), E2VERITY_ET_PRIV_DATA_BUSY);
	ck_assert_int_eq(e2verity_image_attach(fs2, &img2), 0);
	ck_assert_int_eq(e2verity_txn_begin(fs1, &t1), 0);
	ck_assert_int_eq(e2verity_txn_begin(fs2, &t2), 0);
	/* one transaction an image */
	ck_assert_int_eq(e2verity_txn_begin(fs1, &busy), E2VERITY_ET_TXN_BUSY);
	ck_assert_int_eq(e2verity_image_detach(img1), E2VERITY_ET_TXN_BUSY);
	ck_assert_ptr_eq(fs1->priv_data, img1);
	ck_assert_int_eq(e2verity_txn_end(t2), 0);
	ck_assert_int_eq(e2verity_txn_end(t1), 0);
	ck_assert_int_eq(e2verity_image_detach(img1), 0);
	ck_assert_int_eq(e2verity_image_detach(img2), 0);
	ck_assert_int_eq(e2verity_image_detach(NULL), 0);
	ck_assert_int_eq(ext2fs_close_free(&fs1), 0);
	ck_assert_int_eq(ext2fs_close_free(&fs2), 0);
	unlink(path1);
	unlink(path2);
}
END_TEST

/*
 * The option structures of the check and seal entry points: a reserved word
 * set (a program built for a later version) is refused before anything is
 * read or written, and all-zero reserved words are this version's behaviour.
 */
START_TEST(test_opts_reserved)
{
	char path[] = "/tmp/e2verity-check_merkle.XXXXXX";
	ext2_filsys fs = make_fs(path);
	struct e2verity_check_opts co;
	struct e2verity_check_stats st;
	struct e2verity_seal_opts so;
	struct e2verity_seal_plan plan;
	struct e2verity_seal_result res;
	struct e2verity_result digest;
	struct e2verity_batch *batch;
	struct e2verity_repair_opts ro;
	struct e2verity_repair_result rr;
	struct e2verity_seal_files_cb fcb;
	struct e2verity_unseal_opts uo;
	struct e2verity_files_totals tot;
	ext2_ino_t ino = EXT2_ROOT_INO;

	for (unsigned int i = 0; i < sizeof(co.reserved) / sizeof(co.reserved[0]); i++) {
		co = (struct e2verity_check_opts){ 0 };
		co.reserved[i] = 1;
		memset(&st, 0, sizeof(st));
		ck_assert_int_eq(e2verity_check_image(fs, &co, &st), E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_check_inode(fs, ino, &co, &st),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	for (unsigned int i = 0; i < sizeof(so.reserved) / sizeof(so.reserved[0]); i++) {
		so = (struct e2verity_seal_opts){ 0 };
		so.reserved[i] = 1;
		ck_assert_int_eq(e2verity_seal_check_fs(fs, &so), E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_prepare(fs, ino, &so, &plan),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_digest(fs, ino, &so, &digest),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_inode(fs, ino, &so, &res),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_batch_new(fs, &so, &ino, 1, &batch),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_ptr_null(batch);
	}
	for (unsigned int i = 0; i < sizeof(so.reserved) / sizeof(so.reserved[0]); i++) {
		so = (struct e2verity_seal_opts){ 0 };
		so.reserved[i] = 1;
		ck_assert_int_eq(e2verity_seal_preflight(fs, &ino, 1, &so, NULL, &plan, &tot),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_files(fs, NULL, &ino, 1, &so, NULL, NULL, &tot),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	so = (struct e2verity_seal_opts){ 0 };
	for (unsigned int i = 0; i < sizeof(fcb.reserved) / sizeof(fcb.reserved[0]); i++) {
		fcb = (struct e2verity_seal_files_cb){ 0 };
		fcb.reserved[i] = 1;
		ck_assert_int_eq(e2verity_seal_preflight(fs, &ino, 1, &so, &fcb, &plan, &tot),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_seal_files(fs, NULL, &ino, 1, &so, NULL, &fcb, &tot),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	for (unsigned int i = 0; i < sizeof(uo.reserved) / sizeof(uo.reserved[0]); i++) {
		uo = (struct e2verity_unseal_opts){ 0 };
		uo.reserved[i] = 1;
		ck_assert_int_eq(e2verity_unseal_files(fs, NULL, &ino, 1, &uo, &tot),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	/* an unknown flag is a later version's: refused, not ignored */
	uo = (struct e2verity_unseal_opts){ .flags = 0x80 };
	ck_assert_int_eq(e2verity_unseal_files(fs, NULL, &ino, 1, &uo, &tot),
			 E2VERITY_ET_RESERVED_NOT_ZERO);
	for (unsigned int i = 0; i < sizeof(ro.reserved) / sizeof(ro.reserved[0]); i++) {
		ro = (struct e2verity_repair_opts){ 0 };
		ro.reserved[i] = 1;
		ck_assert_int_eq(e2verity_repair_tree(fs, ino, &ro, &rr),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
		ck_assert_int_eq(e2verity_repair_reseal(fs, ino, &ro, &rr),
				 E2VERITY_ET_RESERVED_NOT_ZERO);
	}
	/* the nested tree parameters follow e2verity_params' rule */
	so = (struct e2verity_seal_opts){ 0 };
	so.params.reserved[0] = 1;
	ck_assert_int_eq(e2verity_seal_check_fs(fs, &so), E2VERITY_ET_RESERVED_NOT_ZERO);

	/* zeroed options: accepted (no verity inode to check on a fresh filesystem) */
	co = (struct e2verity_check_opts){ 0 };
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(e2verity_check_image(fs, &co, &st), 0);
	so = (struct e2verity_seal_opts){ 0 };
	ck_assert_int_eq(e2verity_seal_check_fs(fs, &so), 0);

	ext2fs_free(fs);
	unlink(path);
}
END_TEST

static errcode_t read_fails_late(void *ctx, void *buf, size_t count, uint64_t offset)
{
	(void)ctx;
	if (offset > 0)
		return EIO;
	memset(buf, 0, count);
	return 0;
}

static errcode_t sink_fails(void *ctx, const void *block, size_t size, uint64_t offset)
{
	(void)ctx, (void)block, (void)size, (void)offset;
	return ENOSPC;
}

START_TEST(test_callback_errors)
{
	struct e2verity_params p = { .threads.count = _i };
	struct e2verity_result res;
	uint64_t size = 5 << 20;

	ck_assert_int_eq(e2verity_compute(&p, size, read_fails_late, NULL, NULL, NULL, &res), EIO);
	ck_assert_int_eq(e2verity_compute(&p, size, read_pattern, &size, sink_fails, NULL, &res),
			 ENOSPC);
}
END_TEST

/*
 * A file of data runs between holes, for e2verity_compute_sparse(): what it
 * builds must be what e2verity_compute() builds reading every zero.
 */
struct sparse_file {
	uint64_t size;
	const uint64_t (*runs)[2]; /* [start, end) of each data run, ascending */
	size_t nruns;
	uint8_t *tree;
	uint64_t tree_cap;
};

static errcode_t sparse_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct sparse_file *f = ctx;
	uint8_t *out = buf;

	memset(out, 0, count);
	for (size_t r = 0; r < f->nruns; r++) {
		uint64_t lo = f->runs[r][0] > offset ? f->runs[r][0] : offset;
		uint64_t hi = f->runs[r][1] < offset + count ? f->runs[r][1] : offset + count;

		for (uint64_t pos = lo; pos < hi; pos++)
			out[pos - offset] = ((pos * 31 + (pos >> 12)) & 255) | 1;
	}
	return 0;
}

static errcode_t sparse_seek(void *ctx, uint64_t offset, uint64_t *next)
{
	struct sparse_file *f = ctx;

	for (size_t r = 0; r < f->nruns; r++) {
		if (offset < f->runs[r][1]) {
			*next = offset > f->runs[r][0] ? offset : f->runs[r][0];
			return 0;
		}
	}
	*next = f->size + 12345; /* past the end: no data after @offset */
	return 0;
}

static errcode_t tree_into(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct sparse_file *f = ctx;

	ck_assert_uint_le(offset + size, f->tree_cap);
	memcpy(f->tree + offset, block, size);
	return 0;
}

static const uint64_t runs_a[][2] = { { 0, 5000 },
				      { 70000, 70001 },
				      { 3 << 20, (3 << 20) + 4096 },
				      { (9 << 20) + 1, (9 << 20) + 2 } };
static const uint64_t runs_b[][2] = { { 600000, 600100 } };

START_TEST(test_sparse_matches_dense)
{
	static const struct {
		unsigned int alg, bs;
		const char *salt;
	} params[] = { { 1, 4096, "" }, { 2, 4096, "deadbeef" }, { 1, 1024, "ab" } };
	static const struct {
		const uint64_t (*runs)[2];
		size_t nruns;
		uint64_t size;
	} files[] = {
		{ runs_a, 4, 17 << 20 },	 /* a hole up to a block boundary at the end */
		{ runs_a, 4, (17 << 20) + 333 }, /* and to a partial last block */
		{ runs_b, 1, 2 << 20 },		 /* one run inside a block */
		{ NULL, 0, (5 << 20) + 1 },	 /* all hole */
		{ runs_a, 4, (9 << 20) + 2 },	 /* data up to the end */
	};
	unsigned int pi = _i % 3, fi = _i / 3;
	struct e2verity_params p = { .hash_alg = params[pi].alg, .block_size = params[pi].bs };
	struct sparse_file dense = { .size = files[fi].size,
				     .runs = files[fi].runs,
				     .nruns = files[fi].nruns };
	struct sparse_file sparse = dense;
	struct e2verity_result r1, r2;
	uint8_t salt[32];

	p.salt_size = strlen(params[pi].salt) / 2;
	p.salt = salt;
	unit_hex2bin(params[pi].salt, salt, p.salt_size);
	ck_assert_int_eq(e2verity_compute(&p, dense.size, sparse_read, &dense, NULL, NULL, &r1), 0);
	dense.tree_cap = sparse.tree_cap = r1.geo.tree_size;
	dense.tree = calloc(1, r1.geo.tree_size + 1);
	sparse.tree = calloc(1, r1.geo.tree_size + 1);
	ck_assert_ptr_nonnull(dense.tree);
	ck_assert_ptr_nonnull(sparse.tree);
	ck_assert_int_eq(
		e2verity_compute(&p, dense.size, sparse_read, &dense, tree_into, &dense, &r1), 0);
	ck_assert_int_eq(e2verity_compute_sparse(&p, sparse.size, sparse_read, sparse_seek, &sparse,
						 tree_into, &sparse, &r2),
			 0);
	ck_assert_mem_eq(r1.digest, r2.digest, r1.digest_size);
	ck_assert_mem_eq(dense.tree, sparse.tree, r1.geo.tree_size);
	free(dense.tree);
	free(sparse.tree);
}
END_TEST

static Suite *merkle_suite(void)
{
	Suite *s = suite_create("merkle");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_vectors, 0, sizeof(vectors) / sizeof(vectors[0]));
	tcase_add_loop_test(tc, test_vectors_threaded, 0, sizeof(vectors) / sizeof(vectors[0]));
	tcase_add_loop_test(tc, test_vectors_shared_workers, 1, 4);
	tcase_add_test(tc, test_geometry_three_levels);
	tcase_add_test(tc, test_too_many_levels);
	tcase_add_test(tc, test_bad_params);
	tcase_add_test(tc, test_host_digest_range);
	tcase_add_test(tc, test_opts_reserved);
	tcase_add_test(tc, test_image_source);
	tcase_add_test(tc, test_image_handle);
	tcase_add_loop_test(tc, test_callback_errors, 1, 3);
	tcase_add_loop_test(tc, test_sparse_matches_dense, 0, 15);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(merkle_suite());
}
