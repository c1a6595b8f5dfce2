import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { compileWorldValidator, loadApiDocument, operationsOf } from '../../src/api/document.js';

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

describe('compileWorldValidator: a fixtures world against the document’s World schema', () => {
  const validate = compileWorldValidator(document);

  it('accepts a generated world', () => {
    expect(validate(generateWorld({ seed: 2, scale: { accounts: 2, orders: 2 } }))).toEqual([]);
  });

  it('names an unknown field by its own path, a wrong type by where it is, and a missing list at the root', () => {
    const world = generateWorld({ seed: 2, scale: { accounts: 2, orders: 2 } });
    const errors = validate({ ...world, accounts: [{ ...world.accounts[0], nickname: 'x' }], orders: 'none', feeder_funds: undefined });
    expect(errors).toContainEqual({ location: 'body', path: '/accounts/0/nickname', message: 'must NOT have additional properties' });
    expect(errors).toContainEqual({ location: 'body', path: '/orders', message: 'must be array' });
    expect(errors).toContainEqual({ location: 'body', path: '/', message: "must have required property 'feeder_funds'" });
  });
});
