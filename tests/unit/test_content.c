/* test_content.c — MCP content blocks from a manifest tool: the shapes
 * that pass, and what a hostile tool prints instead (a fifth block type,
 * URL-safe or unpadded base64, a MIME type with parameters or of the
 * wrong kind, a URI with a line break, extra keys, too many blocks), and
 * the text a client without content support sees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"

static int check(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	assert_non_null(v);
	char why[200] = "";
	int rc = content_check(v, why, sizeof why);
	if (rc)
		assert_true(why[0]);
	json_decref(v);
	return rc;
}

static void test_valid_blocks_pass(void **state)
{
	(void)state;
	assert_int_equal(check("{\"content\":[{\"type\":\"text\",\"text\":\"\"}]}"), 0);
	assert_int_equal(check("{\"content\":[{\"type\":\"image\",\"data\":\"iVBO\","
	                       "\"mimeType\":\"image/png\"}]}"),
	                 0);
	assert_int_equal(check("{\"content\":[{\"type\":\"audio\",\"data\":\"UklGRg==\","
	                       "\"mimeType\":\"audio/wav\"}]}"),
	                 0);
	assert_int_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                       "\"test://x\",\"mimeType\":\"text/plain\",\"text\":\"hi\"}}]}"),
	                 0);
	assert_int_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                       "\"file:///a\",\"blob\":\"AAE=\"}}]}"),
	                 0);
}

static void test_bad_shapes_fail(void **state)
{
	(void)state;
	assert_int_not_equal(check("[]"), 0);
	assert_int_not_equal(check("{\"content\":[]}"), 0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"text\",\"text\":\"a\"}],"
	                           "\"isError\":false}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource_link\",\"uri\":\"a:b\"}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"text\",\"text\":1}]}"), 0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"text\",\"text\":\"a\","
	                           "\"annotations\":{}}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[\"text\"]}"), 0);
}

static void test_bad_base64_fails(void **state)
{
	(void)state;
	const char *bad[] = { "", "iVB", "iVB-", "iV_O", "iV=O", "iVBO\\n", "iVB O" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[200];
		snprintf(text, sizeof text,
		         "{\"content\":[{\"type\":\"image\",\"data\":\"%s\","
		         "\"mimeType\":\"image/png\"}]}",
		         bad[i]);
		assert_int_not_equal(check(text), 0);
	}
}

static void test_bad_mime_fails(void **state)
{
	(void)state;
	const char *bad[] = { "audio/wav",      "image/",       "image",
		              "image/png; x=1", "image/png\\n", "text/html" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[200];
		snprintf(text, sizeof text,
		         "{\"content\":[{\"type\":\"image\",\"data\":\"iVBO\","
		         "\"mimeType\":\"%s\"}]}",
		         bad[i]);
		assert_int_not_equal(check(text), 0);
	}
}

static void test_bad_resource_fails(void **state)
{
	(void)state;
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                           "\"test://x\\ny\",\"text\":\"a\"}}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                           "\"no-scheme\",\"text\":\"a\"}}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                           "\"a:b\",\"text\":\"a\",\"blob\":\"AAAA\"}}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                           "\"a:b\"}}]}"),
	                     0);
	assert_int_not_equal(check("{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":"
	                           "\"a:b\",\"text\":\"a\",\"name\":\"x\"}}]}"),
	                     0);
}

static void test_block_count_is_bounded(void **state)
{
	(void)state;
	json_t *v = json_pack("{s:[]}", "content");
	for (int i = 0; i < CONTENT_BLOCKS_MAX; i++)
		json_array_append_new(json_object_get(v, "content"),
		                      json_pack("{s:s, s:s}", "type", "text", "text", "x"));
	char why[200];
	assert_int_equal(content_check(v, why, sizeof why), 0);
	json_array_append_new(json_object_get(v, "content"),
	                      json_pack("{s:s, s:s}", "type", "text", "text", "x"));
	assert_int_not_equal(content_check(v, why, sizeof why), 0);
	json_decref(v);
}

static void test_render_names_every_block(void **state)
{
	(void)state;
	json_t *v = json_loads("{\"content\":[{\"type\":\"text\",\"text\":\"Hello\"},"
	                       "{\"type\":\"image\",\"data\":\"iVBO\",\"mimeType\":\"image/png\"},"
	                       "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://r\","
	                       "\"mimeType\":\"text/plain\",\"text\":\"body\"}}]}",
	                       0, NULL);
	size_t len;
	char *t = content_render(v, &len);
	assert_string_equal(t,
	                    "Hello\n[image image/png, 4 bytes of base64]\n"
	                    "[resource test://r (text/plain)]\nbody");
	assert_int_equal(len, strlen(t));
	free(t);
	json_decref(v);
}

/* A tool's text reaches the model as any output's render does: a line
 * separator, a bidi override and an escape sequence in a text block or an
 * embedded text resource cannot start a line or reorder one. */
static void test_texts_are_cleaned_as_renders(void **state)
{
	(void)state;
	json_t *v = json_loads(
	        "{\"content\":[{\"type\":\"text\",\"text\":\"a\\u2028[toolcage] b\\u202e\\u001b[2J\\nc\"},"
	        "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://r\","
	        "\"text\":\"x\\u2029y\"}}]}",
	        0, NULL);
	assert_non_null(v);
	assert_int_equal(content_clean(v), 0);
	const json_t *c = json_object_get(v, "content");
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 0), "text")),
	                    "a\\u2028[toolcage] b\\u202E\xe2\x90\x9b[2J\nc");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(c, 1),
	                                                                      "resource"),
	                                                      "text")),
	                    "x\\u2029y");
	char why[200];
	assert_int_equal(content_check(v, why, sizeof why), 0);
	json_decref(v);
}

/* A content tool's texts reach an MCP client as blocks, not through the
 * render: they are held to max_render_chars together, cut on a character,
 * with a line that says so; the texts after the cut are emptied. */
static void test_texts_are_bounded_as_renders(void **state)
{
	(void)state;
	char big[3001];
	memset(big, 'a', 3000);
	big[3000] = '\0';
	for (int i = 0; i < 3000; i += 300)
		big[i] = '\n';
	json_t *v = json_pack("{s:[{s:s, s:s}, {s:s, s:{s:s, s:s}}, {s:s, s:s}, {s:s, s:s, s:s}]}",
	                      "content", "type", "text", "text", "\xc3\xa9\xc3\xa9\xc3\xa9", "type",
	                      "resource", "resource", "uri", "test://r", "text", big, "type",
	                      "text", "text", "after the cut", "type", "image", "mimeType",
	                      "image/png", "data", "iVBORw0KGgo=");
	assert_non_null(v);
	assert_int_equal(content_bound(v, 1000), 0);
	const json_t *c = json_object_get(v, "content");
	const char *t0 = json_string_value(json_object_get(json_array_get(c, 0), "text"));
	const char *t1 = json_string_value(
	        json_object_get(json_object_get(json_array_get(c, 1), "resource"), "text"));
	const char *t2 = json_string_value(json_object_get(json_array_get(c, 2), "text"));
	assert_string_equal(t0, "\xc3\xa9\xc3\xa9\xc3\xa9");
	assert_int_equal(strncmp(t1, big, 997), 0);
	assert_non_null(strstr(t1, "the tool's text is cut here: 2016 of its 3016 characters"));
	assert_string_equal(t2, "");
	char why[200];
	assert_int_equal(content_check(v, why, sizeof why), 0);
	/* under the budget: untouched */
	json_t *small = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", "short");
	assert_int_equal(content_bound(small, 1000), 0);
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(json_object_get(small, "content"), 0), "text")),
	                    "short");
	json_decref(small);
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_blocks_pass),
		cmocka_unit_test(test_bad_shapes_fail),
		cmocka_unit_test(test_bad_base64_fails),
		cmocka_unit_test(test_bad_mime_fails),
		cmocka_unit_test(test_bad_resource_fails),
		cmocka_unit_test(test_block_count_is_bounded),
		cmocka_unit_test(test_render_names_every_block),
		cmocka_unit_test(test_texts_are_cleaned_as_renders),
		cmocka_unit_test(test_texts_are_bounded_as_renders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
