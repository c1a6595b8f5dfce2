import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { cleanEnv, ROOT } from '../support/cli.js';

const LIBRARY = pathToFileURL(join(ROOT, 'dist/bundle/index.js')).href;

/** A fresh process: a silent fake serving a token and a read, then one at `info`; prints when pino was loaded. */
const SCRIPT = `
import { createRequire } from 'node:module';
const { startServer } = await import(${JSON.stringify(LIBRARY)});
const pinoLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/pino/'));
const silent = await startServer();
const token = await silent.token();
const status = (await fetch(silent.url + '/v1/share-classes', { headers: { authorization: 'Bearer ' + token } })).status;
const afterSilent = pinoLoaded();
const logging = await startServer({ logLevel: 'error' });
console.log(JSON.stringify({ status, afterSilent, afterLogging: pinoLoaded() }));
await silent.stop();
await logging.stop();
`;

describe("the library's logger", () => {
  it('is not pino while silent (the default): pino loads only for a fake that logs', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { env: cleanEnv }).toString();
    expect(JSON.parse(out)).toEqual({ status: 200, afterSilent: false, afterLogging: true });
  });

  it('silent takes every call and writes nothing; any other level is a pino logger at that level', () => {
    const silent = createLogger('silent');
    for (const method of ['error', 'warn', 'info', 'debug'] as const)
      expect(silent[method]({ any: 'thing' }, 'message')).toBeUndefined();
    expect((createLogger('warn') as { level?: string }).level).toBe('warn');
  });
});
