import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/index.js';
import { cleanEnv, killLaunched, launch, ROOT } from '../support/cli.js';
import { markedSnippet } from '../support/doc-pages.js';
import { partnerSession } from '../support/pact-session.js';

// docs/pact.md's verify script, saved as the page says and run with Node as it says, in a project where
// `investment-api-fake` (this package, built) and `@pact-foundation/pact` are installed: against a CLI fake
// (FAKE_URL) and against the library fake the script starts itself.
const run = promisify(execFile);
const project = mkdtempSync(join(tmpdir(), 'pact-script-'));
let contract: string;

beforeAll(async () => {
  mkdirSync(join(project, 'node_modules/@pact-foundation'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules/investment-api-fake'));
  symlinkSync(join(ROOT, 'node_modules/@pact-foundation/pact'), join(project, 'node_modules/@pact-foundation/pact'));
  writeFileSync(join(project, 'verify-pact.mjs'), markedSnippet('pact-verify', 'js'));
  const session = await startServer({ seed: 1 });
  try {
    await partnerSession(session);
    contract = session.exportRequests('pact', { consumer: 'my-app' });
  } finally {
    await session.stop();
  }
  mkdirSync(join(project, 'pacts'));
  writeFileSync(join(project, 'pacts/my-app-investment-platform.json'), contract);
});
afterEach(killLaunched);
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** `node verify-pact.mjs <file>` in the project, with these variables: its exit code and output. */
async function verifyScript(file: string, env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['verify-pact.mjs', file], {
      cwd: project,
      env: { ...cleanEnv, PACT_DO_NOT_TRACK: 'true', ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe("docs/pact.md's verify script", { timeout: 120_000 }, () => {
  it('verifies the contract against a running CLI fake given as FAKE_URL', async () => {
    const { url } = await launch(['--seed', '7']);
    const { code, output } = await verifyScript('pacts/my-app-investment-platform.json', { FAKE_URL: url });
    expect(output).toContain(`pacts/my-app-investment-platform.json: verified against ${url}`);
    expect(code).toBe(0);
  });

  it('verifies it against a fresh library fake it starts itself when no FAKE_URL is given', async () => {
    const { code, output } = await verifyScript('pacts/my-app-investment-platform.json');
    expect(output).toMatch(/verified against http:\/\/127\.0\.0\.1:\d+/);
    expect(code).toBe(0);
  });

  it('exits 1 when an answer is not what the contract expects', async () => {
    const broken = JSON.parse(contract) as {
      interactions: { description: string; response: { body: { content: Record<string, unknown> } } }[];
    };
    const refused = broken.interactions.find(
      (i) => i.description === 'DELETE /v1/orders/{order_id}/ answers 409 order_not_cancellable',
    )!;
    refused.response.body.content.code = 'order_cancelled';
    writeFileSync(join(project, 'pacts/broken.json'), JSON.stringify(broken));
    const { code, output } = await verifyScript('pacts/broken.json');
    expect(output).not.toContain('verified against');
    expect(code).toBe(1);
  });
});
