import fc from 'fast-check';
import { expect, it } from 'vitest';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import { http, testApp, tokenFor } from '../support/test-app.js';
import { propertyRuns } from '../support/runs.js';
import { KNOWN_STATE_NAMES } from '../../src/records/provider-state-names.js';

/**
 * No input produces a 5xx: random path parameters, query strings, bodies and content types against every
 * operation of the document (responses validated against it too: a mismatch would answer 500 here).
 */
// FUZZ_RUNS / FUZZ_SEED explore further than the fixed run CI repeats.
const RUNS = propertyRuns(1500);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const { document } = loadApiDocument();
const operations = operationsOf(document);

type Parameter = { name: string; in: string };
const declaredQuery = (path: string, method: string): string[] => {
  const item = document.paths[path] as Record<string, { parameters?: Parameter[] }> & { parameters?: Parameter[] };
  const all = [...(item.parameters ?? []), ...(item[method]?.parameters ?? [])];
  return all.filter((p) => p.in === 'query' && p.name).map((p) => p.name);
};

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '',
    '%',
    '%E0%A4%A',
    '..',
    'true',
    'false',
    '-1',
    '0',
    '1001',
    '1e3',
    'null',
    '3fa85f64-5717-4562-b3fc-2c963f66afa6',
    'sandbox-client',
    'BUY',
    'PLACED',
    'individual',
    'EUR',
    'x'.repeat(5000),
  ),
);
const json = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(
    fc.constantFrom(
      'type',
      'client_id',
      'client_secret',
      'scopes',
      'settings',
      'now',
      'advance_seconds',
      'orders',
      'is_primary',
      'wallet_address',
      'iban',
      'dob_day',
      'birthdate',
      'feeder_funds',
      'state',
      'params',
      'action',
    ),
    fc.jsonValue(),
  ),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  undefined,
);

it(`answers ${RUNS} random requests without a 5xx`, async () => {
  const app = testApp();
  const token = await tokenFor(app);
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...operations),
      fc.array(text, { minLength: 4, maxLength: 4 }),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom('skip', 'limit', 'foo'), text), text), { maxLength: 4 }),
      fc.boolean(),
      json,
      contentType,
      fc.boolean(),
      async (op, pathValues, extraQuery, useDeclared, body, type, raw) => {
        let i = 0;
        const path = op.path.replace(/\{\w+\}/g, () =>
          raw ? pathValues[i++]!.replace(/[/?#\s]/g, '') : encodeURIComponent(pathValues[i++]!),
        );
        const query = new URLSearchParams();
        const names = declaredQuery(op.path, op.method);
        for (const [key, value] of extraQuery)
          query.append(useDeclared && names.length > 0 ? names[key.length % names.length]! : key, value);
        const url = `${path || '/'}${query.size > 0 ? `?${query}` : ''}`;
        const agent = http(app) as unknown as Record<string, (u: string) => import('supertest').Test>;
        let request = agent[op.method]!(url).set('Authorization', `Bearer ${token}`);
        if (op.method !== 'get' && op.method !== 'delete') {
          if (type) request = request.set('Content-Type', type);
          request = request.send(
            type === 'application/x-www-form-urlencoded' && typeof body === 'object' && body !== null
              ? new URLSearchParams(
                  Object.entries(body).map(([k, v]): [string, string] => [
                    k,
                    typeof v === 'string' ? v : JSON.stringify(v),
                  ]),
                ).toString()
              : JSON.stringify(body),
          );
        }
        const response = await request;
        sent++;
        expect(
          response.status,
          `${op.method.toUpperCase()} ${url} → ${response.status} ${response.text.slice(0, 300)}`,
        ).toBeLessThan(500);
        if (response.status >= 400 && op.path !== '/oauth2/token') {
          expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        }
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
  expect(sent).toBe(RUNS);
}, 300_000);

it('answers random Pact provider states (every known name, odd params) without a 5xx, a refusal changing nothing', async () => {
  const app = testApp();
  const token = await tokenFor(app);
  const field = fc.constantFrom(
    'type',
    'first_name',
    'dob_day',
    'lei',
    'account',
    'wallet_address',
    'chain',
    'is_primary',
    'iban',
    'side',
    'market',
    'isin',
    'value',
    'amount_of_units',
    'abbreviation',
    'custom_offering_id',
    'tax_residencies',
  );
  const params = fc.oneof(fc.jsonValue(), fc.dictionary(field, fc.oneof(fc.jsonValue(), text), { maxKeys: 6 }));
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...KNOWN_STATE_NAMES, '', 'an order exists in status', 'An Account Exists'),
      params,
      fc.constantFrom('setup', 'teardown', undefined, 'other'),
      async (state, stateParams, action) => {
        const before = (await http(app).get('/__control/state').expect(200)).text;
        const response = await http(app)
          .post('/__control/pact/provider-states')
          .set('Authorization', `Bearer ${token}`)
          .send({ state, params: stateParams, ...(action !== undefined && { action }) });
        expect(
          response.status,
          `${state} ${JSON.stringify(stateParams).slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`,
        ).toBeLessThan(500);
        if (response.status >= 400) expect((await http(app).get('/__control/state').expect(200)).text).toBe(before);
      },
    ),
    { numRuns: propertyRuns(200), seed: SEED },
  );
}, 300_000);
