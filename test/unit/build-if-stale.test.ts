import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository, without declarations
import { BUILD_INPUTS, BUILD_OUTPUTS, whyBuild } from '../../scripts/build-if-stale.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A checkout whose files were last written at `at` (seconds): the sources, and (when built) what the build wrote. */
function checkout(built: boolean, at = 1_000_000): string {
  const root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  roots.push(root);
  const files = [
    'src/index.ts',
    'console/src/app.tsx',
    'fixtures/generate.ts',
    'package.json',
    ...(built ? (BUILD_OUTPUTS as string[]) : []),
  ];
  for (const file of files) touch(root, file, at);
  return root;
}

function touch(root: string, file: string, at: number): void {
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  utimesSync(path, at, at);
}

describe('npm start builds only when the sources are newer than dist/', () => {
  it('builds a checkout never built, naming the first output missing', () => {
    expect(whyBuild(checkout(false))).toBe(`${BUILD_OUTPUTS[0]} is missing`);
  });

  it('starts a built checkout as it is, however often', () => {
    const root = checkout(true);
    expect(whyBuild(root)).toBeUndefined();
    expect(whyBuild(root)).toBeUndefined();
  });

  it('builds again when any source changed after the build, or an output is gone', () => {
    for (const changed of ['src/domain/new.ts', 'console/src/app.tsx', 'fixtures/generate.ts', 'package.json']) {
      const root = checkout(true);
      touch(root, changed, 1_000_001);
      expect(whyBuild(root), changed).toBe(`${changed} is newer than dist/`);
    }
    const root = checkout(true);
    rmSync(join(root, 'dist/bundle/cli.js'));
    expect(whyBuild(root)).toBe('dist/bundle/cli.js is missing');
  });

  it('reads what the build reads: the sources, the console, the fixtures, its scripts and the manifests', () => {
    expect(BUILD_INPUTS).toEqual(
      expect.arrayContaining([
        'src',
        'console',
        'fixtures',
        'scripts',
        'package.json',
        'package-lock.json',
        'tsconfig.build.json',
      ]),
    );
  });
});
