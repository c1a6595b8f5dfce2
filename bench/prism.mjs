// Prism (@stoplight/prism-cli@5.14.2, the last release for Node 20) mocking our own OpenAPI document: fetched on
// demand with npm into a cache folder outside the project (it is not a dependency), then run as a child process.
//   BENCH_PRISM=0            skip Prism
//   BENCH_PRISM_DIR=<dir>    where to install it (default: <tmpdir>/investment-api-fake-bench/prism-5.14.2)
//   BENCH_PRISM_BIN=<file>   an already installed prism-cli dist/index.js to use instead
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dist, freePort, progress, spawnNode, waitUntilUp } from './lib.mjs';

export const PRISM_VERSION = '5.14.2';
const PACKAGE = `@stoplight/prism-cli@${PRISM_VERSION}`;

function installedBin(dir) {
  const pkg = join(dir, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
  if (!existsSync(pkg)) return undefined;
  const { version } = JSON.parse(readFileSync(pkg, 'utf8'));
  const bin = join(dir, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
  return version === PRISM_VERSION && existsSync(bin) ? bin : undefined;
}

/** Resolves to { bin } or { error } (never throws: without Prism the suite goes on). */
export async function ensurePrism() {
  if (process.env.BENCH_PRISM_BIN) {
    return existsSync(process.env.BENCH_PRISM_BIN)
      ? { bin: process.env.BENCH_PRISM_BIN }
      : { error: `BENCH_PRISM_BIN ${process.env.BENCH_PRISM_BIN} does not exist` };
  }
  const dir = process.env.BENCH_PRISM_DIR || join(tmpdir(), 'investment-api-fake-bench', `prism-${PRISM_VERSION}`);
  const cached = installedBin(dir);
  if (cached) return { bin: cached };
  mkdirSync(dir, { recursive: true });
  progress(`fetching ${PACKAGE} into ${dir} (once)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const outcome = await new Promise((resolve) => {
    execFile(
      npm,
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--loglevel=error',
        '--prefix',
        dir,
        PACKAGE,
      ],
      { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) =>
        resolve(
          error
            ? {
                error: `npm install ${PACKAGE} failed: ${(stderr || error.message).trim().split('\n').slice(-3).join(' ')}`,
              }
            : {},
        ),
    );
  });
  if (outcome.error) return outcome;
  const bin = installedBin(dir);
  return bin ? { bin } : { error: `${PACKAGE} installed, but its dist/index.js was not found in ${dir}` };
}

/** Prism mocking dist/src/api/openapi.json, silent, on a free port of 127.0.0.1. */
export async function startPrism(bin) {
  const port = await freePort();
  const proc = spawnNode([bin, 'mock', '-v', 'silent', '-h', '127.0.0.1', '-p', String(port), dist.openapi]);
  const url = `http://127.0.0.1:${port}`;
  // health has no security requirement, so Prism answers it without an Authorization header
  const startupMs = await waitUntilUp(`${url}/__control/health`, { timeoutMs: 60_000, everyMs: 50, child: proc.child });
  return { ...proc, port, url, startupMs };
}
