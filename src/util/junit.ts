// JUnit XML (the format CI test tabs read), written in one place for every report that has a JUnit form.

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// Characters XML 1.0 cannot hold at all, even escaped (a partner's path may carry them percent-decoded).
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text for an XML attribute or element. */
export const xmlText = (text: string): string =>
  text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

interface JunitFailure {
  message: string;
  type: string;
  /** The element's text: what a reader needs to act on it. */
  text: string;
}

export interface JunitCase {
  classname: string;
  name: string;
  failures?: readonly JunitFailure[];
  /** Why the case was not run (it then has no failures). */
  skipped?: string;
  systemOut?: string;
}

export interface JunitSuite {
  /** The `testsuites` element's name. */
  name: string;
  /** The one `testsuite`'s name. */
  suite: string;
  timestamp: Date;
  properties: readonly (readonly [name: string, value: string | number])[];
  cases: readonly JunitCase[];
}

function testCase({ classname, name, failures = [], skipped, systemOut }: JunitCase): string {
  const open = `    <testcase classname="${xmlText(classname)}" name="${xmlText(name)}" time="0"`;
  const inner = [
    ...(skipped === undefined ? [] : [`      <skipped message="${xmlText(skipped)}"/>`]),
    ...failures.map(
      (f) => `      <failure message="${xmlText(f.message)}" type="${xmlText(f.type)}">${xmlText(f.text)}</failure>`,
    ),
    ...(systemOut === undefined ? [] : [`      <system-out>${xmlText(systemOut)}</system-out>`]),
  ];
  return inner.length === 0 ? `${open}/>` : [`${open}>`, ...inner, '    </testcase>'].join('\n');
}

/** One suite of cases, counted: a case fails when it has a failure, is skipped when it says why. */
export function junitXml({ name, suite, timestamp, properties, cases }: JunitSuite): string {
  const failures = cases.filter((c) => (c.failures?.length ?? 0) > 0).length;
  const skipped = cases.filter((c) => c.skipped !== undefined).length;
  const counts = `tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(name)}" ${counts}>`,
    `  <testsuite name="${xmlText(suite)}" ${counts} timestamp="${timestamp.toISOString().slice(0, 19)}">`,
    `    <properties>${properties.map(([key, value]) => `<property name="${xmlText(key)}" value="${xmlText(String(value))}"/>`).join('')}</properties>`,
    ...cases.map(testCase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
