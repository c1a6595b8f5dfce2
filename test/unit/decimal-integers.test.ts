import { describe, expect, it } from 'vitest';
import type { Request } from 'express';
import { loadApiDocument, type ApiDocument } from '../../src/api/document.js';
import { decimalIntegers } from '../../src/http/decimal-integers.js';
import { compileParameterCheck } from '../../src/http/parameter-check.js';
import { stateOf } from '../../src/http/request-state.js';
import type { RouteMatch } from '../../src/http/route-match.js';

// Every integer parameter the document has, wherever it is (query, path, header; an operation's or its path item's;
// through a $ref), is refused unless in decimal digits: the control plane's as the public API's.
const DOCUMENT = {
  openapi: '3.0.3',
  paths: {
    '/__control/pages/{page}': {
      parameters: [{ name: 'page', in: 'path', required: true, schema: { type: 'integer' } }],
      post: {
        operationId: 'turnPage',
        parameters: [
          { $ref: '#/components/parameters/Count' },
          { name: 'X-Depth', in: 'header', schema: { $ref: '#/components/schemas/Depth' } },
          { name: 'note', in: 'query', schema: { type: 'string' } },
        ],
        responses: {},
      },
    },
    '/plain': {
      get: {
        operationId: 'plain',
        parameters: [{ name: 'note', in: 'query', schema: { type: 'string' } }],
        responses: {},
      },
    },
  },
  components: {
    schemas: { Depth: { type: 'integer', minimum: 0 } },
    parameters: { Count: { name: 'count', in: 'query', schema: { type: 'integer' } } },
  },
} as unknown as ApiDocument;

function run(query: Record<string, unknown>, page: string, depth?: string): unknown {
  const step = decimalIntegers(DOCUMENT, { method: 'post', path: '/__control/pages/{page}' })!;
  const req = { query, get: (name: string) => (name === 'X-Depth' ? depth : undefined) } as unknown as Request;
  stateOf(req).route = { pathParams: { page } } as unknown as RouteMatch;
  try {
    let passed = false;
    step(req, {} as never, () => (passed = true));
    return passed ? 'next' : 'stopped';
  } catch (error) {
    return error;
  }
}

describe('integer parameters in decimal digits', () => {
  it('lets decimal digits and a leading minus through, and strings that are not integers to the validator', () => {
    expect(run({ count: '12', note: '0x10' }, '-3', '007')).toBe('next');
    expect(run({}, '1')).toBe('next');
  });

  it('refuses any other spelling of a number in the query, the path or a header, naming each', () => {
    expect(run({ count: '0x10' }, '1e3', '+5')).toMatchObject({
      status: 400,
      errors: [
        { path: '/path/page', message: 'must be integer (decimal digits, an optional leading -)' },
        { path: '/query/count', message: 'must be integer (decimal digits, an optional leading -)' },
        { path: '/headers/X-Depth', message: 'must be integer (decimal digits, an optional leading -)' },
      ],
    });
    expect(run({ count: ['1', '5.0'] }, '1')).toMatchObject({ errors: [{ path: '/query/count' }] });
  });

  it('is no step at all for an operation without integer parameters', () => {
    expect(decimalIntegers(DOCUMENT, { method: 'get', path: '/plain' })).toBeUndefined();
  });
});

describe('the parameter check', () => {
  const check = compileParameterCheck(loadApiDocument().document, {
    operationId: 'listOrders',
    method: 'get',
    path: '/v1/orders',
  })!;
  const url = (query: string) => ({ url: `/v1/orders?${query}`, pathParams: {}, headers: {} });

  it('takes integers in decimal digits, as numbers', () => {
    expect(check(url('limit=5&skip=%31'))).toMatchObject({ limit: 5, skip: 1 });
  });

  it('refuses every other spelling of a number, naming the parameter, as the validator path does', () => {
    for (const raw of ['0x10', '1e3', '%2B5', '%205', '5.0', '0b1', 'Infinity'])
      expect(() => check(url(`limit=${raw}`)), raw).toThrow(
        expect.objectContaining({
          status: 400,
          errors: [{ path: '/query/limit', message: 'must be integer (decimal digits, an optional leading -)' }],
        }),
      );
  });
});
