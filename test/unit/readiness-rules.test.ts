import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadApiDocument, pagedListsOf } from '../../src/api/document.js';
import { docsOf, READINESS_RULES, readinessFindings, type ReadinessReport } from '../../src/proof/readiness-report.js';
import { JournalRecord } from '../../src/records/journal.js';
import { xmlText } from '../../src/util/junit.js';
import { readinessJunit } from '../../src/proof/readiness-junit.js';

const ROOT = join(import.meta.dirname, '../..');
const codes = Object.keys(READINESS_RULES);

describe('the readiness rules', () => {
  it('are the codes of the document, each with an anchor of its own in docs/readiness.md', () => {
    const document = parse(readFileSync(join(ROOT, 'src/api/openapi.yaml'), 'utf8'));
    expect(codes).toEqual(document.components.schemas.ReadinessFinding.properties.code.enum);
    const page = readFileSync(join(ROOT, 'docs/readiness.md'), 'utf8');
    const anchors = new Set([...page.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
    for (const code of codes) {
      const [file, anchor] = docsOf(code as keyof typeof READINESS_RULES).split('#');
      expect(file).toBe('docs/readiness.md');
      expect(anchors.has(anchor), `docs/readiness.md has no anchor ${anchor}`).toBe(true);
    }
  });
});

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testcase', 'failure'].includes(name),
});
const at = new Date('2030-01-02T03:04:05Z');

describe('the JUnit form', () => {
  const tricky = `GET /v1/<a href="x">&'nbsp;'</a>\u0001 ]]> \uD800`;
  const report: ReadinessReport = {
    client_id: 'acme & "co" <ltd>',
    requests_seen: 7,
    findings: [
      {
        code: 'wrong_path',
        severity: 'error',
        message: `${tricky} was sent 3 times`,
        hint: 'Send <this> & "that"',
        docs: 'README.md#wrong_path',
        requests: ['1', '2', '3'],
      },
      {
        code: 'wrong_path',
        severity: 'error',
        message: 'another',
        hint: 'h',
        docs: 'README.md#wrong_path',
        requests: ['4'],
      },
      {
        code: 'over_polling',
        severity: 'warning',
        message: 'polled',
        hint: 'poll less',
        docs: 'README.md#over_polling',
        requests: ['5'],
      },
    ],
  };

  it('is well-formed XML that parses back to what was written, whatever characters the findings hold', () => {
    const xml = readinessJunit(report, at);
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = parser.parse(xml).testsuites.testsuite;
    expect(suite.name).toBe('readiness of acme & "co" <ltd>');
    expect(suite).toMatchObject({
      tests: String(codes.length),
      failures: '2',
      skipped: '0',
      timestamp: '2030-01-02T03:04:05',
    });
    expect(suite.testcase.map((c: { classname: string }) => c.classname)).toEqual(codes.map((c) => `readiness.${c}`));
    const wrongPath = suite.testcase.find((c: { classname: string }) => c.classname === 'readiness.wrong_path');
    expect(wrongPath.failure).toHaveLength(2);
    expect(wrongPath.failure[0].message).toBe(`GET /v1/<a href="x">&'nbsp;'</a>\uFFFD ]]> \uFFFD was sent 3 times`);
    expect(wrongPath.failure[0].type).toBe('error:wrong_path');
    expect(wrongPath.failure[0]['#text']).toContain(
      'Hint: Send <this> & "that"\nRequests: 1, 2, 3\nDocs: README.md#wrong_path',
    );
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

describe('duplicate_after_lost_answer', () => {
  const context = {
    tokenTtlSeconds: 3600,
    operationScopes: new Map<string, string[]>(),
    apiScopes: [],
    lists: pagedListsOf(loadApiDocument().document),
  };
  let ids = 0;
  /** A journal record as the observer writes it, for the rules alone. */
  const request = (
    method: string,
    path: string,
    status: number,
    applied: boolean,
    operation: string | null,
    body?: object,
  ): JournalRecord => {
    const text = body === undefined ? null : JSON.stringify(body);
    const id = String(++ids);
    return new JournalRecord(
      {
        id,
        client_id: 'c',
        method,
        path,
        rawQuery: '',
        status,
        duration_ms: 1,
        operation_id: operation,
        code: status === 409 ? 'order_not_cancellable' : null,
        fault_id: null,
        applied,
      },
      { at: ids * 1000, retryAfter: null, bodyHash: null, itemCount: null, tenantAt: ids * 1000 },
      {
        request:
          text === null ? null : { raw: text, contentType: 'application/json', size: text.length, held: text.length },
        response: null,
        authorization: 'bearer',
      },
    );
  };
  const create = (status: number, applied: boolean, body: object = { type: 'individual', external_id: 'x-1' }) =>
    request('POST', '/v1/accounts', status, applied, 'createAccount', body);
  const lookup = () => request('GET', '/v1/accounts', 200, true, 'listAccounts');
  const codes = (records: JournalRecord[]) => readinessFindings(records, context).map((f) => f.code);

  it('flags a create sent again, unchanged and applied, after an answer lost once applied (dropped, or a 503 in its place)', () => {
    for (const lostStatus of [0, 503]) {
      const [lost, retry] = [create(lostStatus, true), create(201, true)];
      const findings = readinessFindings([lost!, retry!], context);
      expect(findings).toEqual([
        expect.objectContaining({
          code: 'duplicate_after_lost_answer',
          severity: 'error',
          requests: [lost!.entry.id, retry!.entry.id],
        }),
      ]);
      expect(findings[0]!.message).toContain('two now exist');
    }
  });

  it('flags a wallet registered again the same way, with the wallet lookup as its hint', () => {
    const wallet = (status: number, applied: boolean) =>
      request('POST', '/v1/accounts/a/wallets', status, applied, 'registerWallet', { wallet_address: '0x1' });
    const [finding] = readinessFindings([wallet(0, true), wallet(201, true)], context);
    expect(finding!.hint).toContain('/wallets?wallet_address=');
  });

  it('is silent when the client looked for the first one before retrying', () => {
    expect(codes([create(0, true), lookup(), create(201, true)])).toEqual([]);
  });

  it('is silent when nothing was duplicated: the first was not applied, the retry was refused, or it sent another create', () => {
    expect(codes([create(0, false), create(201, true)])).toEqual([]);
    expect(codes([create(0, true), create(409, false)])).toEqual([]);
    expect(codes([create(0, true), create(201, true, { type: 'individual', external_id: 'x-2' })])).toEqual([]);
    expect(codes([create(201, true), create(201, true)])).toEqual([]);
  });

  it('leaves a cancel retried after its lost answer, that met 409 and stopped, to nobody; a 409 without a lost answer is cancel_not_cancellable', () => {
    const cancel = (status: number, applied: boolean) =>
      request('DELETE', '/v1/orders/o-1/', status, applied, 'cancelOrder');
    expect(codes([cancel(0, true), cancel(409, false)])).toEqual([]);
    expect(codes([cancel(503, true), cancel(409, false)])).toEqual([]);
    expect(codes([cancel(409, false)])).toEqual(['cancel_not_cancellable']);
    expect(codes([cancel(0, false), cancel(409, false)])).toEqual(['cancel_not_cancellable']);
  });

  it('does not ask for a retry of a 503 put in place of an applied write, but still does for one that was not applied', () => {
    expect(codes([create(503, true), lookup()])).toEqual([]);
    expect(codes([create(503, false)])).toEqual(['no_retry_after_throttling']);
  });
});

describe('rules across resets', () => {
  const context = {
    tokenTtlSeconds: 3600,
    operationScopes: new Map<string, string[]>(),
    apiScopes: [],
    lists: pagedListsOf(loadApiDocument().document),
  };
  let ids = 1000;
  const request = (status: number, applied: boolean): JournalRecord => {
    const text = JSON.stringify({ type: 'individual', external_id: 'x-1' });
    const id = String(++ids);
    const record = new JournalRecord(
      {
        id,
        client_id: 'c',
        method: 'POST',
        path: '/v1/accounts',
        rawQuery: '',
        status,
        duration_ms: 1,
        operation_id: 'createAccount',
        code: null,
        fault_id: null,
        applied,
      },
      { at: ids * 1000, retryAfter: null, bodyHash: null, itemCount: null, tenantAt: ids * 1000 },
      {
        request: { raw: text, contentType: 'application/json', size: text.length, held: text.length },
        response: null,
        authorization: 'bearer',
      },
    );
    record.seq = ids;
    return record;
  };

  it('a create sent again after a reset is no duplicate of one lost before it: the world began again', () => {
    const [lost, again] = [request(0, true), request(201, true)];
    expect(readinessFindings([lost, again], context).map((f) => f.code)).toEqual(['duplicate_after_lost_answer']);
    const resetBetween = (a: JournalRecord, b: JournalRecord) => a === lost && b === again;
    expect(readinessFindings([lost, again], { ...context, resetBetween })).toEqual([]);
  });
});

describe('wrong_path', () => {
  const context = {
    tokenTtlSeconds: 3600,
    operationScopes: new Map<string, string[]>(),
    apiScopes: [],
    lists: pagedListsOf(loadApiDocument().document),
  };
  /** A route_not_found as the journal keeps it: its answer's body not kept, only the route step's evidence. */
  const unknown = (id: number, documentedPath?: { path: string; difference: string }): JournalRecord =>
    new JournalRecord(
      {
        id: String(id),
        client_id: 'c',
        method: 'GET',
        path: '/v1/Accounts',
        rawQuery: '',
        status: 404,
        duration_ms: 1,
        operation_id: null,
        code: 'route_not_found',
        fault_id: null,
        applied: false,
      },
      {
        at: id * 1000,
        retryAfter: null,
        bodyHash: null,
        itemCount: null,
        tenantAt: id * 1000,
        ...(documentedPath && { documentedPath }),
      },
    );

  it("names the documented path from the journal's evidence, whatever the answer's text", () => {
    const near = { path: '/v1/accounts', difference: 'paths are case-sensitive' };
    const [finding] = readinessFindings([unknown(1, near), unknown(2, near), unknown(3, near)], context);
    expect(finding).toMatchObject({ code: 'wrong_path', requests: ['1', '2', '3'] });
    expect(finding!.hint).toBe('Send GET /v1/accounts, the path the document has: paths are case-sensitive.');
  });

  it('points at the document when the route step found no near miss', () => {
    const [finding] = readinessFindings([unknown(4), unknown(5), unknown(6)], context);
    expect(finding!.hint).toMatch(/^No operation has this path: compare it with the OpenAPI document/);
  });
});
