import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Bottom to top: a module imports only from its own layer or below (see ARCHITECTURE.md). */
const LAYERS: readonly (readonly string[])[] = [
  // general utilities any room may use (slices, JUnit)
  ['util'],
  ['api'],
  // the tenant's records, which the domain may use
  ['store', 'records'],
  ['domain'],
  // the readers that prove things from the records (readiness, verify, exports): above the domain
  ['proof'],
  ['auth'],
  ['persistence'],
  ['config.ts', 'settings-checks.ts', 'context.ts', 'logger.ts', 'package-info.ts'],
  ['http'],
  ['control'],
  // shadow mode (--upstream): forwarding, twins, trust, the upstream client, the comparison and its report (src/shadow/)
  ['shadow'],
  // the control plane's clients: typed (control-client.ts) and as MCP tools, which call it (mcp/)
  ['control-client.ts', 'mcp'],
  // the demo partner: a partner's session over HTTP, started by the composition (src/demo/)
  ['demo'],
  [
    'app.ts',
    'server.ts',
    'token-keeper.ts',
    'drain.ts',
    'index.ts',
    'cli.ts',
    'cli-mcp.ts',
    'banner.ts',
    'log-format.ts',
    'process-guard.ts',
    'vitest.ts',
    'testcontainers.ts',
    'container-settings.ts',
    'container-network.ts',
  ],
];

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

const unitOf = (file: string): string => relative(SRC, file).split('/')[0]!;
const rankOf = (file: string): number => LAYERS.findIndex((layer) => layer.includes(unitOf(file)));

// Files of one top-level layer may import each other (the cycle check still applies); folders of one layer may not.
const isTopLevelFile = (file: string): boolean => unitOf(file).endsWith('.ts');

/** Relative imports, type-only ones included: a type import is an arrow between layers too. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')),
  );
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => target.startsWith(SRC))]));

describe('layers', () => {
  it('every source file belongs to a layer', () => {
    expect(files.filter((f) => rankOf(f) === -1).map((f) => relative(SRC, f))).toEqual([]);
  });

  it('every import runs down (or within one folder), never up or sideways', () => {
    const wrong = [...graph].flatMap(([from, targets]) =>
      targets
        .filter(
          (to) =>
            unitOf(to) !== unitOf(from) &&
            !(rankOf(to) < rankOf(from) || (rankOf(to) === rankOf(from) && isTopLevelFile(to))),
        )
        .map((to) => `${relative(SRC, from)} → ${relative(SRC, to)}`),
    );
    expect(wrong).toEqual([]);
  });

  it('no import cycle between files', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
