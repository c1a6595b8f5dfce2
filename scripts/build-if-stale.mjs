// `npm start`'s prestart: builds only when a source is newer than what the build wrote (or something is missing), so
// a second start does not spend ~20 s rebuilding what it has. `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What the build reads: a change to any of these makes dist/ stale. */
export const BUILD_INPUTS = [
  'src',
  'fixtures',
  'console',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  // copied beside the document (scripts/copy-assets.mjs)
  'redocly.yaml',
  '.spectral.yaml',
];
/** What each build step writes last: the oldest of them is when dist/ was last built whole. */
export const BUILD_OUTPUTS = [
  'dist/src/api/openapi.json',
  'dist/fixtures/default-world.json',
  'dist/bundle/cli.js',
  'dist/console/index.html',
];

function* filesUnder(path) {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (!stat.isDirectory()) {
    yield { path, mtimeMs: stat.mtimeMs };
    return;
  }
  for (const entry of readdirSync(path)) yield* filesUnder(join(path, entry));
}

/** Why `root` needs a build (a missing output, or the newest input and the output it is newer than); undefined when it does not. */
export function whyBuild(root) {
  let built = Number.POSITIVE_INFINITY;
  for (const output of BUILD_OUTPUTS) {
    const path = join(root, output);
    if (!existsSync(path)) return `${output} is missing`;
    built = Math.min(built, statSync(path).mtimeMs);
  }
  for (const input of BUILD_INPUTS) {
    for (const file of filesUnder(join(root, input))) {
      if (file.mtimeMs > built) return `${relative(root, file.path)} is newer than dist/`;
    }
  }
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const why = whyBuild(root);
  if (why === undefined) {
    console.log('dist/ is up to date with the sources: starting without a build (`npm run build` builds anyway).');
  } else {
    console.log(`Building: ${why}.`);
    const build = spawnSync('npm', ['run', 'build'], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
    process.exit(build.status ?? 1);
  }
}
