// The pipeline on a tiny document of its own, the way stripe-mock tests its router: routing, authentication,
// validation, dispatch and errors follow whatever document they are given, not only this API's.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { DomainError } from '../../src/api/errors.js';
import type { AnswerMismatch } from '../../src/api/document.js';
import type { FakeContext } from '../../src/context.js';
import type { Tenant } from '../../src/domain/tenants.js';
import type { OperationHandlers } from '../../src/http/operation.js';
import { HOST, http } from '../support/test-app.js';

const problem = {
  description: 'a problem',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};
const thing = {
  description: 'a thing',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
};

const TINY = {
  openapi: '3.0.3',
  info: { title: 'tiny', version: '1' },
  paths: {
    '/status': {
      get: {
        operationId: 'getStatus',
        responses: {
          200: {
            description: 'up',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status'],
                  properties: { status: { type: 'string', enum: ['up'] } },
                },
              },
            },
          },
          default: problem,
        },
      },
    },
    '/things': {
      post: {
        operationId: 'createThing',
        security: [{ oauth2: ['write:things'] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } },
        },
        responses: { 201: thing, default: problem },
      },
    },
    '/things/{thing_id}': {
      get: {
        operationId: 'getThing',
        security: [{ oauth2: ['read:things'] }],
        parameters: [
          { name: 'thing_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z0-9-]+$' } },
        ],
        responses: { 200: thing, default: problem },
      },
    },
  },
  components: {
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: { tokenUrl: '/token', scopes: { 'read:things': 'read', 'write:things': 'write' } },
        },
      },
    },
    schemas: {
      ThingCreate: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 } },
      },
      Thing: {
        type: 'object',
        required: ['id', 'name', 'owner'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: 'string' }, owner: { type: 'string' } },
      },
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          code: { type: 'string' },
          errors: { type: 'array', items: { type: 'object' } },
          errors_omitted: { type: 'integer' },
        },
      },
    },
  },
};

interface Thing {
  id: string;
  name: string;
  owner: string;
}
interface Call {
  path: { thing_id: string };
  body: { name: string };
  tenant: Tenant;
}

/** The tiny document's handlers (some replaced by `broken`): each test app keeps its things in its own map. */
function tinyHandlers(broken: Record<string, () => unknown> = {}): OperationHandlers {
  const things = new Map<string, Thing>();
  const handlers = {
    getStatus: () => ({ status: 200, body: { status: 'up' } }),
    createThing: ({ body, tenant }: Call) => {
      const created = { id: randomUUID(), name: body.name, owner: tenant.client.client_id };
      things.set(created.id, created);
      return { status: 201, body: created };
    },
    getThing: ({ path }: Call) => {
      const found = things.get(path.thing_id);
      if (!found) throw new DomainError(404, 'not_found', `No thing has the id ${path.thing_id}.`);
      return { status: 200, body: found };
    },
  };
  // The handler map is typed by this API's operations; the tiny document has others.
  return { ...handlers, ...broken } as unknown as OperationHandlers;
}

let ctx: FakeContext;
let app: Express;

beforeAll(() => {
  // An instance's tenants and keys, with the tiny document in place of this API's; responses are validated against it.
  const instance = createContext({ validateResponses: true, allowedHosts: ['.test'] });
  ctx = { ...instance, api: { document: TINY, json: JSON.stringify(TINY), yaml: '' } };
  app = buildApp(ctx, { handlers: tinyHandlers() });
});

/** A token of the default client, signed by the instance's key for this host, carrying these scopes. */
function token(scope: string): string {
  const iat = ctx.tenants.get('sandbox-client').clock.nowSeconds();
  return ctx.keys.sign({
    iss: `http://${HOST}`,
    aud: HOST,
    sub: 'sandbox-client',
    client_id: 'sandbox-client',
    scope,
    iat,
    exp: iat + 60,
    jti: randomUUID(),
  });
}
const bearer = (scope: string) => `Bearer ${token(scope)}`;

describe('the pipeline on a tiny document', () => {
  it('routes an unsecured operation to its handler: 200 with its body', async () => {
    const response = await http(app).get('/status').expect(200);
    expect(response.body).toEqual({ status: 'up' });
    expect(response.headers['x-request-id']).toMatch(/^\d+$/);
  });

  it('answers 404 route_not_found for a path the document lacks, this API’s own paths included', async () => {
    for (const path of ['/nowhere', '/v1/orders']) {
      const response = await http(app).get(path).set('Authorization', bearer('read:things')).expect(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 404, code: 'route_not_found' });
    }
  });

  it('answers 404 with a hint for a trailing slash the document does not have', async () => {
    const response = await http(app).get('/status/').expect(404);
    expect(response.body).toMatchObject({
      code: 'route_not_found',
      detail: expect.stringContaining('/status: without the trailing slash'),
    });
  });

  it('answers 405 method_not_allowed, with Allow, for another method on a known path', async () => {
    const response = await http(app).delete('/things/abc').set('Authorization', bearer('read:things')).expect(405);
    expect(response.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
    expect(response.headers.allow).toBe('GET');
  });

  it('answers 401 invalid_token with a Bearer challenge to a secured operation called without a token', async () => {
    const response = await http(app).get('/things/abc').expect(401);
    expect(response.body).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers 403 insufficient_scope when the token lacks the scope the document names for the operation', async () => {
    const response = await http(app)
      .post('/things')
      .set('Authorization', bearer('read:things'))
      .send({ name: 'kettle' })
      .expect(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope' });
    expect(response.headers['www-authenticate']).toContain('scope="write:things"');
  });

  it('answers 422 validation_error naming each body field the schema refuses', async () => {
    const missing = await http(app).post('/things').set('Authorization', bearer('write:things')).send({}).expect(422);
    expect(missing.body).toMatchObject({ code: 'validation_error', errors: [{ location: 'body', path: '/name' }] });
    const unknown = await http(app)
      .post('/things')
      .set('Authorization', bearer('write:things'))
      .send({ name: 'kettle', colour: 'red' })
      .expect(422);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ location: 'body', path: '/colour' }));
  });

  it('answers 422 naming a path parameter outside its pattern', async () => {
    const response = await http(app).get('/things/NOT_OURS').set('Authorization', bearer('read:things')).expect(422);
    expect(response.body).toMatchObject({
      code: 'validation_error',
      errors: [{ location: 'path', path: '/thing_id' }],
    });
  });

  it('answers 400 malformed_body to JSON that does not parse', async () => {
    const response = await http(app)
      .post('/things')
      .set('Authorization', bearer('write:things'))
      .type('json')
      .send('{"name":')
      .expect(400);
    expect(response.body).toMatchObject({ code: 'malformed_body' });
  });

  it('hands a valid call to its handler with its body and the token’s tenant, and writes the typed answer', async () => {
    const created = await http(app)
      .post('/things')
      .set('Authorization', bearer('write:things'))
      .send({ name: 'kettle' })
      .expect(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'kettle', owner: 'sandbox-client' });
    const read = await http(app)
      .get(`/things/${created.body.id}`)
      .set('Authorization', bearer('read:things'))
      .expect(200);
    expect(read.body).toEqual(created.body);
  });

  it('renders a DomainError a handler throws as its problem', async () => {
    const response = await http(app)
      .get('/things/no-such-thing')
      .set('Authorization', bearer('read:things'))
      .expect(404);
    expect(response.body).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'No thing has the id no-such-thing.',
    });
  });

  it('refuses at startup a document with an operation that has no handler', () => {
    const { getThing: _missing, ...fewer } = tinyHandlers() as unknown as Record<string, unknown>;
    expect(() => buildApp(ctx, { handlers: fewer as unknown as OperationHandlers })).toThrow(
      'Operations without a handler: getThing',
    );
  });
});

describe('the pipeline on a tiny document, with a handler that is wrong', () => {
  it('answers 500 internal_error when a handler throws, and logs the error without answering its message', async () => {
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const buggy = buildApp(
      { ...ctx, logger },
      {
        handlers: tinyHandlers({
          getStatus: () => {
            throw new Error('secret internals');
          },
        }),
      },
    );
    const response = await http(buggy).get('/status').expect(500);
    expect(response.body).toMatchObject({ status: 500, code: 'internal_error' });
    expect(JSON.stringify(response.body)).not.toContain('secret internals');
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({
      msg: 'unexpected error',
      path: '/status',
      err: { message: 'secret internals' },
    });
  });

  it('reports an answer that breaks the document once it is sent, naming the field, and answers it unchanged (answers are checked in tests)', async () => {
    const mismatches: AnswerMismatch[] = [];
    const checked = {
      ...ctx,
      options: { ...ctx.options, validateResponses: (mismatch: AnswerMismatch) => void mismatches.push(mismatch) },
    };
    const wrong = buildApp(checked, {
      handlers: tinyHandlers({ getStatus: () => ({ status: 200, body: { status: 'down' } }) }),
    });
    const response = await http(wrong).get('/status').expect(200);
    expect(response.body).toEqual({ status: 'down' });
    expect(mismatches).toEqual([
      {
        operationId: 'getStatus',
        method: 'GET',
        path: '/status',
        status: 200,
        problems: [expect.stringMatching(/^\/status: must be equal to one of the allowed values: "up"/)],
      },
    ]);
  });

  it('reports a success status the operation documents only by its default (a Problem), answered as JSON', async () => {
    const mismatches: AnswerMismatch[] = [];
    const checked = {
      ...ctx,
      options: { ...ctx.options, validateResponses: (mismatch: AnswerMismatch) => void mismatches.push(mismatch) },
    };
    const undocumented = buildApp(checked, {
      handlers: tinyHandlers({ getStatus: () => ({ status: 202, body: { status: 'up' } }) }),
    });
    await http(undocumented).get('/status').expect(202);
    expect(mismatches).toEqual([
      expect.objectContaining({
        status: 202,
        problems: ['/: application/json is not a media type the document gives for status 202'],
      }),
    ]);
  });
});
