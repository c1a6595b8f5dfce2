import { describe, expect, it, vi } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import {
  compileDocumentValidator,
  compileWorldValidator,
  documentedResponse,
  documentNumber,
  loadApiDocument,
  operationsOf,
  parametersOf,
  type ApiDocument,
} from '../../src/api/document.js';
import { AnswerCheck } from '../../src/api/answer-check.js';
import { createLogger } from '../../src/logger.js';
import { DocumentCheck } from '../../src/shadow/document-check.js';
import { runNow } from '../../src/util/slices.js';
import { paginate } from '../../src/domain/paginate.js';
import { replayTransport } from '../../src/http/replay-transport.js';

const { document } = loadApiDocument();

describe('operationsOf', () => {
  it('lists each operation of a path item with its method, and skips what is not a method (shared parameters)', () => {
    const paths = {
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        summary: 'a thing',
        get: { operationId: 'getThing' },
        delete: { operationId: 'deleteThing' },
      },
    };
    expect(operationsOf({ paths, components: { schemas: {} } })).toEqual([
      { operationId: 'getThing', method: 'get', path: '/things/{id}' },
      { operationId: 'deleteThing', method: 'delete', path: '/things/{id}' },
    ]);
  });
});

describe('documentedResponse: which answer the document gives for a status', () => {
  const thing = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
  const problem = { type: 'object', required: ['code'], properties: { code: { type: 'string' } } };
  const own = {
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          responses: {
            200: { content: { 'application/json': { schema: thing } } },
            '4XX': { $ref: '#/components/responses/Problem' },
            default: { content: { 'application/json': { schema: { type: 'string' } } } },
          },
        },
        post: { operationId: 'addThing', responses: { 201: { content: { 'application/json': { schema: thing } } } } },
      },
    },
    components: {
      schemas: {},
      responses: { Problem: { content: { 'application/problem+json': { schema: problem } } } },
    },
  } as unknown as ApiDocument;

  it('takes the status, then its class, then default, and follows a shared response', () => {
    expect(documentedResponse(own, '/things', 'GET', 200)).toEqual({
      key: '200',
      content: { 'application/json': { schema: thing } },
    });
    expect(documentedResponse(own, '/things', 'get', 404)).toEqual({
      key: '4XX',
      content: { 'application/problem+json': { schema: problem } },
    });
    expect(documentedResponse(own, '/things', 'get', 503)?.key).toBe('default');
    expect(documentedResponse(own, '/things', 'post', 404)).toBeUndefined();
    expect(documentedResponse(own, '/nothing', 'get', 200)).toBeUndefined();
  });

  it('is the rule of shadow mode’s check of an upstream’s answer', () => {
    const check = new DocumentCheck(own, createLogger('silent'));
    expect(check.checkAnswer('/things', 'GET', 200, { id: 'a' })).toEqual([]);
    expect(check.checkAnswer('/things', 'GET', 200, {})).toEqual([
      expect.objectContaining({ pointer: '', message: "must have required property 'id'" }),
    ]);
    expect(check.checkAnswer('/things', 'GET', 409, { code: 7 })).toEqual([
      expect.objectContaining({ pointer: '/code', message: 'must be string' }),
    ]);
    expect(check.checkAnswer('/things', 'POST', 500, {})).toEqual([
      expect.objectContaining({ message: 'status 500 is not documented for this operation (201)' }),
    ]);
  });
});

describe('AnswerCheck: one check of answers, its two rules said as options', () => {
  const problem = { type: 'object', required: ['code'], properties: { code: { type: 'string' } } };
  const own = {
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          responses: {
            200: { content: { 'application/json': { schema: { type: 'object', required: ['id'] } } } },
            409: { content: { 'application/problem+json': { schema: problem } } },
          },
        },
      },
    },
    components: { schemas: { Problem: problem } },
  } as unknown as ApiDocument;
  const fakes = new AnswerCheck(own, { undocumentedErrors: 'problem', mediaType: 'exact' });
  const upstreams = new AnswerCheck(own, { undocumentedErrors: 'flagged', mediaType: 'firstJson' });
  const check = (checker: AnswerCheck, answer: { status: number; body: unknown; mediaType?: string }): string[] =>
    runNow(checker.checking({ method: 'get', path: '/things' }, answer)).map((v) => `${v.pointer}: ${v.message}`);

  it('holds an error no operation lists to the Problem schema (problem), or flags its status (flagged)', () => {
    expect(check(fakes, { status: 503, body: { code: 'down' }, mediaType: 'application/problem+json' })).toEqual([]);
    expect(check(fakes, { status: 503, body: { code: 5 }, mediaType: 'application/problem+json' })).toEqual([
      '/code: must be string',
    ]);
    expect(check(upstreams, { status: 503, body: { code: 'down' } })).toEqual([
      ': status 503 is not documented for this operation (200, 409)',
    ]);
    expect(check(fakes, { status: 201, body: {}, mediaType: 'application/json' })).toEqual([
      ': status 201 is not documented for this operation (200, 409)',
    ]);
  });

  it('takes the schema of the answer’s own media type (exact), or of the first JSON one documented (firstJson)', () => {
    expect(check(fakes, { status: 409, body: { code: 'x' }, mediaType: 'application/json' })).toEqual([
      ': application/json is not a media type the document gives for status 409',
    ]);
    expect(check(upstreams, { status: 409, body: { code: 7 }, mediaType: 'application/json' })).toEqual([
      '/code: must be string',
    ]);
    expect(check(fakes, { status: 200, body: {}, mediaType: 'application/problem+json' })).toEqual([
      ": must have required property 'id'",
    ]);
  });
});

describe('compileWorldValidator: a fixtures world against the document’s World schema', () => {
  const validate = compileWorldValidator(document);

  it('accepts a generated world', () => {
    expect(validate(generateWorld({ seed: 2, scale: { accounts: 2, orders: 2 } }))).toEqual([]);
  });

  it('names an unknown field by its own path, a wrong type by where it is, and a missing list at the root', () => {
    const world = generateWorld({ seed: 2, scale: { accounts: 2, orders: 2 } });
    const errors = validate({
      ...world,
      accounts: [{ ...world.accounts[0], nickname: 'x' }],
      orders: 'none',
      feeder_funds: undefined,
    });
    expect(errors).toContainEqual({
      location: 'body',
      path: '/accounts/0/nickname',
      message: 'must NOT have additional properties',
    });
    expect(errors).toContainEqual({ location: 'body', path: '/orders', message: 'must be array' });
    expect(errors).toContainEqual({
      location: 'body',
      path: '/',
      message: "must have required property 'feeder_funds'",
    });
  });
});

describe('a field error of an unknown member', () => {
  it('points at it as a JSON Pointer writes it: `/` as ~1 and `~` as ~0', () => {
    const check = compileDocumentValidator(document, {
      type: 'object',
      properties: { inner: { type: 'object', additionalProperties: false } },
    });
    expect(check({ inner: { 'a/b~c': 1 } })).toEqual([
      { location: 'body', path: '/inner/a~1b~0c', message: 'must NOT have additional properties' },
    ]);
  });
});

describe('numbers the code reads from the document, not beside it', () => {
  const limit = documentNumber('/components/parameters/Limit/schema/default');

  it('a page left without a limit holds the default every paged list of the API states for limit', () => {
    const lists = operationsOf(document).filter(({ path }) => path.startsWith('/v1/'));
    const defaults = lists.flatMap((operation) =>
      parametersOf(document, operation)
        .filter((parameter) => parameter.name === 'limit')
        .map((parameter) => `${operation.operationId}: ${String(parameter.schema?.default)}`),
    );
    expect(defaults.length).toBeGreaterThan(5);
    expect(defaults.filter((line) => !line.endsWith(`: ${limit}`))).toEqual([]);
    const items = Array.from({ length: limit + 50 }, (_, i) => i);
    expect(paginate(items, {})).toEqual(items.slice(0, limit));
    expect(paginate(items, { skip: 10 }, (i) => i % 2 === 0)).toHaveLength(Math.min(limit, (items.length - 20) / 2));
  });

  it('a twin’s replay the app never ends fails past a fault’s longest latency, not before', async () => {
    const longest = documentNumber('/components/schemas/FaultCreate/properties/latency_ms/maximum');
    vi.useFakeTimers();
    try {
      const transport = replayTransport(() => {});
      const answer = transport.send({ method: 'GET', url: '/v1/accounts', headers: {}, body: Buffer.alloc(0) });
      let outcome: unknown;
      answer.then(
        (value) => (outcome = value),
        (error: Error) => (outcome = error.message),
      );
      await vi.advanceTimersByTimeAsync(longest);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(outcome).toBe(`the twin did not answer within ${(longest + 5_000) / 1000} s`);
      await transport.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
