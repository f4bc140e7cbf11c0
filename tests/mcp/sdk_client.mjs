// tests/mcp/sdk_client.mjs — `toolcage serve` driven by the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk) over stdio, as an MCP host
// would: connect, list tools, call them, answer elicitations (approve one
// destructive call, decline another and prove it never ran), follow
// progress, and cancel an in-flight call with an AbortSignal (its child
// must die). Run by tests/integration/mcp_sdk.sh from the npm prefix.
//
// With "http" it does all of it over Streamable HTTP: `toolcage serve
// --http 127.0.0.1:0` (the port it picked read from its stderr) and the
// SDK's StreamableHTTPClientTransport, which opens a session, sends each
// message as a POST, reads answers as JSON or SSE, and cancels with a POST
// of notifications/cancelled.
//
// usage: node sdk_client.mjs TOOLCAGE TOPDIR [stdio|http]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [tc, top, mode = 'stdio'] = process.argv.slice(2);
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-sdk-'));
let fails = 0;
const ok = (cond, what) => {
	console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
	if (!cond) fails++;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const procs = (text) => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
	try {
		return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').replaceAll('\0', ' ').includes(text);
	} catch { return false; }
});
const waitFor = async (pred, ms) => {
	for (const end = Date.now() + ms; Date.now() < end; await sleep(20))
		if (pred()) return true;
	return pred();
};

const serveArgs = ['serve', '--workspace', ws, '--tools', `${top}/tests/data/pipeline/tools`,
                   '--tools', `${top}/tests/data/mcp/tools`];
let stderr = '';
let transport;
let server = null;
if (mode === 'http') {
	server = spawn(tc, [...serveArgs, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
	server.stderr.on('data', (d) => { stderr += d; });
	const url = await new Promise((resolve, reject) => {
		const t = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 60000); // a loaded machine
		server.stderr.on('data', () => {
			const m = /listening on (http:\/\/\S+)/.exec(stderr);
			if (m) { clearTimeout(t); resolve(m[1]); }
		});
		server.on('exit', (c) => reject(new Error(`serve exited ${c}: ${stderr}`)));
	});
	transport = new StreamableHTTPClientTransport(new URL(url));
} else {
	transport = new StdioClientTransport({ command: tc, args: serveArgs, stderr: 'pipe' });
	transport.stderr?.on('data', (d) => { stderr += d; });
}

const client = new Client({ name: 'toolcage-sdk-test', version: '1.0.0' },
                          { capabilities: { elicitation: { form: {} } } });
// The answer the "user" gives to the next approval question.
let nextAnswer = null;
const questions = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
	questions.push(req.params);
	return nextAnswer;
});

try {
	await client.connect(transport);
	ok(client.getServerVersion()?.name === 'toolcage', 'serverInfo.name is toolcage');
	ok(client.getServerCapabilities()?.tools?.listChanged === true, 'tools.listChanged declared');
	ok(typeof client.getInstructions() === 'string', 'instructions given');

	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
	ok(byName.echo_json && byName.make_marker && byName.sleep_for, `listTools: ${tools.length} tools`);
	ok(byName.make_marker?.annotations?.destructiveHint === true &&
	   byName.make_marker?.annotations?.readOnlyHint === false, 'make_marker is destructive');

	let r = await client.callTool({ name: 'echo_json', arguments: { text: '{"a": 1}' } });
	ok(!r.isError && r.structuredContent?.a === 1 && r.content[0].type === 'text',
	   'echo_json: structuredContent and text');
	r = await client.callTool({ name: 'echo_json', arguments: { text: 7 } });
	ok(r.isError === true && /text/.test(r.content[0].text), 'invalid arguments: isError result');
	// The SDK checks structuredContent against a declared outputSchema and
	// threw on error results that carried one.
	r = await client.callTool({ name: 'counted', arguments: { text: 'x' } });
	ok(!r.isError && r.structuredContent?.n === 3, 'outputSchema: a matching result');
	r = await client.callTool({ name: 'counted', arguments: { text: 7 } });
	ok(r.isError === true && /text/.test(r.content[0].text), 'outputSchema: an error result reaches the client');
	r = await client.callTool({ name: 'wrong_shape', arguments: {} });
	ok(r.isError === true && /output_schema/.test(r.content[0].text), 'outputSchema: a result breaking it is a failure');

	nextAnswer = { action: 'accept', content: { choice: 'allow_once' } };
	r = await client.callTool({ name: 'make_marker', arguments: { path: 'yes.marker' } });
	ok(!r.isError && fs.existsSync(path.join(ws, 'yes.marker')), 'approved through elicitation: ran');
	ok(questions.length === 1 && /make_marker/.test(questions[0].message) &&
	   /yes\.marker/.test(questions[0].message), 'the question names the tool and arguments');

	nextAnswer = { action: 'decline' };
	r = await client.callTool({ name: 'make_marker', arguments: { path: 'no.marker' } });
	ok(r.isError === true && !fs.existsSync(path.join(ws, 'no.marker')),
	   'declined through elicitation: did not run');

	let ticks = 0;
	r = await client.callTool({ name: 'sleep_for', arguments: { seconds: '1.4' } }, undefined,
	                          { onprogress: () => { ticks++; } });
	ok(!r.isError && ticks >= 1, `progress notifications while running (${ticks})`);

	const ac = new AbortController();
	const pending = client.callTool({ name: 'sleep_for', arguments: { seconds: '9.613' } },
	                                undefined, { signal: ac.signal });
	ok(await waitFor(() => procs('sleep 9.613').length > 0, 5000), 'long call started');
	ac.abort('test cancels');
	let aborted = false;
	try { await pending; } catch { aborted = true; }
	ok(aborted, 'the aborted call rejected on the client');
	ok(await waitFor(() => procs('sleep 9.613').length === 0, 3000), 'cancelled: the child died');

	r = await client.callTool({ name: 'echo_json', arguments: { text: '[1]' } });
	ok(!r.isError && Array.isArray(r.structuredContent?.value), 'session goes on after a cancel');
	if (mode === 'http') {
		const sid = transport.sessionId;
		ok(typeof sid === 'string' && /^[\x21-\x7e]+$/.test(sid), 'a session id of visible ASCII');
		await transport.terminateSession();
		const res = await fetch(transport._url, { method: 'POST', headers: {
			'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
			'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
			body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }) });
		ok(res.status === 404, `a deleted session is 404 (${res.status})`);
	}
} catch (e) {
	ok(false, `exception: ${e?.stack || e}`);
} finally {
	await client.close().catch(() => {});
	if (server) {
		// A client closing its streams is no error of the server's: its
		// log says nothing alarming (libmicrohttpd's "application error").
		await new Promise((r) => setTimeout(r, 300));
		ok(!/application error/.test(stderr), 'a client that goes away logs no error');
		const exited = new Promise((r) => server.on('exit', (c, sig) => r(c ?? sig)));
		server.kill('SIGTERM');
		const code = server.exitCode ?? await exited;
		ok(code === 143, `SIGTERM: exit ${code}`);
	}
	fs.rmSync(ws, { recursive: true, force: true });
}
if (/Sanitizer|runtime error:/.test(stderr)) ok(false, `sanitizer report:\n${stderr}`);
if (fails) console.log(`server stderr:\n${stderr}`);
console.log(fails ? `${fails} failed` : 'all passed');
process.exit(fails ? 1 : 0);
