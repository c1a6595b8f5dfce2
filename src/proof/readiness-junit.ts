import { junitXml, type JunitCase } from '../util/junit.js';
import { READINESS_RULES, type ReadinessCode, type ReadinessReport } from './readiness-report.js';

/**
 * The readiness report as JUnit XML: one test case per rule, a `failure` per finding (its hint and request ids in
 * the text). A report over no requests proves nothing: every case is `skipped`.
 */
export function readinessJunit(report: ReadinessReport, timestamp: Date): string {
  const noRequests = report.requests_seen === 0;
  const cases = (Object.keys(READINESS_RULES) as ReadinessCode[]).map((code): JunitCase => {
    const testCase = { classname: `readiness.${code}`, name: `${code}: ${READINESS_RULES[code].title}` };
    if (noRequests)
      return { ...testCase, skipped: 'no requests yet: the client sent no verified request to this tenant' };
    const failures = report.findings
      .filter((f) => f.code === code)
      .map((f) => ({
        message: f.message,
        type: `${f.severity}:${f.code}`,
        text: `${f.message}\nHint: ${f.hint}\nRequests: ${f.requests.join(', ')}\nDocs: ${f.docs}`,
      }));
    return { ...testCase, failures };
  });
  return junitXml({
    name: 'investment-api-fake readiness',
    suite: `readiness of ${report.client_id}`,
    timestamp,
    properties: [
      ['requests_seen', report.requests_seen],
      ...(report.since === undefined
        ? []
        : ([
            ['since', report.since],
            ['resets', report.resets ?? 0],
          ] as const)),
    ],
    cases,
  });
}
