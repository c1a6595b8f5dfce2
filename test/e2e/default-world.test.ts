import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { DEFAULT_WORLD_FILE, DEFAULT_WORLD_SEED } from '../../fixtures/world-source.js';

// The build writes the default world for a fresh process to read instead of loading faker (fixtures/world-source.ts):
// it is the generator's world of that seed, byte for byte (the global setup has just built dist/).
it('dist/fixtures/default-world.json is the generated world of the default seed', () => {
  const built = readFileSync(new URL(`../../dist/fixtures/${DEFAULT_WORLD_FILE}`, import.meta.url), 'utf8');
  expect(built).toBe(JSON.stringify(generateWorld({ seed: DEFAULT_WORLD_SEED })));
});
