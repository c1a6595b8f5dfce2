// The GitHub Action (action.yml) run as the runner runs it (test/support/action-runner.ts): main, the partner's
// requests, then post, with the package built in this repository (`package: <this folder>`), a Node process in the
// background. The same against the image: test/container/github-action.spec.ts.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/index.js';
import { RunnerJob } from '../support/action-runner.js';
import { answers, carefulCalls, misspeltPathThrice } from '../support/action-session.js';
import { freePort, ROOT } from '../support/cli.js';
import { deviatingUpstream } from '../support/deviating-upstream.js';

const exec = promisify(execFile);
const jobs: RunnerJob[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // a test that failed between main and post leaves its fake running: post stops it, as the runner would
  for (const job of jobs.splice(0)) {
    if (Object.keys(job.state).length > 0) await job.post();
    job.remove();
  }
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const newJob = () => {
  const job = new RunnerJob();
  jobs.push(job);
  return job;
};
const files = (dir: string) => readdirSync(dir).sort();
const pidOf = (job: RunnerJob) => (JSON.parse(job.state.fake!) as { runner: { pid: number } }).runner.pid;
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// each test starts processes (main, the fake, post): on a busy 2-core machine one takes 10 to 25 s
describe('the action with the package', { timeout: 90_000 }, () => {
  it('starts the fake, outputs where it answers and its first client; post summarises each client, writes the reports, stops it and fails on findings', async () => {
    const job = newJob();
    const port = await freePort();
    const clients = [
      { client_id: 'acme', client_secret: 'acme-secret' },
      { client_id: 'careful', client_secret: 'careful-secret' },
      { client_id: 'idle', client_secret: 'idle-secret' },
    ];
    const main = await job.main({
      package: ROOT,
      port: String(port),
      seed: '3',
      clients: JSON.stringify(clients),
      'control-token': 'ops-token',
      'fail-on-findings': 'true',
    });
    expect(main.code, main.log).toBe(0);
    const url = `http://127.0.0.1:${port}`;
    expect(main.outputs).toEqual({
      url,
      'token-url': `${url}/oauth2/token`,
      'client-id': 'acme',
      'client-secret': 'acme-secret',
      'reports-dir': expect.stringContaining(job.dir),
    });
    // the secrets are masked in the job's log
    expect(main.log).toContain('::add-mask::ops-token');
    expect(main.log).toContain('::add-mask::acme-secret');
    // the fake outlives main, guarded by the control token
    expect(await answers(url)).toBe(true);
    expect((await fetch(`${url}/__control/clients`)).status).toBe(401);

    await misspeltPathThrice(url, main.outputs['client-id']!, main.outputs['client-secret']!);
    await carefulCalls(url, 'careful', 'careful-secret');

    const post = await job.post();
    expect(post.code, post.log).toBe(1);
    expect(post.log).toMatch(/::error::1 readiness finding\(s\), and fail-on-findings is true\./);
    const summary = job.summary();
    expect(summary).toContain('## investment-api-fake: the API readiness of this run');
    expect(summary).toContain(
      '**❌ 1 finding (1 error)** for 1 of 3 clients. The step fails: `fail-on-findings` is `true`.',
    );
    expect(summary).toMatch(/### ❌ `acme`: 1 finding over 4 requests/);
    expect(summary).toContain(
      '| [`wrong_path`](https://github.com/investment-platform/investment-api-fake/blob/v0.1.0/docs/readiness.md#wrong_path) | error | GET /v1/acounts was sent 3 times and answered 404 route_not_found each time. |',
    );
    expect(summary).toContain('Files: `acme.junit.xml`, `acme.har`, `acme.session.test.ts`');
    expect(summary).toMatch(/### ✅ `careful`: no findings over 2 requests/);
    expect(summary).toContain('No requests from `idle`: its report proves nothing.');

    const reports = main.outputs['reports-dir']!;
    expect(files(reports)).toEqual([
      'acme.har',
      'acme.junit.xml',
      'acme.session.test.ts',
      'careful.junit.xml',
      'fake.log',
      'idle.junit.xml',
      'summary.md',
    ]);
    expect(readFileSync(join(reports, 'summary.md'), 'utf8')).toBe(summary);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(
      readFileSync(join(reports, 'acme.junit.xml'), 'utf8'),
    );
    expect(JSON.stringify(junit)).toContain('wrong_path');
    expect(readFileSync(join(reports, 'acme.junit.xml'), 'utf8')).toContain('<failure');
    expect(readFileSync(join(reports, 'careful.junit.xml'), 'utf8')).not.toContain('<failure');
    const har = JSON.parse(readFileSync(join(reports, 'acme.har'), 'utf8')) as {
      log: { entries: { request: { url: string } }[] };
    };
    expect(har.log.entries.filter((e) => e.request.url.endsWith('/v1/acounts'))).toHaveLength(3);
    expect(readFileSync(join(reports, 'acme.session.test.ts'), 'utf8')).toContain("from 'investment-api-fake'");
    expect(readFileSync(join(reports, 'fake.log'), 'utf8')).toContain(`${port}`);

    // stopped: nothing answers, the process is gone
    expect(await answers(url)).toBe(false);
    expect(running(pidOf(job))).toBe(false);
  });

  it('passes with fail-on-findings when no client has a finding, and a state-dir keeps the tenants the fake wrote on its way out', async () => {
    const job = newJob();
    const port = await freePort();
    const stateDir = join(job.dir, 'fake-state');
    const main = await job.main({
      package: ROOT,
      port: String(port),
      'state-dir': stateDir,
      'fail-on-findings': 'true',
    });
    expect(main.code, main.log).toBe(0);
    expect(main.outputs['client-id']).toBe('sandbox-client');
    await carefulCalls(main.outputs.url!, main.outputs['client-id']!, main.outputs['client-secret']!);

    const post = await job.post();
    expect(post.code, post.log).toBe(0);
    expect(job.summary()).toContain('**✅ No findings** over 2 requests of 1 client.');
    expect(job.summary()).toMatch(/### ✅ `sandbox-client`: no findings over 2 requests/);
    expect(files(main.outputs['reports-dir']!)).toEqual(['fake.log', 'sandbox-client.junit.xml', 'summary.md']);
    expect(readdirSync(join(stateDir, 'tenants'))).toContain('sandbox-client.json');
  });

  it('writes the reports at the report step, for a later upload, and post then has nothing left to do', async () => {
    const job = newJob();
    const port = await freePort();
    const main = await job.main({ package: ROOT, port: String(port) });
    expect(main.code, main.log).toBe(0);
    await misspeltPathThrice(main.outputs.url!, main.outputs['client-id']!, main.outputs['client-secret']!);

    const report = await job.report();
    // fail-on-findings is false by default: the finding is in the summary, the step passes
    expect(report.code, report.log).toBe(0);
    expect(files(main.outputs['reports-dir']!)).toEqual([
      'fake.log',
      'sandbox-client.har',
      'sandbox-client.junit.xml',
      'sandbox-client.session.test.ts',
      'summary.md',
    ]);
    expect(await answers(main.outputs.url!)).toBe(false);
    const summary = job.summary();
    expect(summary).toContain('### ❌ `sandbox-client`: 1 finding');

    const post = await job.post();
    expect(post.code).toBe(0);
    expect(post.log).toContain('The report step has written the reports and stopped the fake already.');
    expect(job.summary()).toBe(summary);
  });

  it("in shadow mode, summarises each client's differences from the upstream by operation and writes the fidelity reports", async () => {
    const behind = await startServer({ seed: 7 });
    const upstream = await deviatingUpstream(behind.url, ({ method, path }, answer) => {
      if (method !== 'GET' || path !== '/v1/orders') return undefined;
      const [first, ...others] = (answer.body as { data: Record<string, unknown>[] }).data;
      return { status: 200, body: { data: [{ ...first, status: 'SETTLED' }, ...others] } };
    });
    cleanups.push(async () => {
      await upstream.close();
      await behind.stop();
    });
    const job = newJob();
    const port = await freePort();
    const main = await job.main({
      package: ROOT,
      port: String(port),
      seed: '7',
      upstream: upstream.url,
      'fail-on-findings': 'true',
    });
    expect(main.code, main.log).toBe(0);
    // the client's own credentials are the upstream's: here the fake behind it has the same default client
    await carefulCalls(main.outputs.url!, 'sandbox-client', 'sandbox-secret');
    const { fetchToken } = await import('../../src/index.js');
    const token = await fetchToken(main.outputs.url!, 'sandbox-client', 'sandbox-secret');
    expect(
      (await fetch(`${main.outputs.url}/v1/orders?limit=5`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);

    const post = await job.post();
    expect(post.code, post.log).toBe(1);
    expect(post.log).toMatch(/::error::1 difference\(s\) from the upstream, and fail-on-findings is true\./);
    const summary = job.summary();
    expect(summary).toContain('**❌ 1 difference from the upstream** for 1 of 1 client.');
    expect(summary).toContain('### ❌ `sandbox-client`: 1 difference over');
    expect(summary).toContain(
      'Differences from the upstream, by operation:\n\n- `listOrders` (1)\n  - `GET /v1/orders`: ',
    );
    expect(summary).toContain('### Shadow mode');
    expect(summary).toContain(`The fake against \`${upstream.url}\``);
    expect(summary).toContain('Files: `fidelity.json`, `fidelity.junit.xml`');
    const reports = main.outputs['reports-dir']!;
    expect(files(reports)).toEqual(
      expect.arrayContaining([
        'fidelity.json',
        'fidelity.junit.xml',
        'sandbox-client.fidelity.test.ts',
        'sandbox-client.junit.xml',
      ]),
    );
    expect(
      (JSON.parse(readFileSync(join(reports, 'fidelity.json'), 'utf8')) as { differences: unknown[] }).differences,
    ).toHaveLength(1);
    expect(readFileSync(join(reports, 'sandbox-client.fidelity.test.ts'), 'utf8')).toContain('SETTLED');
  });

  it('fails main at once on an input it cannot take, naming it, and post then has nothing to stop', async () => {
    const job = newJob();
    const main = await job.main({ package: ROOT, port: 'eighty' });
    expect(main.code).toBe(1);
    expect(main.log).toContain('::error::Input port must be an integer from 1 to 65535. Nothing was started.');
    expect(main.log).not.toContain('eighty');
    expect(main.outputs).toEqual({});
    const post = await job.post();
    expect(post.code).toBe(0);
    expect(post.log).toContain('main started no fake: nothing to report or stop.');
  });

  it('fails main when the port is taken, before starting anything', async () => {
    const other = await startServer({ seed: 1 });
    cleanups.push(() => other.stop());
    const job = newJob();
    const main = await job.main({ package: ROOT, port: new URL(other.url).port });
    expect(main.code).toBe(1);
    expect(main.log).toContain(`::error::Port ${new URL(other.url).port} of 127.0.0.1 is in use already`);
  });
});

// Every input is checked before anything starts, with the fake's own checks; a refusal names the input and never
// shows its value, and nothing a value holds becomes a workflow command. Each case: main fails with one `::error::`
// line, the fake never started (nothing listens on the port, post has nothing to stop).
describe('inputs the action refuses before it starts anything', { timeout: 60_000 }, () => {
  const refused = async (inputs: Record<string, string>, named: RegExp, secrets: readonly string[] = []) => {
    const job = newJob();
    const port = await freePort();
    const main = await job.main({ package: ROOT, port: String(port), ...inputs });
    expect(main.code, main.log).toBe(1);
    // one workflow command, the failure, written by @actions/core: no line of the log is another
    const commands = main.log.split('\n').filter((line) => /^\s*::/.test(line) || line.includes('##['));
    expect(commands, main.log).toEqual([expect.stringMatching(/^::error::/)]);
    expect(commands[0]).toMatch(named);
    expect(commands[0]).toMatch(/Nothing was started\.$/);
    for (const secret of secrets) expect(main.log).not.toContain(secret);
    expect(main.outputs).toEqual({});
    expect(job.state).toEqual({});
    expect(await answers(`http://127.0.0.1:${port}`)).toBe(false);
    const post = await job.post();
    expect(post.code).toBe(0);
    expect(post.log).toContain('main started no fake: nothing to report or stop.');
    return main.log;
  };

  it('a client_id with a line break: no "::warning" from it in the log, and its text not shown', async () => {
    const log = await refused(
      {
        clients: JSON.stringify([
          { client_id: 'acme', client_secret: 'acme-secret' },
          { client_id: 'x\n::warning file=x::injected by client_id', client_secret: 'x-secret' },
        ]),
      },
      /^::error::Input clients: the client_id of client 2 must be 1 to 128 characters of A-Z, a-z, 0-9 and \. _ ~ -\./,
      ['injected by client_id', 'acme-secret', 'x-secret'],
    );
    expect(log).not.toMatch(/^::warning/m);
  });

  it('a client_id of 129 characters', async () => {
    await refused(
      { clients: JSON.stringify([{ client_id: 'a'.repeat(129), client_secret: 's3cret' }]) },
      /^::error::Input clients: the client_id of client 1 must be 1 to 128 characters/,
      ['a'.repeat(129), 's3cret'],
    );
  });

  it('a client with an empty secret', async () => {
    await refused(
      { clients: '[{"client_id":"acme","client_secret":""}]' },
      /^::error::Input clients: every client needs a non-empty "client_id" and "client_secret"\./,
    );
  });

  it('clients that are not JSON, without the parser quoting the text', async () => {
    await refused(
      { clients: '[{"client_id":"acme","client_secret":"hunter2"' },
      /^::error::Input clients must be JSON: /,
      ['hunter2'],
    );
  });

  it('a client secret with a line break in it', async () => {
    await refused(
      { clients: JSON.stringify([{ client_id: 'acme', client_secret: 'top\n::warning::secret' }]) },
      /^::error::Input clients must not hold a line break or another control character in any of its strings\./,
      ['::warning::secret'],
    );
  });

  it('an upstream with credentials, never shown', async () => {
    await refused(
      { upstream: 'https://partner:hunter2@sandbox.example.com' },
      /^::error::Input upstream must not carry credentials \(user:password@\)/,
      ['hunter2', 'partner:'],
    );
  });

  it('a control token with a line break, never shown', async () => {
    await refused(
      { 'control-token': 'ops-token\n::warning::from the token' },
      /^::error::Input control-token must not hold a line break or another control character\./,
      ['ops-token', 'from the token'],
    );
  });

  it('a line break (U+2028 too) in any other input', async () => {
    await refused({ image: 'img\n::warning::x' }, /^::error::Input image must not hold a line break/, ['::warning::x']);
    await refused({ 'state-dir': 'a\u2028b' }, /^::error::Input state-dir must not hold a line break/);
  });

  it('every input it cannot take at once, each named', async () => {
    await refused(
      { seed: '-1', upstream: 'ftp://sandbox.example.com', 'fail-on-findings': 'maybe' },
      /^::error::Input seed must be an integer ≥ 0\. Input upstream must be an http:\/\/ or https:\/\/ URL\. Input fail-on-findings must be true or false\./,
    );
  });
});

describe("the action's files", () => {
  it("action.yml and report/action.yml pass SchemaStore's schema of an action, and the partner workflow that of a workflow (action-validator)", async () => {
    const validator = join(ROOT, 'node_modules/.bin/action-validator');
    for (const file of ['action.yml', 'report/action.yml', 'examples/github-actions/partner-ci.yml']) {
      await expect(
        exec(validator, [join(ROOT, file)]).then(
          () => 'valid',
          (e: { stderr: string }) => e.stderr,
        ),
        file,
      ).resolves.toBe('valid');
    }
  });

  it('action/dist/ is what scripts/bundle-action.mjs makes of action/src/ now (run `npm run build:action` after a change)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'action-dist-'));
    try {
      await exec(process.execPath, [join(ROOT, 'scripts/bundle-action.mjs'), out]);
      const committed = join(ROOT, 'action/dist');
      expect(files(committed)).toEqual(files(out));
      for (const file of files(out))
        expect(readFileSync(join(committed, file), 'utf8'), file).toBe(readFileSync(join(out, file), 'utf8'));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("action.yml's defaults are the action's own: the published image of this version, port 8080, fail-on-findings false", async () => {
    const { parse } = await import('yaml');
    const metadata = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default: string }>;
      runs: Record<string, string>;
    };
    const { DEFAULT_IMAGE, DEFAULT_PORT } = await import('../../action/src/inputs.js');
    const { DEFAULT_IMAGE: moduleImage } = await import('../../src/testcontainers.js');
    expect(metadata.inputs.image!.default).toBe(DEFAULT_IMAGE);
    expect(DEFAULT_IMAGE).toBe(moduleImage);
    expect(metadata.inputs.port!.default).toBe(String(DEFAULT_PORT));
    expect(metadata.inputs['fail-on-findings']!.default).toBe('false');
    expect(Object.keys(metadata.inputs).sort()).toEqual([
      'clients',
      'control-token',
      'fail-on-findings',
      'image',
      'package',
      'port',
      'seed',
      'state-dir',
      'upstream',
    ]);
    expect(metadata.runs).toEqual({
      using: 'node20',
      main: 'action/dist/main.js',
      post: 'action/dist/post.js',
      'post-if': 'always()',
    });
    for (const script of ['main', 'post']) expect(existsSync(join(ROOT, metadata.runs[script]!))).toBe(true);
  });
});
