// tests/bench/mcp_vs_fs.mjs — `toolcage serve` against the official
// filesystem server (@modelcontextprotocol/server-filesystem: node,
// in-process, no confinement), side by side in one run with the official
// SDK client: read_file of a small file, sequential calls interleaved one
// by one with a pause after each (median round trip), the same back to
// back in blocks, then rounds of N calls in flight (calls/s), alternating
// servers. Ratios only; the machine is shared. With the rounds
// in flight it also reads the CPU time of each server's process tree (the
// server, its threads and every process under it, reaped or not) from
// /proc: CPU per call is the figure a loaded machine still compares.
// After each round it runs FLOOR_BENCH (bench_spawn, when set) for the
// CPU of a bare fork and exit: no design that gives each call a process
// of its own costs less per call.
//
// usage: node mcp_vs_fs.mjs TOOLCAGE FS_SERVER_JS [SEQ] [INFLIGHT] [ROUNDS]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [TC, FS_JS] = process.argv.slice(2, 4);
const SEQ = Number(process.argv[4] || 500);
const INFLIGHT = Number(process.argv[5] || 400);
const ROUNDS = Number(process.argv[6] || 5);

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-bench-fs-'));
const file = path.join(ws, 'small.txt');
fs.writeFileSync(file, 'a small file\n'.repeat(8));

async function connect(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

const servers = [
  { name: 'toolcage serve', client: await connect(TC, ['serve', '--workspace', ws]),
    call: { name: 'read_file', arguments: { path: 'small.txt' } } },
  { name: 'server-filesystem', client: await connect('node', [FS_JS, ws]) },
];
// The filesystem server's tool for reading text: read_text_file in recent
// versions, read_file before.
const fsTools = (await servers[1].client.listTools()).tools.map((t) => t.name);
servers[1].call = { name: fsTools.includes('read_text_file') ? 'read_text_file' : 'read_file',
                    arguments: { path: file } };

async function once(s) {
  const r = await s.client.callTool(s.call);
  if (r.isError) throw new Error(`${s.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
}

// The CPU time (clock ticks) of a process, its threads and the children it
// reaped (utime, stime, cutime, cstime), plus those of its live children.
function treeTicks(pid) {
  let f;
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  } catch { return 0; }
  let t = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  let kids = [];
  try {
    kids = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  } catch { /* gone, or no such file: its own time only */ }
  for (const k of kids) if (k) t += treeTicks(k);
  return t;
}

const median = (v) => { const a = [...v].sort((x, y) => x - y); return a[Math.floor(a.length / 2)]; };
const p99 = (v) => { const a = [...v].sort((x, y) => x - y); return a[Math.floor(a.length * 0.99)]; };

for (const s of servers) for (let i = 0; i < 50; i++) await once(s);   // warm up

const lat = servers.map(() => []);
for (let i = 0; i < SEQ; i++) {
  for (let k = 0; k < servers.length; k++) {
    const s = servers[(i + k) % servers.length];
    const t0 = process.hrtime.bigint();
    await once(s);
    lat[servers.indexOf(s)].push(Number(process.hrtime.bigint() - t0) / 1e6);
    // toolcage makes its next spare after a call: give it the time a
    // model's pause would, untimed, for both.
    await new Promise((r) => setTimeout(r, 1));
  }
}

// Back to back: each call sent as soon as the one before is answered, in
// blocks of one server's calls, alternating. toolcage's next spare is
// still being made then, and its setup shares the CPUs with the call.
const BLOCK = Math.max(1, Math.min(50, SEQ));
const b2b = servers.map(() => []);
for (let i = 0; i < Math.max(1, Math.round(SEQ / BLOCK)); i++) {
  for (let k = 0; k < servers.length; k++) {
    const s = servers[(i + k) % servers.length];
    for (let n = 0; n < BLOCK; n++) {
      const t0 = process.hrtime.bigint();
      await once(s);
      b2b[servers.indexOf(s)].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
}

const rate = servers.map(() => []);
const ticks = servers.map(() => 0);
const floors = [];
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < servers.length; k++) {
    const s = servers[(round + k) % servers.length];
    const c0 = treeTicks(s.client.transport.pid);
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: INFLIGHT }, () => once(s)));
    const sec = Number(process.hrtime.bigint() - t0) / 1e9;
    rate[servers.indexOf(s)].push(INFLIGHT / sec);
    ticks[servers.indexOf(s)] += treeTicks(s.client.transport.pid) - c0;
  }
  if (process.env.FLOOR_BENCH) {
    const out = execFileSync(process.env.FLOOR_BENCH, ['floor', '200'], { encoding: 'utf8' });
    floors.push(Number(/^floor_ms (\S+)$/m.exec(out)[1]));
  }
}
const HZ = 100;   // USER_HZ on Linux
const cpu = ticks.map((t) => (t / HZ) * 1000 / (INFLIGHT * ROUNDS));

const fmt = (x) => x.toFixed(3);
for (let k = 0; k < servers.length; k++)
  console.log(`  ${servers[k].name.padEnd(18)} round trip median ${fmt(median(lat[k]))} ms ` +
              `p99 ${fmt(p99(lat[k]))} ms   ${INFLIGHT} in flight: ${median(rate[k]).toFixed(0)} calls/s`);
for (let k = 0; k < servers.length; k++)
  console.log(`  ${servers[k].name.padEnd(18)} back to back: round trip median ${fmt(median(b2b[k]))} ms ` +
              `p99 ${fmt(p99(b2b[k]))} ms`);
console.log(`  CPU per call in flight (the server's whole process tree): toolcage ${fmt(cpu[0])} ms, ` +
            `official ${fmt(cpu[1])} ms`);
console.log(`  ratio toolcage/official: round trip ${(median(lat[0]) / median(lat[1])).toFixed(2)}x ` +
            `(target <= 1.0x), back to back ${(median(b2b[0]) / median(b2b[1])).toFixed(2)}x, throughput ${(median(rate[0]) / median(rate[1])).toFixed(2)}x (target >= 1.0x), ` +
            `CPU per call ${(cpu[0] / cpu[1]).toFixed(2)}x`);
if (floors.length) {
  const floor = median(floors);
  console.log(`  a bare process per call (fork, exit, reap; nothing confined): ${fmt(floor)} ms of CPU, ` +
              `${(floor / cpu[1]).toFixed(2)}x the official server's whole call` +
              (floor >= cpu[1] ? ': a process per call cannot reach its throughput here' : ''));
}
for (const s of servers) await s.client.close();
fs.rmSync(ws, { recursive: true, force: true });
