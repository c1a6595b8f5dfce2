import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { ROOT } from '../support/cli.js';
import { markedSnippet } from '../support/doc-pages.js';

/**
 * A foreign OAuth client: Python's authlib (requests), as examples/python/token_client.py uses it. It runs where a
 * python3 with requests and authlib is found (Debian: python3-requests python3-authlib) and is skipped, saying so,
 * elsewhere: the suites need Node alone. Under CI=true (.ci/run installs them) a missing one fails instead.
 */
const python = ['python3', '/usr/bin/python3'].find((candidate) => {
  try {
    execFileSync(candidate, ['-c', 'import requests, authlib'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

if (!python && process.env.CI === 'true')
  throw new Error('CI=true but no python3 with requests and authlib: apt-get install python3-requests python3-authlib');

const SCRIPT = join(ROOT, 'examples/python/token_client.py');
const authlibVersion = python
  ? execFileSync(python, ['-c', 'import authlib; print(authlib.__version__)'], { encoding: 'utf8' }).trim()
  : '';
// authlib 1.2 (Debian 12's) sends Basic credentials as they are; later releases may encode them as RFC 6749 asks
const sendsRawBasic = /^1\.[0-2]\./.test(authlibVersion);

describe.skipIf(!python)(
  `authlib ${authlibVersion} (${python ?? 'no python3 with requests and authlib here'}) against the fake`,
  () => {
    let fake: FakeServer;
    beforeAll(async () => {
      fake = await startServer({
        clients: [
          { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
          {
            client_id: 'basic-partner',
            client_secret: 'basic-secret',
            token_endpoint_auth_method: 'client_secret_basic',
          },
          { client_id: 'plus-partner', client_secret: 'a+b', token_endpoint_auth_method: 'client_secret_basic' },
          { client_id: 'percent-partner', client_secret: '100%zz', token_endpoint_auth_method: 'client_secret_basic' },
        ],
      });
    });
    afterAll(() => fake.stop());

    const run = async (clientId: string, secret: string, method: string) => {
      const { stdout } = await promisify(execFile)(python!, [SCRIPT, fake.url, clientId, secret, method], {
        timeout: 15_000,
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };

    it('a client_secret_post client told so gets a token and reads the API', async () => {
      expect(await run('sandbox-client', 'sandbox-secret', 'client_secret_post')).toEqual({
        scope: 'openid offline read:accounts write:accounts read:orders write:orders read:assets read:documents',
        token_type: 'Bearer',
        share_classes_status: 200,
      });
    });

    it('the same client left at authlib’s default (client_secret_basic) is refused, told which method to configure', async () => {
      const refused = await run('sandbox-client', 'sandbox-secret', 'client_secret_basic');
      expect(refused.error).toBe('invalid_client');
      expect(refused.error_description).toMatch(
        /registered for client_secret_post .* used client_secret_basic .* use client_secret_post\.$/,
      );
    });

    it('a client_secret_basic client gets a token by authlib’s default, and is refused in the form', async () => {
      expect(await run('basic-partner', 'basic-secret', 'client_secret_basic')).toMatchObject({
        token_type: 'Bearer',
        share_classes_status: 200,
      });
      const refused = await run('basic-partner', 'basic-secret', 'client_secret_post');
      expect(refused.error).toBe('invalid_client');
      expect(refused.error_description).toMatch(/registered for client_secret_basic .* used client_secret_post/);
    });

    it.runIf(sendsRawBasic)(
      'authlib 1.2 sends Basic credentials without form-urlencoding them: a + reads as a space, a stray % is undecodable (docs/api.md)',
      async () => {
        expect(await run('plus-partner', 'a+b', 'client_secret_basic')).toMatchObject({
          error: 'invalid_client',
          error_description: expect.stringMatching(/wrong client_secret/),
        });
        expect(await run('percent-partner', '100%zz', 'client_secret_basic')).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringMatching(
            /^The Authorization header is not HTTP Basic credentials .*form-urlencoded first/,
          ),
        });
      },
    );

    it('the authlib snippet of docs/api.md gets a token', async () => {
      const snippet = markedSnippet('authlib-token', 'python');
      const program = `${snippet.replaceAll('http://localhost:8080', fake.url).replaceAll('"localhost:8080"', JSON.stringify(new URL(fake.url).host))}print(token["token_type"])\n`;
      const { stdout } = await promisify(execFile)(python!, ['-c', program], { timeout: 15_000 });
      expect(stdout.trim()).toBe('Bearer');
    });

    it('the readiness report names the mismatch for the client that met it', async () => {
      const report = await fake.control.forClient('sandbox-client').report();
      expect(report.findings.map((f) => f.code)).toContain('token_auth_method_mismatch');
    });
  },
);
