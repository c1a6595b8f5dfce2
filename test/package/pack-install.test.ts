// The package as a partner gets it: `npm pack`, then `npm install <tarball>` into a fresh project that type-checks
// strict usage files (skipLibCheck off; the Testcontainers module's with `testcontainers` installed, and the snippet
// of docs/containers.md) and runs a small vitest suite against startServer.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { markedSnippet, withoutBlocks } from '../support/doc-pages.js';
import { pack, sh, type PackResult } from '../support/pack.js';

const here = new URL('./fresh-project/', import.meta.url).pathname;

let work: string;
let project: string;
let packed: PackResult;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pack-install-'));
  packed = await pack(work);
  process.stdout.write(
    `package: ${packed.filename}, ${packed.size} B packed, ${packed.unpackedSize} B unpacked, ${packed.entryCount} files\n`,
  );

  project = join(work, 'partner');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'partner-suite', private: true, type: 'module' }),
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        types: ['node'],
      },
      include: ['*.ts'],
    }),
  );
  copyFileSync(join(here, 'usage.ts'), join(project, 'usage.ts'));
  copyFileSync(join(here, 'usage-testcontainers.ts'), join(project, 'usage-testcontainers.ts'));
  writeFileSync(join(project, 'containers-doc.ts'), `${markedSnippet('testcontainers-module', 'ts')}export {};\n`);
  copyFileSync(join(here, 'partner-suite.ts'), join(project, 'fake.test.ts'));
  const devDependencies = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies as Record<
    string,
    string
  >;
  await sh(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(work, packed.filename),
      `typescript@${devDependencies.typescript}`,
      `vitest@${devDependencies.vitest}`,
      `@types/node@${devDependencies['@types/node']}`,
      `testcontainers@${devDependencies.testcontainers}`,
    ],
    project,
  );
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the compiled code, its complete declarations, the README, the docs pages and the license, and nothing else', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/bundle/index.js',
        'dist/bundle/library.js',
        'dist/src/index.d.ts',
        'dist/bundle/cli.js',
        'dist/src/api/schema.d.ts',
        'dist/src/api/openapi.json',
        'dist/src/api/openapi.yaml',
        // beside the document, what partners point other tools at (docs/contract-testing.md)
        'dist/src/api/examples/getAccount_401.json',
        'dist/src/api/redocly.yaml',
        'dist/src/api/.spectral.yaml',
        'docs/readiness.md',
        'docs/configuration.md',
      ]),
    );
    expect(paths.filter((p) => !/^(package\.json|README\.md|LICENSE|dist\/.+|docs\/[\w-]+\.md)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.map') || p.endsWith('.tsbuildinfo'))).toEqual([]);
    // Every declaration a declaration imports is shipped (the generated schema.d.ts was missing once).
    const shipped = new Set(paths);
    for (const file of paths.filter((p) => p.endsWith('.d.ts'))) {
      const text = readFileSync(join(project, 'node_modules/investment-api-fake', file), 'utf8');
      for (const [, spec] of text.matchAll(/from '(\.[^']+)\.js'/g)) {
        const target = join(file, '..', `${spec}.d.ts`);
        expect(shipped.has(target), `${file} imports ${spec}`).toBe(true);
      }
    }
  });

  it('has pages whose relative links all lead to a file it ships, and whose links to the repository name its version tag', () => {
    const shipped = new Set(packed.files.map((f) => f.path));
    const installed = join(project, 'node_modules/investment-api-fake');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const ownerAndName = repository.replace('https://github.com/', '');
    const pages = [...shipped].filter((p) => /^(README|docs\/[\w-]+)\.md$/.test(p));
    const links = pages.flatMap((page) =>
      [...withoutBlocks(page, readFileSync(join(installed, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map(
        ([, link]) => ({ page, link: link! }),
      ),
    );
    const relative = links.filter(({ link }) => !/^[a-z][a-z+.-]*:/i.test(link) && !link.startsWith('#'));
    const targets = relative.map(({ page, link }) => normalize(join(dirname(page), link.split('#')[0]!)));
    expect(targets).toContain('docs/readiness.md');
    expect(relative.filter((_, i) => !shipped.has(targets[i]!))).toEqual([]);
    const toRepository = links.filter(({ link }) =>
      [`${repository}/blob/`, `${repository}/tree/`, `https://raw.githubusercontent.com/${ownerAndName}/`].some(
        (base) => link.startsWith(base),
      ),
    );
    expect(toRepository.length).toBeGreaterThan(20);
    expect(
      toRepository.filter(
        ({ link }) =>
          !link.startsWith(`${repository}/blob/v${manifest.version}/`) &&
          !link.startsWith(`https://raw.githubusercontent.com/${ownerAndName}/v${manifest.version}/`),
      ),
    ).toEqual([]);
  });

  it('declares no `any` a partner could reach: none in any published declaration', () => {
    const installed = join(project, 'node_modules/investment-api-fake');
    const declarations = packed.files.map((f) => f.path).filter((p) => p.endsWith('.d.ts'));
    expect(declarations).toContain('dist/src/control-client.d.ts');
    const anys = declarations.flatMap((file) => {
      const source = ts.createSourceFile(
        file,
        readFileSync(join(installed, file), 'utf8'),
        ts.ScriptTarget.Latest,
        true,
      );
      const found: string[] = [];
      const visit = (node: ts.Node): void => {
        if (node.kind === ts.SyntaxKind.AnyKeyword) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push(`${file}:${line + 1}: ${source.text.split('\n')[line]!.trim()}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    });
    expect(anys).toEqual([]);
  });

  it('has a publishable manifest: public, licensed, no build step on install, engines as tested', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules/investment-api-fake/package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(manifest.scripts.prepare).toBeUndefined();
    expect(manifest.scripts.install).toBeUndefined();
    expect(manifest.scripts.postinstall).toBeUndefined();
    expect(manifest.engines.node).toBe('^20.19.0 || ^22.12.0 || ^24.0.0');
    expect(manifest.type).toBe('module');
  });

  it('type-checks a strict usage file without skipLibCheck, wrong statuses and fields rejected', async () => {
    await sh(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', project], project);
    // The @ts-expect-error lines are errors indeed: without them tsc reports exactly those.
    for (const file of ['usage.ts', 'usage-testcontainers.ts']) {
      writeFileSync(
        join(project, file),
        readFileSync(join(project, file), 'utf8').replaceAll('// @ts-expect-error', '// expected:'),
      );
    }
    const failed = await sh(
      process.execPath,
      [join(project, 'node_modules/typescript/bin/tsc'), '-p', project],
      project,
    ).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(failed).toMatch(
      /usage\.ts\(\d+,\d+\): error TS2345: Argument of type '"SHIPPED"' is not assignable to parameter of type '"PLACED" \| "AWAITING_PAYMENT"/,
    );
    expect(failed).toMatch(/Property 'price_eur' does not exist/);
    expect(failed).toMatch(/Type 'string' is not assignable to type 'number'/);
    expect(failed).toMatch(/Type '"too_slow"' is not assignable to type '"token_per_call" \| /);
    // verify's operation: the document's operation ids, in process and over HTTP
    expect(failed).toMatch(/Type '"listOrder"' is not assignable to type /);
    expect(failed).toMatch(/Type '"cancelOrders"' is not assignable to type /);
    expect(failed).toMatch(/Type '\\?"yesterday\\?"' is not assignable to type/);
    // fake.control.forClient(id) answers the typed control client
    expect(failed).toMatch(/Property 'thisDoesNotExist' does not exist on type 'ControlClient'/);
    // the Testcontainers module's builders are typed
    expect(failed).toMatch(
      /usage-testcontainers\.ts\(\d+,\d+\): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'/,
    );
    expect(failed.match(/error TS/g)).toHaveLength(9);
  }, 300_000);

  it("runs the partner's vitest suite against startServer", async () => {
    const { stdout } = await sh(process.execPath, [join(project, 'node_modules/vitest/vitest.mjs'), 'run'], project);
    expect(stdout).toMatch(/3 passed/);
  }, 120_000);

  it('loads the vitest matchers outside a running test (a plain script, a global setup)', async () => {
    const script = "import('investment-api-fake/vitest').then((m) => console.log(Object.keys(m.matchers).join(',')))";
    const { stdout } = await sh(process.execPath, ['-e', script], project);
    expect(stdout.trim()).toBe('toHaveReceived,toHaveNoReadinessFindings');
    expect(packed.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['dist/bundle/vitest.js', 'dist/src/vitest.d.ts']),
    );
  });

  it('has the Testcontainers module at its own subpath, the only file that imports the optional peer testcontainers', async () => {
    const installed = join(project, 'node_modules/investment-api-fake');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.peerDependenciesMeta.testcontainers).toEqual({ optional: true });
    expect(manifest.dependencies.testcontainers).toBeUndefined();
    const importers = packed.files
      .map((f) => f.path)
      .filter((p) => p.startsWith('dist/bundle/') && p.endsWith('.js'))
      .filter((p) => /from ["']testcontainers["']/.test(readFileSync(join(installed, p), 'utf8')));
    expect(importers).toEqual(['dist/bundle/testcontainers.js']);
    const script =
      "import('investment-api-fake/testcontainers').then((m) => console.log(typeof m.InvestmentApiFakeContainer, m.DEFAULT_IMAGE))";
    const { stdout } = await sh(process.execPath, ['-e', script], project);
    expect(stdout.trim()).toBe(`function ghcr.io/investment-platform/investment-api-fake:${manifest.version}`);
  });

  it('is ESM that require() loads on the supported Node versions, with a CLI on the PATH', async () => {
    const { stdout } = await sh(
      process.execPath,
      ['-e', "console.log(typeof require('investment-api-fake').startServer)"],
      project,
    );
    expect(stdout.trim()).toBe('function');
    const version = await sh(join(project, 'node_modules/.bin/investment-api-fake'), ['--version'], project);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });
});
