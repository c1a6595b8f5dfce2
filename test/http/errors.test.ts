import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { http, testApp, tokenFor } from '../support/test-app.js';

describe('every error is an application/problem+json as docs/api.md has it', () => {
  let app: Express;
  let auth: { Authorization: string };
  beforeAll(async () => {
    app = testApp();
    auth = { Authorization: `Bearer ${await tokenFor(app)}` };
  });

  const expectProblem = (
    response: { status: number; headers: Record<string, string>; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      status,
      code,
      type: `urn:problem:investment-api-fake:${code}`,
      title: expect.any(String),
      detail: expect.any(String),
    });
  };

  it('404 route_not_found for an unknown path', async () => {
    expectProblem(await http(app).get('/v2/nothing').set(auth), 404, 'route_not_found');
  });

  it('404 route_not_found for cancel without the trailing slash, with a hint', async () => {
    const response = await http(app).delete('/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6').set(auth);
    expectProblem(response, 404, 'route_not_found');
    expect(response.body.detail).toContain('trailing slash');
  });

  it('405 method_not_allowed with Allow for a known path and another method', async () => {
    const response = await http(app).put('/v1/share-classes').set(auth);
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET');
  });

  it('400 malformed_body for unparseable JSON, naming the parse error', async () => {
    const response = await http(app)
      .post('/__control/clients')
      .set('Content-Type', 'application/json')
      .send('{"client_id": ');
    expectProblem(response, 400, 'malformed_body');
  });

  it('400 malformed_body for a Content-Encoding whose data does not inflate', async () => {
    const response = await http(app)
      .post('/__control/clients')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send('{}');
    expectProblem(response, 400, 'malformed_body');
  });

  it('415 unsupported_media_type for a Content-Encoding the fake cannot inflate, naming it', async () => {
    const response = await http(app)
      .post('/__control/clients')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'compress')
      .send('{}');
    expectProblem(response, 415, 'unsupported_media_type');
    expect(response.body.detail).toContain('compress');
  });

  it('415 unsupported_media_type for JSON in a charset other than UTF-8', async () => {
    const response = await http(app)
      .post('/__control/clients')
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{}');
    expectProblem(response, 415, 'unsupported_media_type');
    expect(response.body.detail.toLowerCase()).toContain('latin1');
  });

  it('400 malformed_uri for a path that is not valid percent-encoding', async () => {
    expectProblem(await http(app).get('/v1/share-classes/%E0%A4%A').set(auth), 400, 'malformed_uri');
  });

  it('413 payload_too_large over 1 MiB', async () => {
    const big = JSON.stringify({ client_id: 'x', client_secret: 'y'.repeat(1024 * 1024 + 10) });
    const response = await http(app).post('/__control/clients').set('Content-Type', 'application/json').send(big);
    expectProblem(response, 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON where JSON is expected', async () => {
    const response = await http(app).post('/__control/clients').set('Content-Type', 'text/plain').send('client_id=x');
    expectProblem(response, 415, 'unsupported_media_type');
    expect(response.body.detail).toContain('application/json');
  });

  it('422 validation_error naming every failing query field with its location', async () => {
    const response = await http(app).get('/v1/orders?limit=0&side=HOLD&account_id=nope').set(auth);
    expectProblem(response, 422, 'validation_error');
    const errors = response.body.errors as { location: string; path: string }[];
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'query', path: '/limit' }),
        expect.objectContaining({ location: 'query', path: '/side' }),
        expect.objectContaining({ location: 'query', path: '/account_id' }),
      ]),
    );
  });

  it('422 for limit over 1000 and skip below 0', async () => {
    expectProblem(await http(app).get('/v1/assets?limit=1001').set(auth), 422, 'validation_error');
    expectProblem(await http(app).get('/v1/assets?skip=-1').set(auth), 422, 'validation_error');
  });

  it('422 for an unknown query parameter, naming it', async () => {
    const response = await http(app).get('/v1/assets?colour=blue').set(auth);
    expectProblem(response, 422, 'validation_error');
    expect(response.body.errors).toEqual([expect.objectContaining({ location: 'query', path: '/colour' })]);
  });

  it('422 for a boolean filter that is not true/false', async () => {
    const response = await http(app).get('/v1/assets?tradeable=yes').set(auth);
    expectProblem(response, 422, 'validation_error');
    expect(response.body.errors[0]).toMatchObject({ location: 'query', path: '/tradeable' });
  });

  it('422 naming a path parameter that is not a uuid', async () => {
    const response = await http(app).get('/v1/accounts/42').set(auth);
    expectProblem(response, 422, 'validation_error');
    expect(response.body.errors[0]).toMatchObject({ location: 'path', path: '/account_id' });
  });

  it('422 naming body fields: unknown ones and wrong types', async () => {
    const response = await http(app)
      .post('/__control/clients')
      .send({ client_id: 5, client_secret: 'x', colour: 'red' });
    expectProblem(response, 422, 'validation_error');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'body', path: '/client_id' }),
        expect.objectContaining({ location: 'body', path: '/colour' }),
      ]),
    );
  });
});
