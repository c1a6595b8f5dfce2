// tsc compiles the TypeScript; the OpenAPI document is read at run time, so it travels beside the compiled code,
// as the YAML users read and as JSON, which starts faster. tsc does not copy hand-written or generated `.d.ts`
// files, so the generated API types are copied too: the published declarations import them.
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = new URL('..', import.meta.url);
const source = new URL('src/api/openapi.yaml', root);
const target = new URL('dist/src/api/', root);
mkdirSync(target, { recursive: true });
copyFileSync(source, new URL('openapi.yaml', target));
writeFileSync(new URL('openapi.json', target), JSON.stringify(parse(readFileSync(source, 'utf8'))));
copyFileSync(new URL('src/api/schema.d.ts', root), new URL('schema.d.ts', target));
// What a partner points other tools at, beside the document: Specmatic's external examples (the exchanges that need
// more than a token), and the Redocly and Spectral configurations that turn off only the document's deliberate
// departures from their recommended rules (docs/contract-testing.md).
rmSync(new URL('examples/', target), { recursive: true, force: true });
cpSync(new URL('src/api/examples/', root), new URL('examples/', target), { recursive: true });
for (const config of ['redocly.yaml', '.spectral.yaml']) copyFileSync(new URL(config, root), new URL(config, target));

// The default world, generated once here by the compiled generator: a fresh process reads it instead of loading
// faker (fixtures/world-source.ts). Same seed, same bytes: test/unit/fixtures-golden.test.ts pins the generator.
const { generateWorld } = await import(new URL('dist/fixtures/generate.js', root).href);
const { DEFAULT_WORLD_FILE, DEFAULT_WORLD_SEED } = await import(new URL('dist/fixtures/world-source.js', root).href);
writeFileSync(
  new URL(`dist/fixtures/${DEFAULT_WORLD_FILE}`, root),
  JSON.stringify(generateWorld({ seed: DEFAULT_WORLD_SEED })),
);

// Swagger UI for /docs, copied from the swagger-ui-dist development dependency: the package then serves its API
// reference with no swagger-ui-dist installed, and so without @scarf/scarf's telemetry install script. Its licence,
// notice and the bundle's third-party licences travel with the files (Apache-2.0 asks for them).
const { SWAGGER_UI_FILES, SWAGGER_UI_BUILD_DIR } = await import(new URL('dist/src/http/docs.js', root).href);
const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const swaggerUiTarget = fileURLToPath(new URL(`dist/src/http/${SWAGGER_UI_BUILD_DIR}/`, root));
rmSync(swaggerUiTarget, { recursive: true, force: true });
mkdirSync(swaggerUiTarget, { recursive: true });
for (const file of [...SWAGGER_UI_FILES, 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt']) {
  copyFileSync(join(swaggerUi, file), join(swaggerUiTarget, file));
}
