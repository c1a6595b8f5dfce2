import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { createContext } from '../../src/context.js';
import { productApp } from '../../src/satellites.js';
import { http, tokenFor } from '../support/test-app.js';

// docs/api.md: integer parameters are decimal digits with an optional leading `-`. The validator's Ajv reads a query
// value with Number(), which also takes hex, exponents, a sign, spaces and fractions; both paths of a read refuse them.
const BAD: [string, string][] = [
  ['skip', '0x10'],
  ['limit', '1e3'],
  ['skip', '+5'],
  ['skip', '%2B5'],
  ['limit', '%205'],
  ['limit', '5%20'],
  ['limit', '5.0'],
  ['limit', '0b1'],
  ['limit', '0o7'],
  ['skip', 'Infinity'],
  ['limit', '%EF%BC%95'],
];

describe.each([
  ['the parameter check', {}],
  ['express-openapi-validator', { parameters: 'validator' as const }],
])('integer parameters through %s', (_label, pipeline) => {
  let app: Express;
  let auth: Record<string, string>;
  beforeAll(async () => {
    app = productApp(createContext({ allowedHosts: ['.test'] }), { pipeline });
    auth = { Authorization: `Bearer ${await tokenFor(app)}` };
  });

  it.each(BAD)('%s=%s answers 422 validation_error naming the parameter', async (name, value) => {
    for (const path of ['/v1/orders', '/v1/accounts', '/v1/assets']) {
      const response = await http(app).get(`${path}?${name}=${value}`).set(auth);
      expect(response.status, path).toBe(422);
      expect(response.body).toMatchObject({
        code: 'validation_error',
        errors: [
          { location: 'query', path: `/${name}`, message: 'must be integer (decimal digits, an optional leading -)' },
        ],
      });
    }
  });

  it('an empty value answers 422 naming the parameter too', async () => {
    const response = await http(app).get('/v1/orders?limit=').set(auth);
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ location: 'query', path: '/limit' })]);
  });

  it('names every integer written otherwise, and a repeated one with any such value', async () => {
    const both = await http(app).get('/v1/orders?limit=0x2&skip=1e1').set(auth);
    expect(both.status).toBe(422);
    expect(both.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/limit', '/skip']);
    expect((await http(app).get('/v1/orders?limit=5&limit=0x1').set(auth)).status).toBe(422);
  });

  it('decimal digits are read as before: leading zeros, digits percent-encoded, a minus sign checked against the minimum', async () => {
    const page = await http(app).get('/v1/orders?limit=02&skip=%31').set(auth);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    const negative = await http(app).get('/v1/orders?skip=-1').set(auth);
    expect(negative.status).toBe(422);
    expect(negative.body.errors[0]).toMatchObject({ path: '/skip', message: 'must be >= 0' });
  });
});
