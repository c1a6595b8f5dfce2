import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { docsOf, READINESS_RULES, type ReadinessReport } from '../../src/harness/readiness-report.js';
import { readinessJunit, xmlText } from '../../src/harness/junit.js';

const ROOT = join(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const codes = Object.keys(READINESS_RULES);

describe('the readiness rules', () => {
  it('are the codes of the document, each with a README anchor that exists', () => {
    const document = parse(readFileSync(join(ROOT, 'src/api/openapi.yaml'), 'utf8'));
    expect(codes).toEqual(document.components.schemas.ReadinessFinding.properties.code.enum);
    const anchors = new Set([...readme.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
    for (const code of codes) {
      const [file, anchor] = docsOf(code as keyof typeof READINESS_RULES).split('#');
      expect(file).toBe('README.md');
      expect(anchors.has(anchor), `README.md has no anchor ${anchor}`).toBe(true);
    }
  });
});

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testcase', 'failure'].includes(name) });
const at = new Date('2030-01-02T03:04:05Z');

describe('the JUnit form', () => {
  const tricky = `GET /v1/<a href="x">&'nbsp;'</a>\u0001 ]]> \uD800`;
  const report: ReadinessReport = {
    client_id: 'acme & "co" <ltd>',
    requests_seen: 7,
    findings: [
      { code: 'wrong_path', severity: 'error', message: `${tricky} was sent 3 times`, hint: 'Send <this> & "that"', docs: 'README.md#wrong_path', requests: ['1', '2', '3'] },
      { code: 'wrong_path', severity: 'error', message: 'another', hint: 'h', docs: 'README.md#wrong_path', requests: ['4'] },
      { code: 'over_polling', severity: 'warning', message: 'polled', hint: 'poll less', docs: 'README.md#over_polling', requests: ['5'] },
    ],
  };

  it('is well-formed XML that parses back to what was written, whatever characters the findings hold', () => {
    const xml = readinessJunit(report, at);
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = parser.parse(xml).testsuites.testsuite;
    expect(suite.name).toBe('readiness of acme & "co" <ltd>');
    expect(suite).toMatchObject({ tests: String(codes.length), failures: '2', skipped: '0', timestamp: '2030-01-02T03:04:05' });
    expect(suite.testcase.map((c: { classname: string }) => c.classname)).toEqual(codes.map((c) => `readiness.${c}`));
    const wrongPath = suite.testcase.find((c: { classname: string }) => c.classname === 'readiness.wrong_path');
    expect(wrongPath.failure).toHaveLength(2);
    expect(wrongPath.failure[0].message).toBe(`GET /v1/<a href="x">&'nbsp;'</a>\uFFFD ]]> \uFFFD was sent 3 times`);
    expect(wrongPath.failure[0].type).toBe('error:wrong_path');
    expect(wrongPath.failure[0]['#text']).toContain('Hint: Send <this> & "that"\nRequests: 1, 2, 3\nDocs: README.md#wrong_path');
    const passing = suite.testcase.find((c: { classname: string }) => c.classname === 'readiness.token_per_call');
    expect(passing.failure).toBeUndefined();
    expect(passing.skipped).toBeUndefined();
  });

  it('marks every case skipped when no request was seen', () => {
    const xml = readinessJunit({ client_id: 'idle', requests_seen: 0, findings: [] }, at);
    const suite = parser.parse(xml).testsuites.testsuite;
    expect(suite).toMatchObject({ tests: String(codes.length), failures: '0', skipped: String(codes.length) });
    for (const testcase of suite.testcase) expect(testcase.skipped.message).toMatch(/^no requests yet/);
  });

  it('escapes the five XML characters and replaces the ones XML cannot hold', () => {
    expect(xmlText(`<>&"'\u0000\t\n`)).toBe('&lt;&gt;&amp;&quot;&apos;\uFFFD\t\n');
  });
});
