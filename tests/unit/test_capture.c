/* test_capture.c — bounded capture of a stream (sandbox/capture.c): the
 * head and tail kept after any sequence of writes equal those of a
 * reference model that keeps everything; totals and the truncated flag are
 * exact; memory does not grow with the stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Deterministic bytes: a stream position gives the same byte every time,
 * and neighbouring bytes differ, so an off-by-one anywhere shows. */
static char byte_at(uint64_t pos)
{
	return (char)('!' + (pos * 7 + pos / 251) % 90);
}

static void fill(char *buf, uint64_t from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = byte_at(from + i);
}

/* Feeds total bytes in chunks of chunk (the last shorter) into a capture of
 * keep bytes, then compares against what the model says must be kept:
 * head = the first min(total, keep/2) bytes, tail = the last
 * min(total - head, keep - keep/2) bytes. */
static void check_stream(size_t keep, uint64_t total, size_t chunk)
{
	struct sbx_capture c;
	capture_init(&c);
	char *buf = malloc(chunk ? chunk : 1);
	assert_non_null(buf);
	uint64_t pos = 0;
	while (pos < total) {
		size_t n = total - pos < chunk ? (size_t)(total - pos) : chunk;
		fill(buf, pos, n);
		capture_add(&c, keep, buf, n);
		pos += n;
		assert_int_equal(c.total, pos);
	}
	capture_finish(&c, keep);

	size_t hcap = keep / 2, tcap = keep - keep / 2;
	size_t want_head = total < hcap ? (size_t)total : hcap;
	uint64_t rest = total - want_head;
	size_t want_tail = rest < tcap ? (size_t)rest : tcap;
	if (c.total != total || c.head_len != want_head || c.tail_len != want_tail)
		fail_msg("keep %zu total %llu chunk %zu: total %llu head %zu (want %zu) "
		         "tail %zu (want %zu)",
		         keep, (unsigned long long)total, chunk, (unsigned long long)c.total,
		         c.head_len, want_head, c.tail_len, want_tail);
	char *want = malloc(keep + 1);
	assert_non_null(want);
	fill(want, 0, want_head);
	if (want_head && memcmp(c.head, want, want_head))
		fail_msg("keep %zu total %llu chunk %zu: head differs", keep,
		         (unsigned long long)total, chunk);
	fill(want, total - want_tail, want_tail);
	if (want_tail && memcmp(c.tail, want, want_tail))
		fail_msg("keep %zu total %llu chunk %zu: tail differs", keep,
		         (unsigned long long)total, chunk);
	/* Both parts are NUL-terminated for callers that print them. */
	if (c.head)
		assert_int_equal(c.head[c.head_len], '\0');
	if (c.tail)
		assert_int_equal(c.tail[c.tail_len], '\0');
	bool want_trunc = total > (uint64_t)want_head + want_tail;
	if (c.truncated != want_trunc)
		fail_msg("keep %zu total %llu chunk %zu: truncated %d, want %d", keep,
		         (unsigned long long)total, chunk, c.truncated, want_trunc);
	free(want);
	free(buf);
	capture_release(&c);
}

static void test_capture_empty_stream(void **state)
{
	(void)state;
	check_stream(64, 0, 1);
	struct sbx_capture c;
	capture_init(&c);
	capture_finish(&c, 64);
	assert_string_equal(c.head, "");
	assert_string_equal(c.tail, "");
	assert_false(c.truncated);
	capture_release(&c);
}

static void test_capture_fits_exactly(void **state)
{
	(void)state;
	check_stream(64, 32, 5); /* head only */
	check_stream(64, 33, 5); /* one byte of tail */
	check_stream(64, 64, 7); /* everything kept, not truncated */
	check_stream(64, 65, 7); /* one byte lost */
	check_stream(64, 65, 65);
}

/* Every chunk size from 1 to past the ring size, for totals that wrap the
 * tail ring zero, one and many times, and at ring boundaries. */
static void test_capture_matches_model_across_chunk_sizes(void **state)
{
	(void)state;
	const size_t keeps[] = { 2, 3, 16, 17, 100, 1024, 4095 };
	for (size_t k = 0; k < sizeof keeps / sizeof keeps[0]; k++) {
		size_t keep = keeps[k], tcap = keep - keep / 2, hcap = keep / 2;
		const uint64_t totals[] = { 1,
			                    hcap,
			                    hcap + 1,
			                    keep - 1,
			                    keep,
			                    keep + 1,
			                    hcap + 2 * tcap,
			                    hcap + 2 * tcap + 1,
			                    hcap + 7 * tcap - 1,
			                    10 * keep + 3,
			                    20000 };
		for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
			for (size_t chunk = 1; chunk <= tcap + 3 && chunk <= 300; chunk++)
				check_stream(keep, totals[t], chunk);
		check_stream(keep, 20000, 4096);
		check_stream(keep, 20000, 20000);
	}
}

/* A chunk larger than the whole keep, arriving after the ring wrapped. */
static void test_capture_big_chunk_after_wrap(void **state)
{
	(void)state;
	struct sbx_capture c;
	size_t keep = 10;
	capture_init(&c);
	capture_add(&c, keep, "ABCDEFGH", 8);  /* head ABCDE, tail FGH */
	capture_add(&c, keep, "ijklmnopq", 9); /* tail wraps: mnopq */
	capture_add(&c, keep, "0123456789xyz", 13);
	capture_finish(&c, keep);
	assert_string_equal(c.head, "ABCDE");
	assert_string_equal(c.tail, "89xyz");
	assert_int_equal(c.total, 30);
	assert_true(c.truncated);
	capture_release(&c);
}

/* Odd keep: the head gets the smaller half, the tail the larger. */
static void test_capture_odd_keep(void **state)
{
	(void)state;
	struct sbx_capture c;
	capture_init(&c);
	capture_add(&c, 7, "abcdefghijklmnop", 16);
	capture_finish(&c, 7);
	assert_string_equal(c.head, "abc");
	assert_string_equal(c.tail, "mnop");
	assert_true(c.truncated);
	capture_release(&c);

	capture_init(&c);
	capture_add(&c, 1, "xyz", 3);
	capture_finish(&c, 1);
	assert_int_equal(c.head_len, 0);
	assert_int_equal(c.tail_len, 1);
	assert_int_equal(c.tail[0], 'z');
	assert_int_equal(c.total, 3);
	assert_true(c.truncated);
	capture_release(&c);
}

/* keep 0 keeps nothing, counts everything, and says it cut. */
static void test_capture_keep_zero_counts_and_truncates(void **state)
{
	(void)state;
	struct sbx_capture c;
	capture_init(&c);
	capture_add(&c, 0, "hello", 5);
	capture_add(&c, 0, "world", 5);
	capture_finish(&c, 0);
	assert_int_equal(c.total, 10);
	assert_int_equal(c.head_len, 0);
	assert_int_equal(c.tail_len, 0);
	assert_true(c.truncated);
	capture_release(&c);

	capture_init(&c);
	capture_finish(&c, 0);
	assert_int_equal(c.total, 0);
	assert_false(c.truncated);
	capture_release(&c);
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	long pages = 0, rss = 0;
	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* 1 GiB through a 64 KiB capture: once the first chunk has brought them,
 * the buffers never move or grow (later adds allocate nothing), the
 * process does not grow by the stream, and the total is exact past 32
 * bits' worth of chunks. */
static void test_capture_memory_stays_bounded(void **state)
{
	(void)state;
	size_t keep = 64 << 10, chunk = 1 << 20;
	struct sbx_capture c;
	capture_init(&c);
	char *buf = malloc(chunk);
	assert_non_null(buf);
	memset(buf, 'y', chunk);
	assert_null(c.head); /* nothing allocated before the first bytes */
	buf[0] = 'a';
	capture_add(&c, keep, buf, chunk);
	char *head = c.head, *tail = c.tail;
	assert_non_null(head);
	assert_non_null(tail);
	long before = rss_kb();
	for (int i = 1; i < 1024; i++) {
		buf[0] = (char)('a' + i % 26);
		capture_add(&c, keep, buf, chunk);
		assert_ptr_equal(c.head, head);
		assert_ptr_equal(c.tail, tail);
	}
	long after = rss_kb();
	assert_int_equal(c.total, 1ULL << 30);
	if (before > 0 && after > 0 && after - before > 8192)
		fail_msg("resident memory grew by %ld KiB for a 64 KiB capture", after - before);
	capture_finish(&c, keep);
	assert_int_equal(c.head_len, keep / 2);
	assert_int_equal(c.tail_len, keep / 2);
	assert_int_equal(c.head[0], 'a');
	assert_int_equal(c.tail[0], 'y');
	assert_true(c.truncated);
	free(buf);
	capture_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_empty_stream),
		cmocka_unit_test(test_capture_fits_exactly),
		cmocka_unit_test(test_capture_matches_model_across_chunk_sizes),
		cmocka_unit_test(test_capture_big_chunk_after_wrap),
		cmocka_unit_test(test_capture_odd_keep),
		cmocka_unit_test(test_capture_keep_zero_counts_and_truncates),
		cmocka_unit_test(test_capture_memory_stays_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
