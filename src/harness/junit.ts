import { READINESS_RULES, type ReadinessCode, type ReadinessReport } from './readiness-report.js';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// Characters XML 1.0 cannot hold at all, even escaped (a partner's path may carry them percent-decoded).
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text for an XML attribute or element. */
export const xmlText = (text: string): string => text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/**
 * The readiness report as JUnit XML (the format CI test tabs read): one test case per rule, a `failure` per finding
 * (its hint and request ids in the text). A report over no requests proves nothing: every case is `skipped`.
 */
export function readinessJunit(report: ReadinessReport, timestamp: Date): string {
  const noRequests = report.requests_seen === 0;
  const suite = `readiness of ${report.client_id}`;
  const cases = (Object.keys(READINESS_RULES) as ReadinessCode[]).map((code) => {
    const findings = report.findings.filter((f) => f.code === code);
    const open = `    <testcase classname="${xmlText(`readiness.${code}`)}" name="${xmlText(`${code}: ${READINESS_RULES[code].title}`)}" time="0"`;
    if (noRequests) return `${open}>\n      <skipped message="no requests yet: the client sent no verified request to this tenant"/>\n    </testcase>`;
    if (findings.length === 0) return `${open}/>`;
    const failures = findings.map(
      (f) =>
        `      <failure message="${xmlText(f.message)}" type="${xmlText(`${f.severity}:${f.code}`)}">${xmlText(
          `${f.message}\nHint: ${f.hint}\nRequests: ${f.requests.join(', ')}\nDocs: ${f.docs}`,
        )}</failure>`,
    );
    return `${open}>\n${failures.join('\n')}\n    </testcase>`;
  });
  const failed = new Set(report.findings.map((f) => f.code)).size;
  const counts = `tests="${cases.length}" failures="${noRequests ? 0 : failed}" errors="0" skipped="${noRequests ? cases.length : 0}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="investment-api-fake readiness" ${counts}>`,
    `  <testsuite name="${xmlText(suite)}" ${counts} timestamp="${timestamp.toISOString().slice(0, 19)}">`,
    `    <properties><property name="requests_seen" value="${report.requests_seen}"/>${
      report.since === undefined ? '' : `<property name="since" value="${report.since}"/><property name="resets" value="${report.resets ?? 0}"/>`
    }</properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
