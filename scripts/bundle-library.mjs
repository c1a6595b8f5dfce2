// The package's entries (index, vitest, testcontainers, cli) bundled from tsc's output into dist/bundle/ by esbuild, dependencies
// left as imports: Node 20 resolves and links each of ~100 ES modules on its own (package scope lookups, stats, a
// compile each), which was about half of the library's import time; a few files load in a fraction of it. tsc's
// per-file output stays in dist/src/: the declarations describe it, the build scripts import it.
//
// `import.meta.url` keeps meaning the original file: every bundled file's occurrences become that file's URL,
// relative to the bundle, so the assets and lazy requires found beside a module (the OpenAPI document, the console,
// Swagger UI, the default world, the fixture generator) are found as before.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const source = new URL('dist/src/', root).pathname;
const outdir = new URL('dist/bundle/', root).pathname;
// `library` is src/index.ts bundled; index.js (written below) loads key-pair-early first.
const ENTRIES = {
  library: 'index.js',
  'key-pair-early': 'auth/key-pair-early.js',
  vitest: 'vitest.js',
  testcontainers: 'testcontainers.js',
  cli: 'cli.js',
};

/** Rewrites `import.meta.url` in each of our files to the URL of the file it was written in. */
const originalImportMetaUrl = {
  name: 'original-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/.*\.js$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      const fromBundle = relative(outdir, path);
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

// stale chunks of an earlier build would otherwise stay
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: Object.entries(ENTRIES).map(([out, entry]) => ({ out, in: `${source}${entry}` })),
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  legalComments: 'none',
  // beside each file, unreferenced and not packed: bench/profile.mjs maps profiles back to dist/src with them
  sourcemap: 'external',
  plugins: [originalImportMetaUrl],
  logLevel: 'warning',
});

// A bundle hoists its imports, so the library's chunk would load Express and the rest before the key pair is started.
// ES modules evaluate in the order they are imported: this entry starts the key pair on the thread pool first, as
// src/index.ts does unbundled.
writeFileSync(
  `${outdir}index.js`,
  "// The library's entry: the process's key pair starts first, then the library loads (scripts/bundle-library.mjs).\n" +
    "import './key-pair-early.js';\nexport * from './library.js';\n",
);
