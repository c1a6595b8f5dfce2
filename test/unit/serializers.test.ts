import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadApiDocument } from '../../src/api/document.js';
import type { OperationId, World } from '../../src/api/types.js';
import { listOrders } from '../../src/domain/orders.js';
import { answerSerializer, PRECOMPILED_ANSWERS } from '../../src/http/serializers.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, Tenant } from '../../src/domain/tenants.js';
import { generateWorld } from '../../fixtures/generate.js';
import { http, tokenFor } from '../support/harness.js';

const { document } = loadApiDocument();

/** Orders with every status (so every nullable field both null and set) and strings JSON must escape. */
function worldWithAwkwardStrings(): World {
  const world = generateWorld({ seed: 7, scale: { orders: 300, accounts: 20 } });
  const [first, second, third] = world.orders;
  first!.payment_transaction_reference = 'quote " backslash \\ tab \t newline \n';
  second!.payment_transaction_reference = `lone surrogate \ud800 and U+2028 \u2028 and é ${'x'.repeat(60)}`;
  third!.payment_transaction_reference = '\u0000\u001f';
  return world;
}

describe('compiled serializers of answers', () => {
  it('are those of PRECOMPILED_ANSWERS only', () => {
    expect(answerSerializer(document, 'listOrders', 200)).toBeTypeOf('function');
    expect(answerSerializer(document, 'listAccounts' as OperationId, 200)).toBeUndefined();
  });

  it('write listOrders byte for byte as JSON.stringify, for every page and filter', () => {
    expect([...PRECOMPILED_ANSWERS]).toEqual(['listOrders']);
    const serialize = answerSerializer(document, 'listOrders', 200)!;
    for (const world of [generateWorld({ seed: 1 }), worldWithAwkwardStrings()]) {
      const tenant = new Tenant(toClientRecord({ client_id: 'unit', client_secret: 'unit' }), new Fixtures(world));
      const queries = [{}, { limit: 100 }, { limit: 1 }, { skip: 5, limit: 7 }, { order_status: 'PLACED' }, { side: 'SELL' }, { currency: 'XXX' }];
      for (const query of queries) {
        const body = { data: listOrders(tenant, query as never) };
        expect(serialize(body)).toBe(JSON.stringify(body));
      }
    }
  });

  it('answer the same bytes and Content-Type over HTTP as res.json does', async () => {
    const plain = createApp({ allowedHosts: ['.test'] });
    const validated = createApp({ allowedHosts: ['.test'], validateResponses: true });
    const answer = async (app: typeof plain) =>
      http(app).get('/v1/orders?limit=100').set('Authorization', `Bearer ${await tokenFor(app)}`).buffer(true);
    const compiled = await answer(plain);
    const json = await answer(validated);
    expect(compiled.status).toBe(200);
    expect(compiled.headers['content-type']).toBe(json.headers['content-type']);
    expect(compiled.headers['content-length']).toBe(json.headers['content-length']);
    expect(compiled.text).toBe(json.text);
  });
});
