import { describe, expect, it } from 'vitest';
import { compileDocumentValidator, loadApiDocument } from '../../src/api/document.js';
import { compareAnswers, comparing, type Answer } from '../../src/shadow/compare.js';
import { compileRoutes } from '../../src/http/route.js';
import { createLogger } from '../../src/logger.js';
import { DocumentCheck } from '../../src/shadow/document-check.js';
import { IdentifierMap, learnFromExchange, translateRequest, whyNotComparable } from '../../src/shadow/identifiers.js';
import { slicedCountingTurns } from '../support/turns.js';

const none = () => undefined;
const compare = (
  upstream: Answer,
  fake: Answer,
  options: {
    values?: boolean;
    translate?: (id: string) => string | undefined;
    enums?: { upstream: string[]; fake: string[] };
  } = {},
) =>
  compareAnswers({
    upstream,
    fake,
    compareValues: options.values ?? false,
    translate: options.translate ?? none,
    ...(options.enums && { enumViolations: options.enums }),
  });

const account = {
  id: '0b5b7c39-2a5e-4c57-9d0f-3c1a3a7f0c11',
  type: 'individual',
  external_id: 'user-1',
  first_name: 'Ada',
  dob_year: 1985,
  created: '2026-11-25T10:00:00.000Z',
};

describe('comparing two answers, one kind at a time', () => {
  it('status: the statuses differ, and nothing else is compared', () => {
    expect(compare({ status: 201, body: account }, { status: 422, body: { code: 'validation_error' } })).toEqual([
      {
        kind: 'status',
        pointer: '',
        upstream: 201,
        fake: 422,
        problems: { upstream: null, fake: { status: 422, code: 'validation_error', detail: null } },
      },
    ]);
  });

  it("error_code: same status, another problem code (or OAuth's error)", () => {
    expect(
      compare(
        { status: 409, body: { code: 'order_not_cancellable' } },
        { status: 409, body: { code: 'limit_reached' } },
      ),
    ).toEqual([
      {
        kind: 'error_code',
        pointer: '/code',
        upstream: 'order_not_cancellable',
        fake: 'limit_reached',
        problems: {
          upstream: { status: 409, code: 'order_not_cancellable', detail: null },
          fake: { status: 409, code: 'limit_reached', detail: null },
        },
      },
    ]);
    expect(
      compare(
        { status: 400, body: { error: 'invalid_scope', error_description: 'no such scope' } },
        { status: 400, body: { error: 'invalid_request' } },
      ),
    ).toEqual([
      {
        kind: 'error_code',
        pointer: '/error',
        upstream: 'invalid_scope',
        fake: 'invalid_request',
        problems: {
          upstream: { status: 400, code: 'invalid_scope', detail: 'no such scope' },
          fake: { status: 400, code: 'invalid_request', detail: null },
        },
      },
    ]);
  });

  it('missing_field: the upstream has a field the fake has not', () => {
    expect(compare({ status: 200, body: { ...account, line2: 'Flat 2' } }, { status: 200, body: account })).toEqual([
      { kind: 'missing_field', pointer: '/line2', upstream: 'Flat 2', fake: null },
    ]);
  });

  it('extra_field: the fake has a field the upstream has not', () => {
    expect(
      compare({ status: 200, body: account }, { status: 200, body: { ...account, birthdate: '1985-12-10' } }),
    ).toEqual([{ kind: 'extra_field', pointer: '/birthdate', upstream: null, fake: '1985-12-10' }]);
  });

  it('type: another JSON type at the same pointer; null fits any', () => {
    expect(compare({ status: 200, body: { ...account, dob_year: '1985' } }, { status: 200, body: account })).toEqual([
      {
        kind: 'type',
        pointer: '/dob_year',
        upstream: '1985',
        fake: 1985,
        types: { upstream: ['string'], fake: ['number'] },
      },
    ]);
    expect(
      compare({ status: 200, body: { ...account, line2: null } }, { status: 200, body: { ...account, line2: 'x' } }),
    ).toEqual([]);
  });

  it('enum_value: a value outside the document enum, on either side, with both values', () => {
    expect(
      compare(
        { status: 200, body: { status: 'SETTLED' } },
        { status: 200, body: { status: 'COMPLETED' } },
        { enums: { upstream: ['/status'], fake: [] } },
      ),
    ).toEqual([
      { kind: 'enum_value', pointer: '/status', upstream: 'SETTLED', fake: 'COMPLETED', outside: ['upstream'] },
    ]);
  });

  it('value: only for a record of the session, identifiers and instants aside', () => {
    const upstream = { status: 200, body: { ...account, city: 'London' } };
    const fake = {
      status: 200,
      body: {
        ...account,
        id: 'f0c4b1d2-0000-4000-8000-000000000001',
        city: 'Paris',
        created: '2026-11-25T10:00:03.120Z',
      },
    };
    expect(compare(upstream, fake)).toEqual([]);
    expect(compare(upstream, fake, { values: true })).toEqual([
      { kind: 'value', pointer: '/city', upstream: 'London', fake: 'Paris' },
    ]);
  });
});

describe('normalization, written once', () => {
  it('instants are never compared as values, whatever their precision or zone', () => {
    const upstream = {
      status: 200,
      body: { created: '2026-11-25T10:00:00Z', next_redemption_date: '2026-12-31T00:00:00+01:00' },
    };
    const fake = {
      status: 200,
      body: { created: '2026-11-25T11:12:13.456Z', next_redemption_date: '2027-03-31T00:00:00.000Z' },
    };
    expect(compare(upstream, fake, { values: true })).toEqual([]);
  });

  it("identifiers compare through the session's map: the fake's must be the translation of the upstream's", () => {
    const translate = (id: string) => (id === 'up-account' ? 'twin-account' : undefined);
    const upstream = { status: 201, body: { id: 'up-wallet', account_id: 'up-account' } };
    expect(
      compare(
        upstream,
        { status: 201, body: { id: 'twin-wallet', account_id: 'twin-account' } },
        { values: true, translate },
      ),
    ).toEqual([]);
    expect(
      compare(
        upstream,
        { status: 201, body: { id: 'twin-wallet', account_id: 'someone-else' } },
        { values: true, translate },
      ),
    ).toEqual([{ kind: 'value', pointer: '/account_id', upstream: 'up-account', fake: 'someone-else' }]);
  });

  it('lists are compared by the shape of their items, in any order, never by content', () => {
    const upstream = {
      status: 200,
      body: {
        data: [
          { id: 'a', city: 'London' },
          { id: 'b', city: 'Oslo', line2: 'x' },
        ],
      },
    };
    const fake = {
      status: 200,
      body: {
        data: [
          { id: 'c', city: 'Rome', line2: 'y' },
          { id: 'd', city: 'Paris' },
          { id: 'e', city: 'Bonn' },
        ],
      },
    };
    expect(compare(upstream, fake, { values: true })).toEqual([]);
    expect(compare(upstream, { status: 200, body: { data: [{ id: 'c', town: 'Rome' }] } })).toEqual([
      { kind: 'missing_field', pointer: '/data/*/city', upstream: 'London', fake: null },
      { kind: 'missing_field', pointer: '/data/*/line2', upstream: 'x', fake: null },
      { kind: 'extra_field', pointer: '/data/*/town', upstream: null, fake: 'Rome' },
    ]);
  });

  it('an empty list on either side says nothing about its items', () => {
    expect(compare({ status: 200, body: { data: [] } }, { status: 200, body: { data: [account] } })).toEqual([]);
  });

  it('a token never shows in a finding', () => {
    const findings = compare(
      { status: 200, body: { access_token: 'eyJ.secret', token_type: 'Bearer' } },
      { status: 200, body: { token_type: 'Bearer' } },
    );
    expect(findings).toEqual([{ kind: 'missing_field', pointer: '/access_token', upstream: '[redacted]', fake: null }]);
  });

  it("secrets as the journal has them: a secret-named field of any type, at any depth, and the client's credentials anywhere", () => {
    const upstream = {
      status: 200,
      body: {
        profile: {
          jwt: { a: 1 },
          passphrase: 7,
          signature: ['s'],
          api_key: 'k',
          private_key: null,
          note: 'has tok-0123456789 inside',
        },
        credentials: { user: 'u' },
      },
    };
    const findings = compareAnswers({
      upstream,
      fake: { status: 200, body: { credentials: 1 } },
      compareValues: false,
      translate: none,
      secrets: ['tok-0123456789'],
    });
    expect(findings).toEqual([
      {
        kind: 'missing_field',
        pointer: '/profile',
        upstream: {
          jwt: '[redacted]',
          passphrase: '[redacted]',
          signature: '[redacted]',
          api_key: '[redacted]',
          private_key: null,
          note: 'has [redacted] inside',
        },
        fake: null,
      },
      {
        kind: 'type',
        pointer: '/credentials',
        upstream: '[redacted]',
        fake: '[redacted]',
        types: { upstream: ['object'], fake: ['number'] },
      },
      // under a secret-named field, whatever its own name
      { kind: 'missing_field', pointer: '/credentials/user', upstream: '[redacted]', fake: null },
    ]);
  });

  it('a missing object is one finding, not one per field under it', () => {
    expect(compare({ status: 200, body: { sender: { iban: 'x', name: 'y' } } }, { status: 200, body: {} })).toEqual([
      { kind: 'missing_field', pointer: '/sender', upstream: { iban: 'x', name: 'y' }, fake: null },
    ]);
  });
});

describe('a large answer', () => {
  const items = (count: number, last: Record<string, unknown> = {}) =>
    Array.from({ length: count }, (_, i) => ({
      ...account,
      id: `id-${i}`,
      [`field_${i}`]: i,
      note: 'n'.repeat(400),
      ...(i === count - 1 && last),
    }));

  it('of 7,000 list items is compared in slices, giving the event loop turns, and a difference planted at its end is found', async () => {
    const upstream = { status: 200, body: { data: items(7000, { planted: { deep: true } }) } };
    const { result: findings, turns } = await slicedCountingTurns(
      comparing({ upstream, fake: { status: 200, body: { data: [account] } }, compareValues: false, translate: none }),
    );
    expect(turns).toBeGreaterThan(1);
    expect(findings).toContainEqual({
      kind: 'missing_field',
      pointer: '/data/*/planted',
      upstream: { deep: true },
      fake: null,
    });
    expect(findings.filter((f) => f.kind === 'missing_field' && f.pointer.startsWith('/data/*/field_'))).toHaveLength(
      7000,
    );
  });

  it("is checked against the document a few items at a time, each item's violation at its own pointer", async () => {
    const check = new DocumentCheck(loadApiDocument().document, createLogger('silent'));
    // 2,000 items, each with violations: many slices of 1 ms on any machine
    const orders: Record<string, unknown>[] = Array.from({ length: 2000 }, () => ({ id: 'x' }));
    orders[1999] = { id: 'x', status: 'SETTLED' };
    const { result: violations, turns } = await slicedCountingTurns(
      check.checkingAnswer('/v1/orders', 'GET', 200, { data: orders }),
    );
    expect(turns).toBeGreaterThan(1);
    expect(violations).toContainEqual(expect.objectContaining({ pointer: '/data/1999/status', isEnum: true }));
    // the same errors as one check of the whole answer against its schema
    const whole = compileDocumentValidator(loadApiDocument().document, {
      $ref: 'openapi#/components/schemas/OrderList',
    })({ data: orders });
    expect(violations.map((v) => v.pointer).sort()).toEqual(whole.map((e) => e.path).sort());
  });

  it('shows at most a kilobyte of a value, and no credential, even one across the cut', () => {
    const secret = 'the-client-secret-0123456789';
    const long = { note: `${'a'.repeat(990)}${secret}${'b'.repeat(2000)}`, password: 5 };
    const [finding] = compareAnswers({
      upstream: { status: 200, body: { extra: long } },
      fake: { status: 200, body: {} },
      compareValues: false,
      translate: none,
      secrets: [secret],
    });
    expect(finding).toMatchObject({ kind: 'missing_field', pointer: '/extra' });
    expect(JSON.stringify(finding)).not.toContain(secret.slice(0, 12));
    expect(String(finding!.upstream).length).toBeLessThan(1100);
  });
});

describe('not comparable', () => {
  const answer = (status: number, code?: string) => ({
    status,
    body: code === undefined ? undefined : { status, code },
  });

  it('a record the session never created that the twin does not hold, with the reason', () => {
    expect(whyNotComparable(answer(200), answer(404, 'not_found'), ['7d1f...sandbox'])).toMatch(
      /"7d1f...sandbox", which this session did not create and the twin does not hold/,
    );
    // a cancel the upstream refuses for the order's state: it holds the order, the twin does not
    expect(whyNotComparable(answer(409, 'order_not_cancellable'), answer(404, 'not_found'), ['o-1'])).toMatch(
      /upstream 409, fake 404/,
    );
  });

  it("a record of the twin's own seed that the upstream does not hold (404 against 409), with the reason", () => {
    const seed = new Set(['seed-order']);
    const reason = whyNotComparable(
      answer(404, 'not_found'),
      answer(409, 'order_not_cancellable'),
      ['seed-order'],
      (id) => seed.has(id),
    );
    expect(reason).toMatch(
      /"seed-order", which the upstream did not issue in this session and does not hold \(404\), while the twin's own world \(its seed\) does: upstream 404, fake 409/,
    );
  });

  it('is no excuse without evidence: both sides agree, every identifier was translated, the twin holds none, or a 404 is a route', () => {
    expect(whyNotComparable(answer(404), answer(404), ['x'])).toBeUndefined();
    expect(whyNotComparable(answer(200), answer(404), [])).toBeUndefined();
    expect(whyNotComparable(answer(404, 'not_found'), answer(409), ['made-up'], () => false)).toBeUndefined();
    expect(
      whyNotComparable(answer(404, 'not_found'), answer(422, 'validation_failed'), ['seed-order'], () => true),
    ).toBeUndefined();
    expect(whyNotComparable(answer(200), answer(404, 'route_not_found'), ['x'])).toBeUndefined();
    expect(whyNotComparable(answer(422), answer(404, 'not_found'), ['x'])).toBeUndefined();
  });
});

describe('the identifier map of a session', () => {
  it('learns from a create and translates paths, queries and JSON bodies', () => {
    const map = new IdentifierMap();
    learnFromExchange(
      {
        method: 'POST',
        rawQuery: '',
        pathParams: [],
        requestBody: { external_id: 'e-1' },
        upstream: { id: 'U1' },
        fake: { id: 'T1' },
      },
      map,
    );
    const translated = translateRequest(
      {
        path: '/v1/accounts/U1/wallets',
        rawQuery: 'account_id=U1&limit=5',
        body: Buffer.from('{"account_id":"U1","n":1}'),
        json: true,
        pathParams: ['U1'],
      },
      map,
    );
    expect(translated).toEqual({
      path: '/v1/accounts/T1/wallets',
      rawQuery: 'account_id=T1&limit=5',
      body: Buffer.from('{"account_id":"T1","n":1}'),
      untranslated: [],
    });
    expect(map.isSessions('U1')).toBe(true);
  });

  it("learns the items of a list filtered by the session's own external_id, in order", () => {
    const map = new IdentifierMap();
    map.learnExternalId('e-1');
    learnFromExchange(
      {
        method: 'GET',
        rawQuery: 'external_id=e-1',
        pathParams: [],
        requestBody: undefined,
        upstream: { data: [{ id: 'U1' }, { id: 'U2' }] },
        fake: { data: [{ id: 'T1' }, { id: 'T2' }] },
      },
      map,
    );
    expect(map.translate('U2')).toBe('T2');
    learnFromExchange(
      {
        method: 'GET',
        rawQuery: 'external_id=other',
        pathParams: [],
        requestBody: undefined,
        upstream: { data: [{ id: 'U3' }] },
        fake: { data: [{ id: 'T3' }] },
      },
      map,
    );
    expect(map.translate('U3')).toBeUndefined();
  });

  it('names the path parameters it could not translate', () => {
    expect(
      translateRequest(
        { path: '/v1/accounts/U9', rawQuery: '', body: Buffer.alloc(0), json: false, pathParams: ['U9'] },
        new IdentifierMap(),
      ).untranslated,
    ).toEqual(['U9']);
  });
});

describe('the document check, both ways', () => {
  const { document } = loadApiDocument();
  const check = new DocumentCheck(document, createLogger('silent'));
  const route = compileRoutes(document);
  const request = (method: string, url: string, body?: unknown) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    return check.checkRequest({
      route: route({ method, path: url.split('?')[0]!, originalUrl: url }),
      method,
      url,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      rawBody: Buffer.from(raw),
      body,
    });
  };

  it("names what breaks the document in the client's request as the fake's own checks refuse it, parameters and body", async () => {
    // the first unknown name, as the fake's 422 names it; then each value past its schema
    expect(await request('GET', '/v1/accounts?limit=5000&colour=red')).toEqual([
      { pointer: '/query/colour', message: "Unknown query parameter 'colour'", isEnum: false },
    ]);
    expect((await request('GET', '/v1/accounts?limit=5000&skip=-1')).map((v) => v.pointer)).toEqual([
      '/query/skip',
      '/query/limit',
    ]);
    expect(await request('GET', '/v1/accounts?limit=5&account_type=business')).toEqual([]);
    // a path parameter at the location the fake's 422 names (`path`, where the validator writes `params`)
    expect((await request('GET', '/v1/accounts/not-a-uuid')).map((v) => v.pointer)).toEqual(['/path/account_id']);
    // a body: express-openapi-validator's check, as the fake's pipeline runs it
    const refused = await request('POST', '/v1/accounts', { type: 'robot' });
    expect(refused).toContainEqual(expect.objectContaining({ pointer: '/body/type', isEnum: true }));
    const ada = { type: 'individual', external_id: 'partner-7781', first_name: 'Ada', last_name: 'Lovelace' };
    expect(
      await request('POST', '/v1/accounts', { ...ada, country: 'GB', dob_day: 10, dob_month: 12, dob_year: 1985 }),
    ).toEqual([]);
    // a body the document requires, sent as nothing: the fake's own 422 at body /
    expect(await request('POST', '/v1/accounts')).toEqual([
      { pointer: '/body', message: 'a JSON body is required', isEnum: false },
    ]);
  });

  it('holds a body to the bounds the fake holds it to, before the validator reads it', async () => {
    const many = Array.from({ length: 20_000 }, () => ({ value: 1 }));
    const refused = await request('POST', '/v1/accounts', { type: 'individual', wallets: many });
    expect(refused).toEqual([
      expect.objectContaining({
        pointer: '/body/wallets',
        message: expect.stringContaining('more than a request body may hold'),
      }),
    ]);
  });

  it("names what breaks the document in the upstream's answer, an undocumented status included", () => {
    const answer = check.checkAnswer('/v1/orders', 'GET', 200, { data: [{ id: 'x', status: 'SETTLED' }] });
    expect(answer).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: '/data/0/status', isEnum: true })]),
    );
    expect(check.checkAnswer('/v1/orders', 'GET', 418, {})).toEqual([
      expect.objectContaining({ pointer: '', message: expect.stringContaining('status 418 is not documented') }),
    ]);
    expect(
      check.checkAnswer('/v1/accounts/{account_id}', 'GET', 404, {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'x',
        code: 'not_found',
      }),
    ).toEqual([]);
  });
});
