// The sandbox console: console/src bundled by esbuild into dist/console (index.html + hashed assets), no CDN.
// Prints the bytes shipped, raw and gzipped.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const out = new URL('dist/console/', root);
rmSync(out, { recursive: true, force: true });
mkdirSync(new URL('assets/', out), { recursive: true });

const result = await build({
  entryPoints: [new URL('console/src/main.tsx', root).pathname],
  outdir: new URL('assets/', out).pathname,
  entryNames: 'app-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome115', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (!js || !css) throw new Error(`esbuild answered no JS or CSS: ${outputs.join(', ')}`);
const html = readFileSync(new URL('console/index.html', root), 'utf8').replace('%JS%', js).replace('%CSS%', css);
writeFileSync(new URL('index.html', out), html);

let raw = 0;
let gzipped = 0;
for (const file of [...outputs.map((f) => new URL(`assets/${f}`, out)), new URL('index.html', out)]) {
  const bytes = readFileSync(file);
  raw += bytes.length;
  gzipped += gzipSync(bytes, { level: 9 }).length;
}
console.log(`console: ${outputs.join(', ')}, index.html: ${raw} bytes, ${gzipped} gzipped`);
