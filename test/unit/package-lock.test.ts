import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// `npm install` on a fresh clone rewrites package-lock.json when its root entry says other than package.json (a bin
// moved, a version bumped): the partner's first command would leave a change to commit or revert. `.ci/run` checks
// the tree after an install; this says which field drifted, in the fast suite.
const read = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('package-lock.json', () => {
  it('has the root entry npm install would write from package.json', () => {
    const manifest = read('package.json');
    const lock = read('package-lock.json');
    const root = (lock.packages as Record<string, Record<string, unknown>>)['']!;
    // npm writes bin paths without a leading "./"
    const bin = Object.fromEntries(
      Object.entries(manifest.bin as Record<string, string>).map(([name, path]) => [name, path.replace(/^\.\//, '')]),
    );
    expect({ name: lock.name, version: lock.version }).toEqual({ name: manifest.name, version: manifest.version });
    expect(root).toEqual({
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin,
      devDependencies: manifest.devDependencies,
      engines: manifest.engines,
      peerDependencies: manifest.peerDependencies,
      peerDependenciesMeta: manifest.peerDependenciesMeta,
    });
  });
});
