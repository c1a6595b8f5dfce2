import { junitXml, type JunitCase } from '../util/junit.js';
import type { FidelityLog, FidelityReport } from './log.js';

const UNROUTED = '(a path the document does not have)';

type Difference = FidelityReport['differences'][number];

/** A status or error-code difference: each side's problem, code and detail, under the values. */
const problemLines = (d: Difference): string => {
  if (d.upstream_problem === undefined && d.fake_problem === undefined) return '';
  const line = (problem: Difference['upstream_problem']): string =>
    problem
      ? `${problem.status} ${problem.code ?? '(no code)'}${problem.detail ? `: ${problem.detail}` : ''}`
      : '(a success, no problem)';
  return `\nupstream problem: ${line(d.upstream_problem)}\nfake problem:     ${line(d.fake_problem)}`;
};

/**
 * The shadow report as JUnit XML: a test case per operation seen, a `failure` per difference (with both values and
 * the request), the not-comparable exchanges as system-out. No exchange seen: one skipped case (nothing is proven).
 */
export function fidelityJunit(log: FidelityLog, timestamp: Date, clientId?: string): string {
  const report = log.report(clientId);
  const seen = [...log.operationsSeen(clientId).keys()].sort((a, b) => a.localeCompare(b));
  const cases = seen.map((operation): JunitCase => {
    const failures = report.differences
      .filter((d) => (d.operation ?? '') === operation)
      .map((d) => ({
        message: d.heading,
        type: d.kind,
        text: `${d.method} ${d.path} (request ${d.request_id})\n${d.kind} at "${d.pointer}"\nupstream: ${JSON.stringify(d.upstream)}\nfake:     ${JSON.stringify(d.fake)}${problemLines(d)}`,
      }));
    const notComparable = report.not_comparable_exchanges.filter((n) => (n.operation ?? '') === operation);
    const systemOut =
      notComparable.length === 0
        ? undefined
        : notComparable
            .map((n) => `not comparable: ${n.method} ${n.path} (request ${n.request_id}): ${n.reason}`)
            .join('\n');
    return {
      classname: 'fidelity',
      name: operation === '' ? UNROUTED : operation,
      failures,
      ...(systemOut !== undefined && { systemOut }),
    };
  });
  if (cases.length === 0)
    cases.push({
      classname: 'fidelity',
      name: 'shadow session',
      skipped: 'no exchange yet: nothing was forwarded to the upstream',
    });
  return junitXml({
    name: 'investment-api-fake fidelity',
    suite: `fidelity against ${report.upstream}`,
    timestamp,
    properties: [
      ['exchanges', report.exchanges],
      ['compared', report.compared],
      ['agreed', report.agreed],
      ['not_comparable', report.not_comparable],
    ],
    cases,
  });
}
