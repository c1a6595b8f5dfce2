import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LARGE_WORLD_RECORDS, largeWorld, worldBeyondDefault, youngGenerationSetByUser } from '../../src/young-generation.js';
import { cleanEnv, ROOT } from '../support/cli.js';

const MODULE = pathToFileURL(join(ROOT, 'dist/src/young-generation.js')).href;

/**
 * In a child process (the flag is the process's): survivors of many scavenges, with the young generation held or
 * not (argv), then released by requests to a real server; prints the young generation's size (MB) after the
 * survivors and again after more of them once released.
 */
const SCRIPT = `
import { once } from 'node:events';
import http from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
const { holdYoungGeneration } = await import(${JSON.stringify(MODULE)});
const newSpaceMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const kept = [];
const survive = () => { for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'survivor ' + i }); };
const hold = process.argv[1] === 'hold' ? holdYoungGeneration() : undefined;
survive();
const afterSurvivors = newSpaceMb();
const server = http.createServer((_q, s) => s.end('ok')).listen(0, '127.0.0.1');
await once(server, 'listening');
hold?.releaseAfterRequests(server, 3);
for (let i = 0; i < 3; i++) await (await fetch('http://127.0.0.1:' + server.address().port)).text();
survive();
survive();
console.log(JSON.stringify({ afterSurvivors, afterRelease: newSpaceMb(), listeners: server.listenerCount('request') }));
server.close();
`;

type Sizes = { afterSurvivors: number; afterRelease: number; listeners: number };
const run = (mode: 'hold' | 'free'): Sizes =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT, mode], { env: cleanEnv }).toString()) as Sizes;

describe("the CLI's young generation", () => {
  it('stays small while held, whatever survives, and grows again after the given number of requests', () => {
    const held = run('hold');
    const free = run('free');
    // Node 20: 2 MB held against 32 MB free; Node 24: 4 against 64. Node sizes the young generation's maximum from
    // the machine's memory: where that leaves it no room to grow (a ~1 GB container), held and free are alike.
    expect(held.afterSurvivors).toBeLessThanOrEqual(4);
    expect(held.afterSurvivors).toBeLessThanOrEqual(free.afterSurvivors);
    if (free.afterSurvivors >= 16) {
      expect(held.afterSurvivors * 4).toBeLessThanOrEqual(free.afterSurvivors);
      expect(held.afterRelease).toBeGreaterThan(held.afterSurvivors);
    }
    // the counting listener removed itself
    expect(held.listeners).toBe(1);
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
    // tenants restored from STATE_DIR: their records together
    const tenants = (...counts: number[]) => counts.map((recordCount) => ({ store: { recordCount } }));
    expect(largeWorld(tenants(60, 60, 60))).toBe(false);
    expect(largeWorld(tenants(LARGE_WORLD_RECORDS / 2, LARGE_WORLD_RECORDS / 2 + 1))).toBe(true);
  });
});
