#!/usr/bin/env -S node --expose-gc
// What an open MCP session of /__control/mcp weighs, and what the instance's session caps imply (docs/mcp.md: sessions
// per owner): the heap of N sessions after `initialize`, then after each has listed its tools, and the time
// an `initialize` takes, what one session keeps of each request it answered, and a tool call's time (get_clock,
// snapshot), against dist/ on loopback.
//
//   npm run build && node --expose-gc bench/mcp-sessions.mjs
//
// Figures after a full GC, minus the same process with one session open (the SDK and the tools loaded). Knob: SESSIONS
// (default 100, one owner's cap), CALLS (200).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, requireBuild } from './lib.mjs';

requireBuild();
const SESSIONS = Number(process.env.SESSIONS ?? 100);
const KB = 1024;
const heap = () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const { startServer } = await import(dist.index);
const { MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_OWNER } = await import(
  pathToFileURL(join(dist.root, 'src', 'mcp', 'sessions.js')).href
);
const fake = await startServer({ controlToken: 'bench' });
const endpoint = `${fake.url}/__control/mcp`;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: 'Bearer bench',
};
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});
const open = async () => {
  const response = await fetch(endpoint, { method: 'POST', headers, body: initialize });
  await response.text();
  return response.headers.get('mcp-session-id');
};
const listTools = async (session) => {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await response.text();
};

await listTools(await open());
const base = heap();
const took = [];
const sessions = [];
for (let i = 0; i < SESSIONS; i++) {
  const start = performance.now();
  sessions.push(await open());
  took.push(performance.now() - start);
}
const opened = heap();
for (const session of sessions) await listTools(session);
const listed = heap();
// one session asked again and again: what each answered request leaves behind
const REPEATS = Number(process.env.REPEATS ?? 200);
for (let i = 0; i < REPEATS; i++) await listTools(sessions[0]);
const repeated = heap();
// a tool call on one session, there and back: get_clock (a small answer) and snapshot (the tenant's whole world)
const CALLS = Number(process.env.CALLS ?? 200);
const timedCalls = async (name) => {
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sessions[0] },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {} } }),
    });
    const text = await response.text();
    times.push(performance.now() - start);
    if (!response.ok || text.includes('"isError":true')) throw new Error(`${name} failed: ${text.slice(0, 200)}`);
  }
  return times.sort((a, b) => a - b);
};
const clockCalls = await timedCalls('get_clock');
const snapshotCalls = await timedCalls('snapshot');
await fake.stop();

took.sort((a, b) => a - b);
const perSession = (after) => (after - base) / SESSIONS / KB;
console.log(`MCP sessions (${SESSIONS}, one owner), Node ${process.version}`);
console.log(`  heap per session after initialize   ${perSession(opened).toFixed(1)} KB`);
console.log(`  heap per session after tools/list   ${perSession(listed).toFixed(1)} KB`);
console.log(
  `  heap per tools/list on one session   ${((repeated - listed) / REPEATS / KB).toFixed(1)} KB (${REPEATS} in a row)`,
);
console.log(
  `  initialize, median / p95            ${took[Math.floor(SESSIONS / 2)].toFixed(2)} / ${took[Math.floor(SESSIONS * 0.95)].toFixed(2)} ms`,
);
const medianP95 = (times) =>
  `${times[Math.floor(times.length / 2)].toFixed(2)} / ${times[Math.floor(times.length * 0.95)].toFixed(2)} ms`;
console.log(`  get_clock call, median / p95         ${medianP95(clockCalls)} (${CALLS})`);
console.log(`  snapshot call, median / p95          ${medianP95(snapshotCalls)} (${CALLS})`);
console.log(
  `  one owner at its cap (${MAX_MCP_SESSIONS_PER_OWNER})          ${((perSession(listed) * MAX_MCP_SESSIONS_PER_OWNER) / KB).toFixed(1)} MB`,
);
console.log(
  `  the instance at its cap (${MAX_MCP_SESSIONS})        ${((perSession(listed) * MAX_MCP_SESSIONS) / KB).toFixed(1)} MB`,
);
