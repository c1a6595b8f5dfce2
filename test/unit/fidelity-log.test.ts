import { describe, expect, it } from 'vitest';
import { FidelityLog, REPORT_LIST_LIMIT, type ExchangeOutcome } from '../../src/shadow/log.js';

let ids = 0;
/** An exchange of `clientId` whose answers differed at `differences` places. */
const differing = (clientId: string | null, differences: number): ExchangeOutcome => ({
  requestId: String(++ids),
  clientId,
  operation: 'listAccounts',
  method: 'GET',
  path: '/v1/accounts',
  result: {
    findings: Array.from({ length: differences }, (_, i) => ({
      kind: 'value' as const,
      pointer: `/data/${i}`,
      upstream: 1,
      fake: 2,
    })),
  },
  violations: [],
});

describe("shadow mode's findings, kept per client", () => {
  it("keeps a client's first differences even after another client's filled a whole list", () => {
    const log = new FidelityLog('https://upstream.example', { clients: 3 });
    log.add(differing('noisy', REPORT_LIST_LIMIT + 10));
    const quiet = differing('quiet', 2);
    log.add(quiet);
    expect(log.report('quiet').differences.map((d) => d.request_id)).toEqual([quiet.requestId, quiet.requestId]);
    expect(log.report('noisy').differences).toHaveLength(REPORT_LIST_LIMIT);
    expect(log.report('noisy')).toMatchObject({
      compared: 1,
      operations: [{ operation: 'listAccounts', differences: REPORT_LIST_LIMIT + 10 }],
    });
  });

  it("shows the operator every client's first items in the order they came, at most REPORT_LIST_LIMIT of each list", () => {
    const log = new FidelityLog('https://upstream.example', { clients: 3 });
    const [a1, b1, a2] = [differing('a', 1), differing('b', 1), differing('a', 1)];
    for (const outcome of [a1, b1, a2]) log.add(outcome);
    expect(log.report().differences.map((d) => d.request_id)).toEqual([a1, b1, a2].map((o) => o.requestId));
    log.add(differing('b', REPORT_LIST_LIMIT));
    const report = log.report();
    expect(report.differences).toHaveLength(REPORT_LIST_LIMIT);
    expect(report.differences.slice(0, 3).map((d) => d.request_id)).toEqual([a1, b1, a2].map((o) => o.requestId));
    expect(report.compared).toBe(4);
  });

  it('keeps at most its clients apart: made-up client ids past them are counted with no client, never each in an entry of its own', () => {
    const log = new FidelityLog('https://upstream.example', { clients: 2 });
    for (let i = 0; i < 50; i++) log.add(differing(`made-up-${i}`, 1));
    expect(log.report('made-up-7').compared).toBe(1);
    expect(log.report('made-up-8').compared).toBe(0);
    expect(log.report().compared).toBe(50);
    expect(log.report().differences).toHaveLength(50);
  });

  it('holds at most its clients’ worth in all, and forgetting one client makes room again', () => {
    const log = new FidelityLog('https://upstream.example', { clients: 2 });
    for (const client of ['a', 'b', 'c']) log.add(differing(client, REPORT_LIST_LIMIT));
    expect(log.report().differences).toHaveLength(REPORT_LIST_LIMIT);
    expect(log.report('c')).toMatchObject({ compared: 1, differences: [] });
    log.clear('a');
    log.add(differing('c', 1));
    expect(log.report('c').differences).toHaveLength(1);
    log.clear();
    expect(log.report()).toMatchObject({ exchanges: 0, differences: [], operations: [] });
  });
});
