import { describe, expect, it } from 'vitest';
import { closePathFinder } from '../../src/http/close-path.js';

// A 404's "did you mean" for a path a segment away from one document path (src/http/close-path.ts).
const close = closePathFinder([
  { openApiRoute: '/v1/accounts', methods: ['GET', 'POST'] },
  { openApiRoute: '/v1/accounts/{account_id}', methods: ['GET', 'PATCH'] },
  { openApiRoute: '/v1/accounts/{account_id}/wallets', methods: ['GET', 'POST'] },
  {
    openApiRoute: '/v1/accounts/{account_id}/payment-method-details/{payment_method_details_id}',
    methods: ['GET', 'PATCH'],
  },
  { openApiRoute: '/v1/orders', methods: ['GET'] },
  { openApiRoute: '/v1/orders/{order_id}/', methods: ['DELETE'] },
  { openApiRoute: '/v1/share-classes', methods: ['GET'] },
  { openApiRoute: '/v1/share-classes/{isin}', methods: ['GET'] },
  { openApiRoute: '/v1/funds/{abbreviation}/documents', methods: ['GET'] },
  { openApiRoute: '/files/{client_id}/{file_name}', methods: ['GET'] },
]);

describe('the document path a refused path is close to', () => {
  it('a fixed segment a few edits off, in any case', () => {
    expect(close('GET', '/v1/acounts')).toEqual({
      openApiRoute: '/v1/accounts',
      spelling: '/v1/accounts',
      difference: 'accounts, not acounts',
    });
    expect(close('GET', '/v1/ACCOUNTZ/a1/walet')).toEqual({
      openApiRoute: '/v1/accounts/{account_id}/wallets',
      spelling: '/v1/accounts/a1/wallets',
      difference: 'accounts, not ACCOUNTZ; wallets, not walet',
    });
    expect(close('GET', '/filez/acme/x.pdf')?.spelling).toBe('/files/acme/x.pdf');
  });

  it('a segment missing, a parameter or a fixed one, written as the document names it', () => {
    expect(close('GET', '/v1/accounts/a1/payment-method-details')).toMatchObject({
      spelling: '/v1/accounts/a1/payment-method-details/{payment_method_details_id}',
      difference: 'a segment missing: {payment_method_details_id}',
    });
    expect(close('POST', '/v1/a1/wallets')).toMatchObject({
      spelling: '/v1/accounts/a1/wallets',
      difference: 'a segment missing: accounts',
    });
  });

  it('a segment too many, the one that is a word of the document rather than a value', () => {
    expect(close('GET', '/v1/share-classes/IE00B4L5Y983/documents')).toMatchObject({
      spelling: '/v1/share-classes/IE00B4L5Y983',
      difference: 'a segment too many: documents',
    });
    expect(close('GET', '/v1/orders/o1')).toMatchObject({
      spelling: '/v1/orders',
      difference: 'a segment too many: o1',
    });
  });

  it("keeps the document's trailing slash and names the slashes the request got wrong", () => {
    expect(close('DELETE', '/v1/order/o1')).toEqual({
      openApiRoute: '/v1/orders/{order_id}/',
      spelling: '/v1/orders/o1/',
      difference: 'orders, not order; with the trailing slash',
    });
    expect(close('GET', '/v1//acounts/')?.difference).toBe(
      'accounts, not acounts; no doubled slashes; without the trailing slash',
    );
  });

  it('guesses nothing when two paths are as close, when the method is not there, or when too little of the path is', () => {
    expect(close('GET', '/v1')).toBeUndefined(); // /v1/accounts, /v1/orders, /v1/share-classes: each a segment away
    expect(close('GET', '/v1/portfolios')).toBeUndefined(); // only v1 is there
    expect(close('GET', '/x/y')).toBeUndefined(); // /files/{client_id}/{file_name} less its one fixed segment
    expect(close('PUT', '/v1/acounts')).toBeUndefined();
    expect(close('GET', '/v1/accounts/a1/wallets/w1/x')).toBeUndefined(); // two segments too many
    expect(close('GET', '/v2/accounts')).toBeUndefined(); // a two-letter segment is never off
  });

  it('does not read a path past its bounds', () => {
    expect(close('GET', `/v1/${'a'.repeat(3000)}`)).toBeUndefined();
    expect(close('GET', `/v1/accounts${'/x'.repeat(40)}`)).toBeUndefined();
  });
});
