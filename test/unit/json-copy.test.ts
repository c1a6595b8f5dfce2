import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, Tenant } from '../../src/domain/tenants.js';
import { copyOfJson } from '../../src/store/json-copy.js';

/** Every object and array reachable from `value`. */
function objectsOf(value: unknown, into: unknown[] = []): unknown[] {
  if (typeof value !== 'object' || value === null) return into;
  into.push(value);
  for (const member of Object.values(value)) objectsOf(member, into);
  return into;
}

describe('copyOfJson', () => {
  const world = generateWorld({ seed: 3, scale: { accounts: 12, orders: 40 } });

  it('makes of a world what structuredClone makes, sharing no object or array with it', () => {
    const copy = copyOfJson(world);
    expect(copy).toStrictEqual(structuredClone(world));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(world));
    const originals = new Set(objectsOf(world));
    const copied = objectsOf(copy);
    expect(copied.length).toBe(originals.size);
    expect(copied.filter((object) => originals.has(object))).toEqual([]);
  });

  it('keeps a `__proto__` member a member, at any depth, and never sets the prototype', () => {
    const data = JSON.parse('{"__proto__":{"polluted":1},"list":[{"__proto__":[1,{"deep":true}]}],"n":null}');
    const copy = copyOfJson(data);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(copy.list[0])).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(data));
    const member = (of: object) => Object.getOwnPropertyDescriptor(of, '__proto__')?.value;
    expect(member(copy)).toEqual({ polluted: 1 });
    expect(member(copy)).not.toBe(member(data));
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });
});

describe("a tenant's reset", () => {
  it('gives the fixtures byte for byte again after its world was changed in place, the fixtures untouched', () => {
    const fixtures = new Fixtures(generateWorld({ seed: 5 }), 5);
    const pristine = JSON.stringify(fixtures.freshCopy());
    const tenant = new Tenant(toClientRecord({ client_id: 'copy-test', client_secret: 's' }), fixtures);
    for (const order of tenant.store.orders) order.status = 'CANCELLED';
    tenant.store.orders[0]!.sender_payment_method_details = null;
    tenant.store.accounts.pop();
    tenant.reset();
    expect(JSON.stringify(tenant.store.snapshotView())).toBe(pristine);
    expect(JSON.stringify(fixtures.freshCopy())).toBe(pristine);
    expect(tenant.store.accountById.size).toBe(tenant.store.accounts.length);
  });
});
