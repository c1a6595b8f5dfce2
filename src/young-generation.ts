import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import type { FakeOptions } from './config.js';

/**
 * V8 doubles the young generation each time many objects survive a scavenge, as they do while the CLI loads its
 * modules and its first requests prepare the validator and load jsonwebtoken (8 MB, then 16 MB), and it gives that
 * memory back only about ten seconds after the process falls idle: 12 MB of an idle CLI's 77 MB (bench/RESULTS.md).
 * V8 reads the growth factor at each growth, so setting it at run time works (its maximum is fixed at start). The
 * CLI owns its process, so it keeps the young generation small (2 MB on Node 20, 4 MB on Node 24) through startup
 * and its first `requests`, then lets V8 grow it as it would: a load's short-lived garbage is collected more cheaply
 * in a large one (uncached lists ran ~10% slower with it held for good). The library never does this: its process
 * is the partner's.
 *
 * A world of the partner's scale or file is built, and first read, with V8's own sizing: held, what its generation
 * and its first lists allocate is promoted early and stays as old-generation pages (100,000 orders: +15 MB RSS after
 * 300 lists, measured), where a young generation of 16 MB is small beside the world. A large world restored from
 * STATE_DIR is first read with V8's own sizing too.
 */
export const YOUNG_GENERATION_HELD_REQUESTS = 200;

const GROWTH_FLAG = '--semi-space-growth-factor';
/** V8's own default (Node 20 to 24). */
const DEFAULT_GROWTH = 2;

/** Whoever set the young generation's size or growth on the command line or in NODE_OPTIONS keeps their setting. */
export function youngGenerationSetByUser(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--(semi[-_]space[-_]growth[-_]factor|(max|min)[-_]semi[-_]space[-_]size)\b/.test(arg));
}

/** A world other than the default one's size: FIXTURE_ACCOUNTS / FIXTURE_ORDERS, or a fixtures file. */
export const worldBeyondDefault = (options: Pick<FakeOptions, 'fixtures' | 'fixtureScale'>): boolean =>
  options.fixtures !== undefined || options.fixtureScale !== undefined;

/** Records beyond which tenants restored from STATE_DIR are served with V8's own sizing (the default world: ~60). */
export const LARGE_WORLD_RECORDS = 10_000;

/** Whether the tenants an instance holds (restored from STATE_DIR, say) are a large world together. */
export function largeWorld(tenants: Iterable<{ store: { recordCount: number } }>): boolean {
  let records = 0;
  for (const { store } of tenants) records += store.recordCount;
  return records > LARGE_WORLD_RECORDS;
}

/** Stops V8 doubling its young generation; `release` lets it grow again (once, later calls do nothing). */
export function holdYoungGeneration(): { release(): void; releaseAfterRequests(server: Server, requests?: number): void } {
  const held = !youngGenerationSetByUser(process.execArgv, process.env.NODE_OPTIONS);
  if (held) setFlagsFromString(`${GROWTH_FLAG}=1`);
  let released = !held;
  const release = (): void => {
    if (released) return;
    released = true;
    setFlagsFromString(`${GROWTH_FLAG}=${DEFAULT_GROWTH}`);
  };
  return {
    release,
    releaseAfterRequests(server, requests = YOUNG_GENERATION_HELD_REQUESTS) {
      if (released) return;
      let seen = 0;
      const count = (): void => {
        if (++seen < requests) return;
        server.off('request', count);
        release();
      };
      server.on('request', count);
    },
  };
}
