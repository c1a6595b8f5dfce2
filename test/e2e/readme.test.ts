import { execFileSync } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { killLaunched, launch } from '../support/cli.js';
import { markedSnippet as snippet } from '../support/doc-pages.js';

afterEach(killLaunched);

it('the README curl session runs against a live fake', async () => {
  const { port } = await launch();
  const script = snippet('curl-session').replaceAll('localhost:8080', `localhost:${port}`);
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
  const bodies = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { data?: unknown[] });
  expect(bodies).toHaveLength(3);
  for (const body of bodies) expect(body.data!.length).toBeGreaterThan(0);
  // the README's first session is one the readiness report finds nothing wrong with (no full page left unread)
  const report = (await fetch(`http://127.0.0.1:${port}/__control/report`).then((r) => r.json())) as {
    findings: { code: string }[];
  };
  expect(report.findings.map((f) => f.code)).toEqual([]);
});

it("the verify calls (docs/readiness.md) run after the README's curl session", async () => {
  const { port } = await launch();
  const script = [snippet('curl-session'), snippet('verify')]
    .join('\n')
    .replaceAll('localhost:8080', `localhost:${port}`);
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
  const [, , , holds, fails] = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(holds).toEqual({ matched: 1, requests: ['4'] });
  expect(fails).toMatchObject({ status: 409, code: 'verification_failed', matched: 0 });
  expect(fails.near_misses[0].differences).toEqual([
    { field: 'query.order_status', expected: 'PLACED', actual: 'AWAITING_PAYMENT' },
  ]);
});

it('the order lifecycle (docs/control-plane.md) runs against a live fake', async () => {
  const { port } = await launch();
  const script = snippet('order-lifecycle').replaceAll('localhost:8080', `localhost:${port}`);
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
  const lines = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.slice(0, 3).map((o) => o.status)).toEqual(['AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
  expect(lines[3]).toMatchObject({
    status: 'COMPLETED',
    payment_transaction_reference: expect.stringMatching(/^PAY-[A-Z0-9]{12}$/),
    settlement_transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
  });
  expect(lines[4]).toMatchObject({ status: 409, code: 'order_not_cancellable' });
});

it('the shadow-mode session (docs/shadow-mode.md) runs against a fake in front of a second fake, and reports no difference', async () => {
  const upstream = await launch();
  const shadow = await launch(['--upstream', `http://127.0.0.1:${upstream.port}`]);
  const script = snippet('shadow-session').replaceAll('localhost:8080', `localhost:${shadow.port}`);
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
  const [created, listed, report] = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(created).toMatchObject({ type: 'individual', external_id: 'u-1' });
  expect(listed.data).toEqual([expect.objectContaining({ id: created.id })]);
  expect(report).toMatchObject({
    upstream: `http://127.0.0.1:${upstream.port}`,
    exchanges: 3,
    compared: 3,
    agreed: 3,
    differences: [],
    document_violations: [],
  });
});
