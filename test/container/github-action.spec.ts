// The GitHub Action (action.yml) with the image built here, run as the runner runs it (test/support/action-runner.ts):
// main starts the container detached (on the host's network: this engine has no bridge), post reads the reports,
// writes the summary and the files, removes the container and fails on findings when asked.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { RunnerJob } from '../support/action-runner.js';
import { answers, carefulCalls, misspeltPathThrice } from '../support/action-session.js';
import { freePort } from '../support/cli.js';
import { docker, IMAGE } from './docker.js';

const jobs: RunnerJob[] = [];
afterEach(async () => {
  for (const job of jobs.splice(0)) {
    if (Object.keys(job.state).length > 0) await job.post();
    job.remove();
  }
});

it('starts the image detached, outputs where it answers; post summarises, writes the reports and the log, removes the container and fails on findings', async () => {
  const job = new RunnerJob();
  jobs.push(job);
  const port = await freePort();
  const stateDir = join(job.dir, 'fake-state');
  const clients = [
    { client_id: 'acme', client_secret: 'acme-secret' },
    { client_id: 'careful', client_secret: 'careful-secret' },
  ];
  const main = await job.main({
    image: IMAGE,
    port: String(port),
    seed: '3',
    clients: JSON.stringify(clients),
    'control-token': 'ops-token',
    'state-dir': stateDir,
    'fail-on-findings': 'true',
  });
  expect(main.code, main.log).toBe(0);
  expect(main.log).toContain(`docker run of the input image (host network, port ${port})`);
  // the inputs' values stay out of the log: the image and the token are named, not shown (the secrets are masked)
  expect(main.log).not.toContain(IMAGE);
  const url = `http://127.0.0.1:${port}`;
  expect(main.outputs).toEqual({
    url,
    'token-url': `${url}/oauth2/token`,
    'client-id': 'acme',
    'client-secret': 'acme-secret',
    'reports-dir': expect.stringContaining(job.dir),
  });
  const id = (JSON.parse(job.state.fake!) as { runner: { kind: string; id: string } }).runner.id;
  expect(await docker('inspect', '--format', '{{.State.Running}} {{.HostConfig.NetworkMode}}', id)).toBe('true host');
  expect((await fetch(`${url}/__control/clients`)).status).toBe(401);

  await misspeltPathThrice(url, 'acme', 'acme-secret');
  await carefulCalls(url, 'careful', 'careful-secret');

  const post = await job.post();
  expect(post.code, post.log).toBe(1);
  expect(post.log).toContain('::error::1 readiness finding(s), and fail-on-findings is true.');
  const summary = job.summary();
  expect(summary).toContain('**❌ 1 finding (1 error)** for 1 of 2 clients.');
  expect(summary).toContain('### ❌ `acme`: 1 finding over 4 requests');
  expect(summary).toContain(
    '[`wrong_path`](https://github.com/investment-platform/investment-api-fake/blob/v0.1.0/docs/readiness.md#wrong_path)',
  );
  expect(summary).toContain('### ✅ `careful`: no findings over 2 requests');
  const reports = main.outputs['reports-dir']!;
  expect(readdirSync(reports).sort()).toEqual([
    'acme.har',
    'acme.junit.xml',
    'acme.session.test.ts',
    'careful.junit.xml',
    'fake.log',
    'summary.md',
  ]);
  expect(readFileSync(join(reports, 'fake.log'), 'utf8')).toContain(`listening on all interfaces, port ${port}`);

  // removed, and what the fake wrote on SIGTERM is in the state folder
  expect(await docker('ps', '--all', '--quiet', '--filter', `id=${id}`)).toBe('');
  expect(await answers(url)).toBe(false);
  expect(readdirSync(join(stateDir, 'tenants')).sort()).toEqual(['acme.json', 'careful.json']);
});

it('refuses a client_id with a line break before it runs a container: one ::error:: line, no ::warning from the value', async () => {
  const job = new RunnerJob();
  jobs.push(job);
  const before = await docker('ps', '--all', '--quiet', '--filter', 'label=investment-api-fake.action=main');
  const main = await job.main({
    image: IMAGE,
    port: String(await freePort()),
    clients: JSON.stringify([{ client_id: 'x\n::warning file=x::injected by client_id', client_secret: 's' }]),
  });
  expect(main.code, main.log).toBe(1);
  expect(main.log).toMatch(/^::error::Input clients: the client_id of client 1 must be 1 to 128 characters/m);
  expect(main.log).not.toMatch(/^\s*::warning/m);
  expect(main.log).not.toContain('injected by client_id');
  expect(job.state).toEqual({});
  expect(await docker('ps', '--all', '--quiet', '--filter', 'label=investment-api-fake.action=main')).toBe(before);
});
