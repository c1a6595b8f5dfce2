import { describe, expect, it } from 'vitest';
import { overBudget } from '../../src/http/body-bounds.js';
import { inlineSchemaRefs } from '../../src/api/operation-document.js';

describe('overBudget', () => {
  it('is undefined for a body within the budget, counting items and members at every level', () => {
    expect(overBudget({ a: [1, 2], b: { c: 3 } }, 5)).toBeUndefined();
    expect(overBudget('text', 0)).toBeUndefined();
  });

  it('names the array or object whose members pass the budget, by JSON pointer (escaped), with its size', () => {
    expect(overBudget({ a: [1, 2], b: { c: 3 } }, 4)).toEqual({ path: '/b', kind: 'object', members: 1 });
    expect(overBudget({ 'x/y~': [[1, 2, 3, 4]] }, 4)).toEqual({ path: '/x~1y~0/0', kind: 'array', members: 4 });
    expect(overBudget([1, 2, 3], 2)).toEqual({ path: '', kind: 'array', members: 3 });
  });

  it('counts each object as its members plus what it could miss', () => {
    // the body object 13, its member 1, the array's two items 2 + two objects 2 × 13
    expect(overBudget({ a: [{}, {}] }, 42, 13)).toBeUndefined();
    expect(overBudget({ a: [{}, {}] }, 41, 13)).toEqual({ path: '/a', kind: 'array', members: 2 });
  });
});

describe('inlineSchemaRefs', () => {
  const schemas = {
    Item: { type: 'object', properties: { kind: { $ref: '#/components/schemas/Kind' } } },
    Kind: { type: 'string', enum: ['a'] },
    Tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } },
  };

  it('writes referenced component schemas in place, through every level', () => {
    expect(inlineSchemaRefs({ type: 'array', items: { $ref: '#/components/schemas/Item' } }, schemas)).toEqual({
      type: 'array',
      items: { type: 'object', properties: { kind: { type: 'string', enum: ['a'] } } },
    });
  });

  it('leaves a schema that names itself again as a reference, and references with siblings or to other kinds', () => {
    expect(inlineSchemaRefs({ $ref: '#/components/schemas/Tree' }, schemas)).toEqual({
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } },
    });
    const sibling = { $ref: '#/components/schemas/Kind', description: 'kept' };
    expect(inlineSchemaRefs(sibling, schemas)).toEqual(sibling);
    expect(inlineSchemaRefs({ $ref: '#/components/parameters/Limit' }, schemas)).toEqual({
      $ref: '#/components/parameters/Limit',
    });
  });
});
