import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

// No Docker engine or GitHub runner here: check that the CI examples say what the fake needs.
const yamlOf = (path: string) => parse(readFileSync(join(ROOT, path), 'utf8'));

it('the GitHub Actions example runs the fake as a service container the suite reaches by FAKE_URL', () => {
  const workflow = yamlOf('examples/github-actions/partner-ci.yml');
  const job = workflow.jobs.integration;
  expect(job.services.fake.ports).toContain('8080:8080');
  expect(job.services.fake.options).toMatch(/--health-retries/);
  expect(job.env.FAKE_URL).toBe('http://localhost:8080');
  expect(job.services.fake.env.CONTROL_TOKEN).toBe(job.env.CONTROL_TOKEN);
  expect(job.steps.map((s: { run?: string }) => s.run)).toContain('npx vitest run');
});

it('the GitHub Actions example shows the readiness report as test results and keeps the sessions', () => {
  const job = yamlOf('examples/github-actions/partner-ci.yml').jobs.integration;
  const steps = job.steps as { uses?: string; run?: string; if?: string; with?: Record<string, unknown> }[];
  const fetch = steps.find((s) => s.run?.includes('/__control/report?format=junit'));
  expect(fetch?.if).toBe('always()');
  expect(fetch?.run).toContain('/__control/export?format=har');
  const report = steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report@'));
  expect(report?.with?.report_paths).toBe('readiness/*.xml');
  expect(report?.if).toBe('always()');
  expect(job.permissions.checks).toBe('write');
  expect(steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.with?.path).toBe('readiness/');
});

it('the docker-compose example builds the image and waits for its health check', () => {
  const compose = yamlOf('examples/docker-compose.yml');
  expect(compose.services.fake.build).toBe('..');
  expect(compose.services.fake.healthcheck.test.join(' ')).toContain('/__control/health');
  expect(compose.services.tests.depends_on.fake.condition).toBe('service_healthy');
  expect(compose.services.tests.environment.FAKE_URL).toBe('http://fake:8080');
  expect(compose.services.tests.environment.CONTROL_TOKEN).toBe(compose.services.fake.environment.CONTROL_TOKEN);
});

it('the vitest example uses FAKE_URL when set, so the same suite runs against a container', () => {
  expect(readFileSync(join(ROOT, 'examples/vitest/global-setup.ts'), 'utf8')).toContain('process.env.FAKE_URL');
});

it('the vitest example passes against a separate fake process guarded by CONTROL_TOKEN, as in CI', async () => {
  const { execFile } = await import('node:child_process');
  const { launch, killLaunched, cleanEnv } = await import('../support/cli.js');
  const fake = await launch([], { CONTROL_TOKEN: 'ci-token' });
  try {
    const output = await new Promise<string>((resolve, reject) => {
      execFile('npx', ['vitest', 'run', '--project', 'examples'], { cwd: ROOT, env: { ...cleanEnv, FAKE_URL: fake.url, CONTROL_TOKEN: 'ci-token' } }, (error, stdout, stderr) =>
        error ? reject(new Error(`${stdout}\n${stderr}`)) : resolve(stdout));
    });
    // Every example test must run and pass, however many the examples hold.
    const exampleTests = readdirSync(join(ROOT, 'examples/vitest')).filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(ROOT, 'examples/vitest', f), 'utf8').match(/^\s*(?:it|test)\(/gm)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(exampleTests).toBeGreaterThan(0);
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(new RegExp(`Tests\\s+${exampleTests} passed \\(${exampleTests}\\)`));
    const journal = await fetch(`${fake.url}/__control/requests`, { headers: { authorization: 'Bearer ci-token' } }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(journal.data.length).toBeGreaterThan(0);
  } finally {
    killLaunched();
  }
}, 120_000);
