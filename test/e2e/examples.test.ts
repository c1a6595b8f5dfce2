import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

// No Docker engine for compose, no GitHub runner here: the CI examples are checked for what the fake needs, and the
// GitHub Actions one is run step by step as a runner would (test/support/action-runner.ts).
const yamlOf = (path: string) => parse(readFileSync(join(ROOT, path), 'utf8'));

interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
const partnerJob = () => yamlOf('examples/github-actions/partner-ci.yml').jobs.integration as { steps: WorkflowStep[] };
const REPOSITORY = 'investment-platform/investment-api-fake';

it('the GitHub Actions example starts the fake with the action of this repository and hands its URL to the suite', () => {
  const steps = partnerJob().steps;
  const fake = steps.find((s) => s.uses === `${REPOSITORY}@v0`)!;
  expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).repository.url).toBe(
    `git+https://github.com/${REPOSITORY}.git`,
  );
  // every input it gives is one the action has
  const inputs = Object.keys((yamlOf('action.yml') as { inputs: Record<string, unknown> }).inputs);
  for (const name of Object.keys(fake.with ?? {})) expect(inputs).toContain(name);
  const suite = steps.find((s) => s.run === 'npx vitest run')!;
  expect(suite.env?.FAKE_URL).toBe(`\${{ steps.${fake.id}.outputs.url }}`);
  expect(suite.env?.CONTROL_TOKEN).toBe(fake.with?.['control-token']);
});

it('the GitHub Actions example writes the reports before it uploads them, with no shell loop left', () => {
  const steps = partnerJob().steps;
  const fake = steps.find((s) => s.uses === `${REPOSITORY}@v0`)!;
  const report = steps.findIndex((s) => s.uses === `${REPOSITORY}/report@v0`);
  const upload = steps.findIndex((s) => s.uses?.startsWith('actions/upload-artifact@'));
  expect(report).toBeGreaterThan(steps.indexOf(fake));
  expect(upload).toBeGreaterThan(report);
  expect(steps[report]!.if).toBe('always()');
  expect(steps[upload]!.if).toBe('always()');
  expect(steps[upload]!.with?.path).toBe(`\${{ steps.${fake.id}.outputs.reports-dir }}`);
  for (const step of steps) expect(step.run ?? '').not.toMatch(/curl|for |__control/);
});

it('the GitHub Actions example runs as written: the action, the suite against its fake, the report step (the package built here in place of the image)', async () => {
  const { execFile } = await import('node:child_process');
  const { RunnerJob } = await import('../support/action-runner.js');
  const { cleanEnv, freePort } = await import('../support/cli.js');
  const steps = partnerJob().steps;
  const fake = steps.find((s) => s.uses === `${REPOSITORY}@v0`)!;
  const suite = steps.find((s) => s.run === 'npx vitest run')!;
  // the expressions of the example: a secret that is not set gives its default
  const outputs: Record<string, string> = {};
  const evaluate = (value: unknown) =>
    String(value).replace(/\$\{\{ (.+?) \}\}/g, (_, expression: string) => {
      const output = /^steps\.fake\.outputs\.(.+)$/.exec(expression);
      if (output) return outputs[output[1]!]!;
      return /\|\| '([^']*)'$/.exec(expression)![1]!;
    });
  const job = new RunnerJob();
  try {
    const inputs = Object.fromEntries(Object.entries(fake.with!).map(([name, value]) => [name, evaluate(value)]));
    const main = await job.main({ ...inputs, package: ROOT, port: String(await freePort()) });
    expect(main.code, main.log).toBe(0);
    Object.assign(outputs, main.outputs);
    const env = Object.fromEntries(Object.entries(suite.env!).map(([name, value]) => [name, evaluate(value)]));
    await new Promise<string>((resolve, reject) => {
      execFile(
        'npx',
        ['vitest', 'run', '--project', 'examples'],
        { cwd: ROOT, env: { ...cleanEnv, ...env } },
        (error, stdout, stderr) => (error ? reject(new Error(`${stdout}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const report = await job.report();
    expect(report.code, report.log).toBe(0);
    const summary = job.summary();
    expect(summary).toContain('**✅ No findings**');
    expect(summary).toMatch(/### ✅ `partner-worker-\d+`: no findings over \d+ requests/);
    const files = readdirSync(evaluate(steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!.with!.path));
    expect(files.filter((f) => /^partner-worker-\d+\.junit\.xml$/.test(f)).length).toBeGreaterThan(0);
    expect((await job.post()).log).toContain('The report step has written the reports and stopped the fake already.');
  } finally {
    if (Object.keys(job.state).length > 0) await job.post();
    job.remove();
  }
}, 180_000);

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
      execFile(
        'npx',
        ['vitest', 'run', '--project', 'examples'],
        { cwd: ROOT, env: { ...cleanEnv, FAKE_URL: fake.url, CONTROL_TOKEN: 'ci-token' } },
        (error, stdout, stderr) => (error ? reject(new Error(`${stdout}\n${stderr}`)) : resolve(stdout)),
      );
    });
    // Every example test must run and pass, however many the examples hold.
    const exampleTests = readdirSync(join(ROOT, 'examples/vitest'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(ROOT, 'examples/vitest', f), 'utf8').match(/^\s*(?:it|test)\(/gm)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(exampleTests).toBeGreaterThan(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal's colour codes
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(new RegExp(`Tests\\s+${exampleTests} passed \\(${exampleTests}\\)`));
    const journal = await fetch(`${fake.url}/__control/requests`, {
      headers: { authorization: 'Bearer ci-token' },
    }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(journal.data.length).toBeGreaterThan(0);
  } finally {
    killLaunched();
  }
}, 120_000);
