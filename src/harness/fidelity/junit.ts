import { xmlText } from '../junit.js';
import type { FidelityLog } from './log.js';

const UNROUTED = '(a path the document does not have)';

/**
 * The shadow report as JUnit XML: a test case per operation seen, a `failure` per difference (with both values and
 * the request), the not-comparable exchanges as a case's system-out. No exchange seen: one skipped case, since a
 * report over nothing proves nothing.
 */
export function fidelityJunit(log: FidelityLog, timestamp: Date, clientId?: string): string {
  const report = log.report(clientId);
  const seen = [...log.operationsSeen(clientId)].sort(([a], [b]) => a.localeCompare(b));
  const cases = seen.map(([operation, counts]) => {
    const name = operation === '' ? UNROUTED : operation;
    const mine = report.differences.filter((d) => (d.operation ?? '') === operation);
    const notComparable = report.not_comparable_exchanges.filter((n) => (n.operation ?? '') === operation);
    const open = `    <testcase classname="fidelity" name="${xmlText(name)}" time="0"`;
    const failures = mine.map(
      (d) =>
        `      <failure message="${xmlText(`${d.kind} at ${d.pointer || '(status)'}`)}" type="${xmlText(d.kind)}">${xmlText(
          `${d.method} ${d.path} (request ${d.request_id})\n${d.kind} at "${d.pointer}"\nupstream: ${JSON.stringify(d.upstream)}\nfake:     ${JSON.stringify(d.fake)}`,
        )}</failure>`,
    );
    const out = notComparable.length === 0 ? [] : [`      <system-out>${xmlText(notComparable.map((n) => `not comparable: ${n.method} ${n.path} (request ${n.request_id}): ${n.reason}`).join('\n'))}</system-out>`];
    if (failures.length === 0 && out.length === 0) return `${open}/>`;
    return [`${open}>`, ...failures, ...out, '    </testcase>'].join('\n');
  });
  const nothing = cases.length === 0;
  if (nothing) cases.push('    <testcase classname="fidelity" name="shadow session" time="0">\n      <skipped message="no exchange yet: nothing was forwarded to the upstream"/>\n    </testcase>');
  const failed = seen.filter(([operation]) => report.differences.some((d) => (d.operation ?? '') === operation)).length;
  const counts = `tests="${cases.length}" failures="${failed}" errors="0" skipped="${nothing ? 1 : 0}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="investment-api-fake fidelity" ${counts}>`,
    `  <testsuite name="${xmlText(`fidelity against ${report.upstream}`)}" ${counts} timestamp="${timestamp.toISOString().slice(0, 19)}">`,
    `    <properties><property name="exchanges" value="${report.exchanges}"/><property name="compared" value="${report.compared}"/><property name="agreed" value="${report.agreed}"/><property name="not_comparable" value="${report.not_comparable}"/></properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
