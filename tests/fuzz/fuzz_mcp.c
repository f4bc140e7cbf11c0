/* fuzz_mcp.c — the MCP server's input side, end to end: arbitrary bytes as
 * the client's stream through line framing, the depth pre-check, JSON
 * parsing, JSON-RPC validation, the method table and its handlers
 * (initialize, ping, logging/setLevel, tools/list, tools/call, cancelled,
 * responses to elicitations), on the real event loop, until end of input.
 * The supervisor has no tools (no built-ins, an empty tool directory), so
 * a tools/call is refused before anything would be spawned. Invariants:
 * every output line is one JSON-RPC 2.0 object; and, separately, the
 * framer fed the same bytes in input-chosen chunk sizes never hands out a
 * line with a newline in it or longer than its cap, its buffer stays
 * within cap + two read chunks, and the id it reads from a skipped line
 * stays within its own buffer. */
#define _GNU_SOURCE /* memfd_create */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "mcp.h"
#include "mcp_internal.h"

#define FRAME_MAX 512 /* small, so oversized lines are common */

static void check_framer(const uint8_t *data, size_t size)
{
	struct mcp_framer f;
	framer_init(&f, FRAME_MAX);
	size_t off = 0;
	unsigned step = 0;
	while (off <= size) {
		bool eof = off == size;
		if (!eof) {
			char *p;
			size_t room;
			fuzz_assert(framer_space(&f, &p, &room) == 0);
			/* chunk sizes from the data itself: 1..256 bytes, or all */
			size_t want = (data[step++ % size] & 1) ?
			        1 + (size_t)data[(off + 1) % size] :
			        room;
			size_t n = size - off < want ? size - off : want;
			n = n < room ? n : room;
			memcpy(p, data + off, n);
			framer_commit(&f, n);
			off += n;
		}
		fuzz_assert(f.cap <= FRAME_MAX + 2 * (size_t)MCP_READ_CHUNK);
		const char *line;
		size_t len;
		uint64_t skipped;
		enum frame_kind k;
		while ((k = framer_next(&f, eof, &line, &len, &skipped)) != FRAME_NONE) {
			if (k == FRAME_LINE) {
				fuzz_assert(len <= FRAME_MAX);
				fuzz_assert(!memchr(line, '\n', len));
			} else {
				fuzz_assert(skipped > FRAME_MAX);
				/* the id read from the skipped line: a short JSON
				 * string or number, never more than its buffer */
				size_t idn = 0;
				const char *id = framer_skipped_id(&f, &idn);
				fuzz_assert(!id ||
				            (idn > 0 && idn <= sizeof f.scan.id &&
				             (id[0] != '"' || id[idn - 1] == '"')));
			}
		}
		if (eof)
			break;
	}
	framer_release(&f);
}

static int memfd_with(const void *data, size_t size)
{
	int fd = memfd_create("tc-fuzz-mcp", MFD_CLOEXEC);
	if (fd < 0)
		fuzz_fail("memfd_create failed");
	const char *p = data;
	while (size) {
		ssize_t w = write(fd, p, size);
		if (w <= 0)
			fuzz_fail("write to memfd failed");
		p += w;
		size -= (size_t)w;
	}
	(void)lseek(fd, 0, SEEK_SET);
	return fd;
}

static void check_output(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);
	fuzz_assert(end >= 0);
	char *out = malloc((size_t)end + 1);
	fuzz_assert(out != NULL);
	fuzz_assert(pread(fd, out, (size_t)end, 0) == end);
	out[end] = '\0';
	for (char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			fuzz_fail("output does not end with a newline");
		json_error_t je;
		json_t *msg = json_loadb(line, (size_t)(nl - line), 0, &je);
		if (!json_is_object(msg))
			fuzz_fail("output line is not a JSON object: %.200s", line);
		fuzz_assert(!strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0"));
		json_decref(msg);
	}
	free(out);
}

static char tools[] = "/tmp/tc-fuzz-tools-XXXXXX";
/* The workspace: its own directory, since toolcage refuses a configuration
 * or tool directory inside it (a workspace of /tmp would hold both). */
static char ws[] = "/tmp/tc-fuzz-ws-XXXXXX";

static void remove_tools_dir(void)
{
	(void)rmdir(tools);
	(void)rmdir(ws);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *config;
	if (!config) {
		config = fuzz_temp_file("{}", 2);
		/* A fresh, empty tool directory: no manifest tools at all. */
		if (!mkdtemp(tools) || !mkdtemp(ws))
			fuzz_fail("mkdtemp failed");
		atexit(remove_tools_dir);
	}
	if (size)
		check_framer(data, size);

	const char *const dirs[] = { tools, NULL };
	struct tc_options opt = {
		.workspace = ws,
		.config_path = config,
		.tool_dirs = dirs,
		.approve = "deny",
		.no_builtins = true,
	};
	struct tc_supervisor *s = NULL;
	struct tc_error err;
	if (tc_supervisor_new(&opt, &s, &err) < 0)
		fuzz_fail("supervisor: %s", err.msg);
	int in = memfd_with(data, size), out = memfd_with("", 0);
	struct mcp_options mo = { .in_fd = in, .out_fd = out };
	struct mcp_server *m = NULL;
	if (mcp_server_new(s, &mo, &m, &err) < 0)
		fuzz_fail("mcp_server_new: %s", err.msg);
	(void)mcp_server_run(m);
	mcp_server_free(m);
	check_output(out);
	close(in);
	close(out);
	return 0;
}
