import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

/** What the console ships, gzipped as scripts/build-console.mjs counts it (`npm run test:browser` builds it first). */
function shippedGzippedBytes(): number {
  const assets = new URL('dist/console/assets/', root);
  const files = [...readdirSync(assets).map((name) => new URL(name, assets)), new URL('dist/console/index.html', root)];
  return files.reduce((total, file) => total + gzipSync(readFileSync(file), { level: 9 }).length, 0);
}

it('the README states the console’s size as the build makes it, to the nearest KB', () => {
  const stated = /about (\d+) KB gzipped/.exec(readFileSync(new URL('README.md', root), 'utf8'));
  expect(stated, 'the README names the console’s gzipped size').not.toBeNull();
  expect(
    Math.abs(shippedGzippedBytes() / 1000 - Number(stated![1])),
    'update "about N KB gzipped" in the README',
  ).toBeLessThanOrEqual(1);
});
