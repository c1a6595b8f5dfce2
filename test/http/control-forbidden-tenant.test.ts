import { describe, expect, it } from 'vitest';
import type { Test } from 'supertest';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import type { Schemas, World } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

// A partner's control token that names another tenant (X-Client-Id or ?client_id=)
// answers 403 forbidden_tenant on every control operation, reading one request by id included.
const OPERATOR = 'operator-secret';
const operator = { Authorization: `Bearer ${OPERATOR}` };
const SCOPES: Schemas['ApiScope'][] = ['read:accounts', 'write:accounts', 'read:orders', 'write:orders', 'control'];

/**
 * Health takes no token (the Docker health check): it names no caller, so it has no tenant to confine, and its
 * answer holds nothing of any tenant. Every other control operation of the document is walked.
 */
const TOKEN_LESS = new Set(['getHealth']);

async function sandboxWithTwoPartners() {
  const app = testApp({
    controlToken: OPERATOR,
    clients: [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      ...['acme', 'globex'].map((id) => ({ client_id: id, client_secret: `${id}-secret`, scopes: SCOPES })),
    ],
  });
  const acme = await tokenFor(app, {
    client_id: 'acme',
    client_secret: 'acme-secret',
    scope: 'openid offline control',
  });
  return { app, acme };
}

const stateOf = async (app: ReturnType<typeof testApp>, clientId: string): Promise<World> =>
  (
    await http(app)
      .get('/__control/state')
      .set({ ...operator, 'X-Client-Id': clientId })
  ).body as World;

describe('a partner naming another tenant', () => {
  it('answers 403 forbidden_tenant on every control operation of the document, by header or by query, and changes nothing', async () => {
    const { app, acme } = await sandboxWithTwoPartners();
    const own = { Authorization: `Bearer ${acme}` };
    // identifiers of acme's own, so that the tenant named is the only thing wrong with each request
    await http(app).get('/v1/accounts').set(own).expect(200);
    const world = await stateOf(app, 'acme');
    const requestId = ((await http(app).get('/__control/requests').set(own)).body.data as { id: string }[])[0]!.id;
    const faultId = (
      (await http(app).post('/__control/faults').set(own).send({ status: 503, path: '/v1/nothing' }).expect(201))
        .body as { id: string }
    ).id;
    const ownIds: Record<string, string> = {
      client_id: 'acme',
      account_id: world.accounts[0]!.id,
      order_id: world.orders[0]!.id,
      fault_id: faultId,
      request_id: requestId,
    };
    const before = { acme: await stateOf(app, 'acme'), globex: await stateOf(app, 'globex') };

    const operations = operationsOf(loadApiDocument().document).filter(
      (op) => op.path.startsWith('/__control') && !TOKEN_LESS.has(op.operationId),
    );
    expect(operations.map((op) => op.operationId)).toContain('getRequestExchange');
    const agent = http(app) as unknown as Record<string, (path: string) => Test>;
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ownIds[name] ?? 'x');
      for (const naming of ['header', 'query'] as const) {
        let request = agent[op.method]!(naming === 'query' ? `${path}?client_id=globex` : path).set(own);
        if (naming === 'header') request = request.set('X-Client-Id', 'globex');
        const response = await (op.method === 'get' || op.method === 'delete' ? request : request.send({}));
        const what = `${op.operationId} (${op.method.toUpperCase()} ${path}, named by ${naming})`;
        expect(response.status, `${what} → ${response.status} ${response.text.slice(0, 200)}`).toBe(403);
        expect(response.body.code, what).toBe('forbidden_tenant');
      }
    }
    expect({ acme: await stateOf(app, 'acme'), globex: await stateOf(app, 'globex') }).toEqual(before);
  });

  it('GET /__control/requests/{id} with another tenant named: 403, where it answered its own entry; its own name or none: 200', async () => {
    const { app, acme } = await sandboxWithTwoPartners();
    const own = { Authorization: `Bearer ${acme}` };
    await http(app).get('/v1/accounts').set(own).expect(200);
    const requestId = ((await http(app).get('/__control/requests').set(own)).body.data as { id: string }[])[0]!.id;
    const path = `/__control/requests/${requestId}`;
    expect((await http(app).get(path).set(own).set('X-Client-Id', 'globex')).body.code).toBe('forbidden_tenant');
    expect((await http(app).get(`${path}?client_id=sandbox-client`).set(own)).status).toBe(403);
    // a second X-Client-Id cannot hide the other tenant behind its own name (Node joins repeated ones so)
    expect((await http(app).get(path).set(own).set('X-Client-Id', 'acme, globex')).status).toBe(403);
    expect((await http(app).get(`${path}?client_id=acme&client_id=globex`).set(own)).status).toBe(403);
    expect((await http(app).get(path).set(own).set('X-Client-Id', 'acme')).status).toBe(200);
    expect((await http(app).get(path).set(own)).status).toBe(200);
    // the operator names any tenant
    expect((await http(app).get(path).set(operator).set('X-Client-Id', 'globex')).status).toBe(200);
  });

  it('is refused on the MCP endpoint too, before a session opens', async () => {
    const { app, acme } = await sandboxWithTwoPartners();
    const response = await http(app)
      .post('/__control/mcp')
      .set({ Authorization: `Bearer ${acme}`, 'X-Client-Id': 'globex', Accept: 'application/json, text/event-stream' })
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'partner', version: '1' } },
      });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden_tenant');
  });
});
