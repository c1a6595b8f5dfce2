// What a partner's `npm install` brings in: the packed tarball installed with --omit=dev into a fresh project. No
// package in that tree runs an install script (no telemetry, nothing built on install), and /docs is served from the
// package's own copy of Swagger UI, with no swagger-ui-dist (whose @scarf/scarf phones home on install).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { pack, sh } from '../support/pack.js';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;

interface LockedPackage {
  dev?: boolean;
  hasInstallScript?: boolean;
}
const lockedPackages = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> })
    .packages;

/** What npm would run on install: a lifecycle script, or `node-gyp rebuild` for a binding.gyp with no install script. */
function installScriptsOf(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const scripts = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name]).map(
    (name) => `${name}: ${manifest.scripts![name]}`,
  );
  return scripts.length === 0 && existsSync(join(packageDir, 'binding.gyp'))
    ? ['install: node-gyp rebuild (binding.gyp)']
    : scripts;
}

// Run in the partner's project: starts the installed package, fetches /docs and every file the page links to.
const SERVE_DOCS = `
import { createHash } from 'node:crypto';
import { startServer } from 'investment-api-fake';
const fake = await startServer();
try {
  const page = await fetch(fake.url + '/docs');
  const html = await page.text();
  const answers = [{ path: '/docs', status: page.status, html }];
  for (const [, path] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    const response = await fetch(fake.url + path);
    const body = Buffer.from(await response.arrayBuffer());
    answers.push({ path, status: response.status, sha256: createHash('sha256').update(body).digest('hex') });
  }
  console.log(JSON.stringify(answers));
} finally {
  await fake.stop();
}
`;

let work: string;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'production-tree-'));
  const packed = await pack(work);
  project = join(work, 'partner');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  // --ignore-scripts changes nothing in the tree this test inspects; it only keeps a regression (an install script
  // come back) from running here, telemetry included.
  await sh(
    'npm',
    [
      'install',
      '--omit=dev',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(work, packed.filename),
    ],
    project,
  );
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the installed package tree (npm install --omit=dev of the tarball)', () => {
  it('holds no package with an install script, nor @scarf/scarf or swagger-ui-dist', () => {
    const installed = Object.keys(lockedPackages(project)).filter((path) => path.startsWith('node_modules/'));
    // the whole production tree is there (express and its dependencies), so the check below has something to check
    expect(installed).toEqual(expect.arrayContaining(['node_modules/investment-api-fake', 'node_modules/express']));
    expect(installed.length).toBeGreaterThan(50);
    const withScripts = installed
      .map((path) => [path, installScriptsOf(join(project, path))] as const)
      .filter(([, scripts]) => scripts.length > 0);
    expect(withScripts).toEqual([]);
    expect(installed.filter((path) => /(^|\/)node_modules\/(@scarf\/|swagger-ui)/.test(path))).toEqual([]);
  });

  it('serves /docs and every file it links to (200) from the package, byte for byte Swagger UI, no CDN', async () => {
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', SERVE_DOCS], project);
    const [page, ...assets] = JSON.parse(stdout) as { path: string; status: number; html?: string; sha256?: string }[];
    expect(page!.status).toBe(200);
    expect(page!.html).not.toMatch(/https?:\/\//);
    expect(assets.map((a) => a.path)).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']),
    );
    for (const asset of assets) expect(asset.status, asset.path).toBe(200);
    for (const asset of assets.filter((a) => a.path.startsWith('/docs/assets/'))) {
      const original = readFileSync(join(ROOT, 'node_modules/swagger-ui-dist', basename(asset.path)));
      expect(asset.sha256, asset.path).toBe(createHash('sha256').update(original).digest('hex'));
    }
  }, 60_000);
});

describe("the repository's lockfile (what the image's npm ci --omit=dev installs)", () => {
  it('has no production package with an install script', () => {
    const production = Object.entries(lockedPackages(ROOT)).filter(
      ([path, entry]) => path.startsWith('node_modules/') && !entry.dev,
    );
    expect(production.length).toBeGreaterThan(50);
    expect(production.filter(([, entry]) => entry.hasInstallScript).map(([path]) => path)).toEqual([]);
  });
});
