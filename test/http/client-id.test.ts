// A client id is one thing wherever a client is made: `POST /__control/clients` (the document's schema), CLIENTS
// (test/unit/config.test.ts) and the GitHub Action (test/unit/action-inputs.test.ts) all take the definition of
// src/settings-checks.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLIENT_ID, isClientId } from '../../src/settings-checks.js';
import { DEFAULT_CLIENT } from '../../src/domain/clients.js';
import { ROOT } from '../support/cli.js';
import { http, testApp } from '../support/test-app.js';

describe('a client id', () => {
  it("is the document's ClientCreate.client_id and the checks' one definition", () => {
    const document = parse(readFileSync(join(ROOT, 'src/api/openapi.yaml'), 'utf8')) as {
      components: { schemas: { ClientCreate: { properties: { client_id: Record<string, unknown> } } } };
    };
    expect(document.components.schemas.ClientCreate.properties.client_id).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: CLIENT_ID.maxLength,
      pattern: CLIENT_ID.pattern,
    });
    expect(CLIENT_ID.maxLength).toBe(128);
  });

  it('fits the default client and the demo partner', () => {
    expect(isClientId(DEFAULT_CLIENT.client_id)).toBe(true);
    expect(isClientId('demo-partner')).toBe(true);
  });

  it.each([
    ['129 characters', 'a'.repeat(129)],
    ['a line break', 'x\n::warning file=x::injected by client_id'],
    ['a trailing line break', 'acme\n'],
    ['a space', 'acme web'],
    ['a slash', 'acme/web'],
    ['a U+2028', 'acme\u2028web'],
    ['nothing', ''],
  ])('POST /__control/clients refuses one of %s with 422 naming client_id, and makes nothing', async (_, id) => {
    const app = testApp();
    const response = await http(app).post('/__control/clients').send({ client_id: id, client_secret: 's' });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    const errors = response.body.errors as { location: string; path: string }[];
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatchObject({ location: 'body', path: '/client_id' });
    const clients = (await http(app).get('/__control/clients')).body as { data: { client_id: string }[] };
    expect(clients.data.map((c) => c.client_id)).toEqual(['sandbox-client']);
  });

  it('POST /__control/clients takes 128 characters of A-Z, a-z, 0-9 and . _ ~ -', async () => {
    const id = `Az09._~-${'x'.repeat(120)}`;
    const response = await http(testApp()).post('/__control/clients').send({ client_id: id, client_secret: 's' });
    expect(response.status).toBe(201);
    expect(response.body.client_id).toBe(id);
  });
});
