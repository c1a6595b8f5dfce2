import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { worldBeyondDefault, youngGenerationSetByUser } from '../../src/young-generation.js';
import { cleanEnv, ROOT } from '../support/cli.js';

const MODULE = pathToFileURL(join(ROOT, 'dist/src/young-generation.js')).href;

/**
 * In a child process (the flag is the process's): survivors of many scavenges, with the young generation held, then
 * released by requests to a real server; prints the young generation's size (MB) after each phase.
 */
const SCRIPT = `
import { once } from 'node:events';
import http from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
const { holdYoungGeneration } = await import(${JSON.stringify(MODULE)});
const newSpaceMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const kept = [];
const survive = () => { for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'survivor ' + i }); };
const hold = holdYoungGeneration();
survive();
const held = newSpaceMb();
const server = http.createServer((_q, s) => s.end('ok')).listen(0, '127.0.0.1');
await once(server, 'listening');
hold.releaseAfterRequests(server, 3);
for (let i = 0; i < 3; i++) await (await fetch('http://127.0.0.1:' + server.address().port)).text();
survive();
survive();
console.log(JSON.stringify({ held, released: newSpaceMb(), listeners: server.listenerCount('request') }));
server.close();
`;

describe("the CLI's young generation", () => {
  it('stays at its first size while held, whatever survives, and grows again after the given number of requests', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { env: cleanEnv }).toString();
    const { held, released, listeners } = JSON.parse(out) as { held: number; released: number; listeners: number };
    expect(held).toBeLessThanOrEqual(2);
    expect(released).toBeGreaterThan(held);
    // the counting listener removed itself
    expect(listeners).toBe(1);
  });

  it('a user who set its size or growth keeps their setting', () => {
    expect(youngGenerationSetByUser(['--max-semi-space-size=64'])).toBe(true);
    expect(youngGenerationSetByUser([], '--enable-source-maps --semi_space_growth_factor=4')).toBe(true);
    expect(youngGenerationSetByUser(['--min-semi-space-size=8'])).toBe(true);
    expect(youngGenerationSetByUser(['--max-old-space-size=512'], '--enable-source-maps')).toBe(false);
    expect(youngGenerationSetByUser([])).toBe(false);
  });

  it('is not held for a world of the partner\'s scale or file, which V8 sizes for itself', () => {
    expect(worldBeyondDefault({})).toBe(false);
    expect(worldBeyondDefault({ fixtureScale: { orders: 100_000 } })).toBe(true);
    expect(worldBeyondDefault({ fixtures: 'world.json' })).toBe(true);
  });
});
