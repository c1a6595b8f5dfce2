// tsc compiles the TypeScript; the OpenAPI document is read at run time, so it travels beside the compiled code,
// as the YAML users read and as JSON, which starts faster. tsc does not copy hand-written or generated `.d.ts`
// files, so the generated API types are copied too: the published declarations import them.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('..', import.meta.url);
const source = new URL('src/api/openapi.yaml', root);
const target = new URL('dist/src/api/', root);
mkdirSync(target, { recursive: true });
copyFileSync(source, new URL('openapi.yaml', target));
writeFileSync(new URL('openapi.json', target), JSON.stringify(parse(readFileSync(source, 'utf8'))));
copyFileSync(new URL('src/api/schema.d.ts', root), new URL('schema.d.ts', target));
