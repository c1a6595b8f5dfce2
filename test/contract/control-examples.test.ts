import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/api/document.js';
import { AnswerCheck } from '../../src/api/answer-check.js';
import { SchemaCheck } from '../../src/api/schema-check.js';
import { runNow } from '../../src/util/slices.js';
import { startServer } from '../../src/index.js';
import { answerCode, bodyText, controlExamples, type ControlExample } from '../../scripts/contract-examples.mjs';
import { http, testApp, tokenFor } from '../support/test-app.js';

// The control plane's examples (`/__control`) are what /docs, Redocly, Spectral and generated SDKs show of a control
// call: the singular `example` of its parameters, its body and its answers, documentation only (named `examples`
// are what Specmatic pairs into tests, and a control call cannot pass them under every security alternative; the
// document's own test, test/contract/examples.test.ts, covers /v1 and the token endpoint). Each is held to its schema
// as the fake's answers are, and each success example's request is answered so by a fresh seed-1 fake.
const { document } = loadApiDocument();
const operations = controlExamples(document);
const byId = (operationId: string): ControlExample => operations.find((o) => o.operationId === operationId)!;
const isJson = (mediaType: string): boolean => /[/+]json$/.test(mediaType);
const success = (o: ControlExample): number => o.statuses.find((s) => s >= 200 && s < 300)!;

describe('the control plane’s examples', () => {
  it('show every JSON success answer of every control operation, and the JSON body of each that takes one', () => {
    expect(operations).toHaveLength(31);
    const missing: string[] = [];
    for (const o of operations) {
      for (const a of o.answers)
        if (a.status < 300 && isJson(a.mediaType) && a.example === undefined)
          missing.push(`${o.operationId} ${a.status} ${a.mediaType}`);
      if (o.body && isJson(o.body.mediaType) && o.body.example === undefined) missing.push(`${o.operationId} body`);
    }
    expect(missing).toEqual([]);
  });

  it('are the singular `example`, never named `examples` a contract-testing tool would pair into tests', () => {
    expect(operations.filter((o) => o.named.length > 0).map((o) => `${o.operationId}: ${o.named.join(', ')}`)).toEqual(
      [],
    );
  });

  it('hold each answer to the schema of its status and media type (the fake’s own answer check)', () => {
    const answers = new AnswerCheck(document, { undocumentedErrors: 'flagged', mediaType: 'exact' });
    for (const o of operations)
      for (const a of o.answers.filter((x) => x.example !== undefined)) {
        const name = `${o.operationId} ${a.status} ${a.mediaType}`;
        const violations = runNow(
          answers.checking(
            { method: o.method.toLowerCase(), path: o.path },
            { status: a.status, body: a.example, mediaType: a.mediaType },
          ),
        );
        expect(violations, name).toEqual([]);
        // a problem names its `code`
        if (a.mediaType === 'application/problem+json') expect(answerCode(a.example), name).toEqual(expect.any(String));
      }
  });

  it('hold each request body and parameter to its schema', () => {
    const schemas = new SchemaCheck(document);
    for (const o of operations) {
      for (const p of o.parameters)
        expect(runNow(schemas.checking(`${o.operationId} ${p.name}`, p.schema, p.example, '')), p.name).toEqual([]);
      if (o.body?.example !== undefined)
        expect(
          runNow(schemas.checking(`${o.operationId} body`, o.body.schema, o.body.example, '')),
          o.operationId,
        ).toEqual([]);
    }
  });
});

type Agent = ReturnType<typeof request.agent>;

/** The requests the journal's examples show: a token, two lists, and the same unknown account three times. */
async function session(agent: Agent, token: string): Promise<void> {
  const get = (path: string) => agent.get(path).set('Authorization', `Bearer ${token}`);
  await get('/v1/accounts?external_id=user_340379').expect(200);
  await get('/v1/orders?account_id=b419d7c7-ab1f-4182-90ea-a862302d7fc0&order_status=COMPLETED').expect(200);
  for (let i = 0; i < 3; i++) await get('/v1/accounts/00000000-0000-4000-8000-000000000000').expect(404);
}

/** A body of an example request, as supertest sends it. */
const bodyOf = (operationId: string) => byId(operationId).request.body as object;

/** What an example's request needs on a fresh fake besides itself (the rest need nothing). */
const GIVEN: Record<string, (agent: Agent, app: Express) => Promise<unknown>> = {
  // the client createClient's example registers
  removeClient: (agent) => agent.post('/__control/clients').send(bodyOf('createClient')).expect(201),
  // the fault addFault's example adds
  listFaults: (agent) => agent.post('/__control/faults').send(bodyOf('addFault')).expect(201),
  removeFault: (agent) => agent.post('/__control/faults').send(bodyOf('addFault')).expect(201),
};
for (const operationId of [
  'listRequests',
  'getRequestExchange',
  'verifyRequests',
  'getReadinessReport',
  'exportRequests',
])
  GIVEN[operationId] = async (agent, app) => session(agent, await tokenFor(app));
/** Those that answer only in shadow mode: on a fake in front of another. */
const SHADOW = new Set(['getFidelityReport', 'clearFidelityReport']);

/**
 * Where an answer's shape differs from its example's: a member one has and the other lacks, another JSON type (null
 * matches any, as the example's items need not be the answer's first), a list shorter than the example's.
 */
function shapeDifferences(example: unknown, actual: unknown, at = ''): string[] {
  const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (example === null || actual === null) return [];
  if (type(example) !== type(actual)) return [`${at || '/'}: ${type(actual)}, the example ${type(example)}`];
  if (Array.isArray(example)) {
    const list = actual as unknown[];
    if (list.length < example.length) return [`${at}: ${list.length} items, the example ${example.length}`];
    return example.flatMap((item, i) => shapeDifferences(item, list[i], `${at}/${i}`));
  }
  if (type(example) !== 'object') return [];
  const mine = Object.keys(example as object).sort();
  const theirs = Object.keys(actual as object).sort();
  if (mine.join() !== theirs.join()) return [`${at || '/'}: members ${theirs.join()}, the example ${mine.join()}`];
  return mine.flatMap((key) =>
    shapeDifferences(
      (example as Record<string, unknown>)[key],
      (actual as Record<string, unknown>)[key],
      `${at}/${key}`,
    ),
  );
}

/** Sends an operation's example request, as its parameters' and body's examples make it. */
function replay(agent: Agent, o: ControlExample) {
  const query = new URLSearchParams(o.request.query).toString();
  let sent = agent[o.method.toLowerCase() as 'get'](`${o.request.path}${query ? `?${query}` : ''}`);
  for (const [name, value] of Object.entries(o.request.headers)) sent = sent.set(name, value);
  if (o.request.contentType) sent = sent.set('Content-Type', o.request.contentType).send(bodyText(o.request));
  return sent;
}

/** The status and, for a JSON example, how the answer's shape differs from it. */
function answered(o: ControlExample, response: { status: number; body: unknown }): string {
  const status = success(o);
  const example = o.answers.find((a) => a.status === status && isJson(a.mediaType))?.example;
  const differences = example === undefined ? [] : shapeDifferences(example, response.body);
  return `${o.operationId}: ${response.status} ${differences.join('; ')}`.trim();
}
const expected = (o: ControlExample): string => `${o.operationId}: ${success(o)}`;

describe('a fresh seed-1 fake answers each control operation’s success example', () => {
  it('with its status and the example’s shape', { timeout: 60_000 }, async () => {
    const order = operations.filter((o) => !SHADOW.has(o.operationId));
    const got: string[] = [];
    for (const o of order) {
      const app = testApp();
      const agent = http(app);
      await GIVEN[o.operationId]?.(agent, app);
      got.push(answered(o, await replay(agent, o)));
    }
    expect(got).toEqual(order.map(expected));
  });

  it('in shadow mode, in front of another seed-1 fake', { timeout: 60_000 }, async () => {
    const upstream = await startServer({ logLevel: 'silent' });
    const order = operations.filter((o) => SHADOW.has(o.operationId));
    const got: string[] = [];
    try {
      for (const o of order) {
        const shadow = await startServer({ upstream: upstream.url, logLevel: 'silent' });
        try {
          const agent = request.agent(shadow.url);
          await session(agent, await shadow.token());
          got.push(answered(o, await replay(agent, o)));
        } finally {
          await shadow.stop();
        }
      }
    } finally {
      await upstream.stop();
    }
    expect(got).toEqual(order.map(expected));
  });
});
