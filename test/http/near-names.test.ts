import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawConnection } from '../support/raw-socket.js';
import { bearer, http, signedIn, type SignedIn } from '../support/test-app.js';

const ORDER_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

let session: SignedIn;
beforeAll(async () => {
  session = await signedIn();
});

const post = (path: string) => http(session.app).post(path).set(bearer(session.token));

describe('an unknown name a step away from one the operation has is named', () => {
  it('?status=PLACED on the orders list: the same 422, naming order_status in the detail and the message', async () => {
    const response = await session.get('/v1/orders?status=PLACED');
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_error');
    expect(response.body.errors).toEqual([
      {
        location: 'query',
        path: '/status',
        message: "Unknown query parameter 'status' (did you mean `order_status`?)",
      },
    ]);
    expect(response.body.detail).toBe(
      "The request is not valid: query /status: Unknown query parameter 'status' (did you mean `order_status`?).",
    );
  });

  it.each([
    ['page=2', 'page', 'skip'],
    ['offset=2', 'offset', 'skip'],
    ['per_page=5', 'per_page', 'limit'],
    ['Limit=5', 'Limit', 'limit'],
    ['order-status=PLACED', 'order-status', 'order_status'],
    ['acount_id=x', 'acount_id', 'account_id'],
    ['isni=x', 'isni', 'isin'],
  ])('?%s names `%s`’s near name %s', async (query, sent, near) => {
    const response = await session.get(`/v1/orders?${query}`);
    expect(response.status).toBe(422);
    const error = (response.body.errors as { path: string; message: string }[]).find((e) => e.path === `/${sent}`);
    expect(error?.message).toContain(`(did you mean \`${near}\`?)`);
    expect(response.body.detail).toContain(`did you mean \`${near}\`?`);
  });

  it('a name near none (or a value the parameter refuses) is answered as before, with no guess', async () => {
    const far = await session.get('/v1/orders?colour=red');
    expect(far.status).toBe(422);
    expect(far.body.errors).toEqual([
      { location: 'query', path: '/colour', message: "Unknown query parameter 'colour'" },
    ]);
    const wrongValue = await session.get('/v1/orders?order_status=SHIPPED');
    expect(wrongValue.status).toBe(422);
    expect(JSON.stringify(wrongValue.body)).not.toContain('did you mean');
  });

  it('First_name on an account create names first_name, as every other member a step away', async () => {
    const response = await post('/v1/accounts').send({ type: 'individual', First_name: 'Ada', lastname: 'L' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      {
        location: 'body',
        path: '/First_name',
        message: 'must NOT have additional properties (did you mean `first_name`?)',
      },
      {
        location: 'body',
        path: '/lastname',
        message: 'must NOT have additional properties (did you mean `last_name`?)',
      },
    ]);
    expect(response.body.detail).toContain(
      'body /First_name: must NOT have additional properties (did you mean `first_name`?)',
    );
  });

  it('a member of a nested object is named from that object’s own schema', async () => {
    const response = await post('/v1/accounts').send({
      type: 'individual',
      payment_methods: [{ type: 'sepa', IBAN: 'DE89370400440532013000', account_holder_name: 'Ada' }],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual({
      location: 'body',
      path: '/payment_methods/0/IBAN',
      message: 'must NOT have additional properties (did you mean `iban`?)',
    });
  });

  it('the control plane’s bodies too: settings’ own members', async () => {
    const response = await http(session.app)
      .patch('/__control/clients/sandbox-client')
      .send({ settings: { tax_reportng: true } });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body.errors)).toContain('did you mean `tax_reporting`?');
  });
});

describe('a request that sends no body where a JSON one is required', () => {
  const required = {
    location: 'body',
    path: '/',
    message: 'a JSON body is required',
  };

  it('Content-Type: application/json and an empty body: 422 "a JSON body is required" at body /', async () => {
    const response = await post('/v1/accounts').set('Content-Type', 'application/json').send('');
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      code: 'validation_error',
      detail: 'The request is not valid: body /: a JSON body is required.',
      errors: [required],
    });
  });

  it('no body at all, with or without a Content-Type: the same, not a 415 nor a missing property', async () => {
    const server = createServer(session.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      for (const type of ['Content-Type: application/json\r\n', '']) {
        const connection = await rawConnection((server.address() as AddressInfo).port);
        const answer = await connection.sendUntilClosed(
          `POST /v1/accounts HTTP/1.1\r\nHost: fake.test\r\nAuthorization: Bearer ${session.token}\r\n${type}Connection: close\r\n\r\n`,
        );
        expect(answer).toMatch(/^HTTP\/1\.1 422 /);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errors).toEqual([required]);
      }
    } finally {
      server.close();
    }
  });

  it('an empty PATCH is refused and changes nothing (it reached the handler as no body, a 500)', async () => {
    const account = session.world.accounts[0]!;
    const before = (await session.get(`/v1/accounts/${account.id}`)).body;
    const response = await http(session.app)
      .patch(`/v1/accounts/${account.id}`)
      .set(bearer(session.token))
      .set('Content-Type', 'application/json')
      .send('');
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([required]);
    expect((await session.get(`/v1/accounts/${account.id}`)).body).toEqual(before);
  });

  it('an operation whose body is optional still takes none', async () => {
    await http(session.app).post('/__control/reset').set('Content-Length', '0').expect(204);
  });

  it('an empty object is a body: its fields are named as before', async () => {
    const response = await post('/v1/accounts').send({});
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      { location: 'body', path: '/type', message: "must have required property 'type'" },
    ]);
  });
});

describe('GET of one order, which the interface does not have', () => {
  it('GET /v1/orders/{id}: the 404 it was, naming the list and its account_id and isin filters', async () => {
    const response = await session.get(`/v1/orders/${ORDER_ID}`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('route_not_found');
    expect(response.body.detail).toContain(`No operation at GET /v1/orders/${ORDER_ID}.`);
    expect(response.body.detail).toContain('GET /v1/orders lists them, filtered by `account_id`, `isin`');
  });

  it('GET /v1/orders/{id}/ (the cancel’s path): the 405 with Allow it was, naming the list too', async () => {
    const response = await session.get(`/v1/orders/${ORDER_ID}/`);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('DELETE');
    expect(response.body.code).toBe('method_not_allowed');
    expect(response.body.detail).toContain('GET /v1/orders lists them, filtered by `account_id`, `isin`');
  });

  it('a path with its own GET, or another method, gets no such hint', async () => {
    const cancel = await http(session.app).delete(`/v1/orders/${ORDER_ID}`).set(bearer(session.token));
    expect(cancel.status).toBe(404);
    expect(cancel.body.detail).not.toContain('lists them');
    const unknown = await session.get('/v1/nothing/here');
    expect(unknown.body.detail).not.toContain('lists them');
  });
});
