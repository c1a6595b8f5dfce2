import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/app.js';
import { ReadCache } from '../../src/http/read-cache.js';

// The read cache's bounds (src/http/read-cache.ts): answers and bytes per tenant, bytes in all, least recently used first.
const tenants = () => {
  const ctx = createContext();
  ctx.tenants.add({ ...ctx.tenants.get('sandbox-client').client, client_id: 'other' });
  return [ctx.tenants.get('sandbox-client'), ctx.tenants.get('other')] as const;
};
const answer = (text: string) => ({ text, itemCount: undefined, from: 0, until: Number.POSITIVE_INFINITY });

describe('ReadCache', () => {
  it('keeps at most answersPerTenant answers, dropping the least recently used', () => {
    const [tenant] = tenants();
    const cache = new ReadCache({ answersPerTenant: 3, bytesPerTenant: 1e6, bytes: 1e6 });
    const version = tenant.version;
    for (const key of ['a', 'b', 'c']) cache.keep(tenant, key, version, answer(key));
    expect(cache.find(tenant, version, 'a', 1)?.encoded.toString()).toBe('a'); // a is now the most recently used
    cache.keep(tenant, 'd', version, answer('d'));
    expect(cache.size.answers).toBe(3);
    expect(cache.find(tenant, version, 'b', 1)).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => cache.find(tenant, version, key, 1)?.encoded.toString())).toEqual(['a', 'c', 'd']);
  });

  it('keeps at most bytesPerTenant bytes a tenant and bytes in all, the tenant used least recently losing first', () => {
    const [one, two] = tenants();
    // an answer of 100 bytes holds 200: its bytes and the journal's copy
    const cache = new ReadCache({ answersPerTenant: 100, bytesPerTenant: 800, bytes: 1200 });
    for (let i = 0; i < 10; i++) cache.keep(one, `k${i}`, one.version, answer('x'.repeat(100)));
    expect(cache.size).toEqual({ answers: 4, bytes: 800, tenants: 1 });
    cache.keep(two, 'k', two.version, answer('y'.repeat(100)));
    cache.keep(two, 'l', two.version, answer('y'.repeat(100)));
    cache.keep(two, 'm', two.version, answer('y'.repeat(100)));
    expect(cache.size.bytes).toBeLessThanOrEqual(1200);
    expect(cache.find(two, two.version, 'm', 1)).toBeDefined();
    expect(cache.find(one, one.version, 'k9', 1)).toBeUndefined();
    // an answer over a quarter of a tenant's bytes is not kept at all
    cache.keep(two, 'big', two.version, answer('z'.repeat(101)));
    expect(cache.find(two, two.version, 'big', 1)).toBeUndefined();
  });

  it('serves an answer only at its version and within [from, until) of the clock', () => {
    const [tenant] = tenants();
    const cache = new ReadCache();
    const version = tenant.version;
    cache.keep(tenant, 'k', version, { text: 't', itemCount: 1, from: 100, until: 200 });
    expect(cache.find(tenant, version, 'k', 99)).toBeUndefined();
    cache.keep(tenant, 'k', version, { text: 't', itemCount: 1, from: 100, until: 200 });
    expect(cache.find(tenant, version, 'k', 150)?.itemCount).toBe(1);
    expect(cache.find(tenant, version, 'k', 200)).toBeUndefined();
    cache.keep(tenant, 'k', version, { text: 't', itemCount: 1, from: 100, until: 200 });
    tenant.changed();
    expect(cache.find(tenant, tenant.version, 'k', 150)).toBeUndefined();
    expect(cache.size.answers).toBe(0);
    // an answer computed at a version the world has left is not kept
    cache.keep(tenant, 'k', version, { text: 't', itemCount: 1, from: 100, until: 200 });
    expect(cache.size.answers).toBe(0);
  });
});
