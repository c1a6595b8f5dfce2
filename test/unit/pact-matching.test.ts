import { describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/api/document.js';
import { bodyRules, contractExample, INSTANT_PATTERN, UUID_PATTERN } from '../../src/proof/pact/matching.js';
import { Sightings } from '../../src/proof/pact/sightings.js';
import { relianceOf } from '../../src/proof/pact/states-of.js';

const { document } = loadApiDocument();
const ID = '0b6f2d0e-7c1a-4a53-9d3e-5f1f8e1f2a10';
const ACCOUNT = { id: ID, type: 'individual', first_name: 'Ada', created: '2030-01-02T03:04:05.000Z' };

describe('the matching rules of an exported answer', () => {
  it('match identifiers and instants by regex, the rest by type from the root, lists of any length by their first item', () => {
    const rules = bodyRules(
      { data: [ACCOUNT, { ...ACCOUNT, id: 'x' }], 'odd-name': ID },
      { byType: true, equal: ['$.code'] },
    );
    expect(rules).toEqual({
      $: { combine: 'AND', matchers: [{ match: 'type' }] },
      '$.data': { combine: 'AND', matchers: [{ match: 'type', min: 0 }] },
      '$.data[*].id': { combine: 'AND', matchers: [{ match: 'regex', regex: UUID_PATTERN }] },
      '$.data[*].created': { combine: 'AND', matchers: [{ match: 'regex', regex: INSTANT_PATTERN }] },
      "$['odd-name']": { combine: 'AND', matchers: [{ match: 'regex', regex: UUID_PATTERN }] },
      '$.code': { combine: 'AND', matchers: [{ match: 'equality' }] },
    });
    // a request's body: identifiers and instants only, each item where it is
    expect(Object.keys(bodyRules({ ids: [ID, ID] }, { byType: false }))).toEqual(['$.ids[0]', '$.ids[1]']);
  });

  it("cut a list's items to the fields the document promises, null-able ones out, one item kept", () => {
    const order = {
      id: ID,
      side: 'BUY',
      market: 'PRIMARY',
      status: 'PLACED',
      amount_of_units: 1,
      value: 100,
      currency: 'EUR',
      isin: 'X',
      account_id: ID,
      created: ACCOUNT.created,
      settlement_transaction_hash: null,
      payment_transaction_reference: null,
      custom_offering_id: null,
    };
    const schema = { $ref: '#/components/schemas/OrderList' };
    expect(contractExample(document, { data: [order, order] }, schema, false)).toEqual({
      data: [
        {
          id: ID,
          side: 'BUY',
          market: 'PRIMARY',
          status: 'PLACED',
          amount_of_units: 1,
          value: 100,
          currency: 'EUR',
          isin: 'X',
          account_id: ID,
          created: ACCOUNT.created,
        },
      ],
    });
    expect(contractExample(document, { data: [ACCOUNT] }, { $ref: '#/components/schemas/AccountList' }, false)).toEqual(
      { data: [{ id: ID, type: 'individual', created: ACCOUNT.created }] },
    );
    // a record the state makes keeps every field
    expect(contractExample(document, ACCOUNT, { $ref: '#/components/schemas/Account' }, false)).toEqual(ACCOUNT);
  });
});

describe('the states a request relied on', () => {
  it('name a record as the answers before it showed it, and leave an id nobody knows as it is', () => {
    const sightings = new Sightings();
    sightings.add(0, ACCOUNT);
    sightings.add(2, { ...ACCOUNT, first_name: 'Later' });
    const lookup = (id: string) => sightings.before(id, 1);
    const relied = relianceOf({ account_id: ID }, {}, lookup, { operationId: 'getAccount', status: 200 });
    expect(relied.states).toEqual([{ name: 'an account exists', params: { type: 'individual', first_name: 'Ada' } }]);
    expect([...relied.injected]).toEqual([['account_id', 'accountId']]);
    expect(
      relianceOf({ account_id: '00000000-0000-4000-8000-000000000000' }, {}, lookup, {
        operationId: 'getAccount',
        status: 404,
      }).states,
    ).toEqual([]);
  });

  it('name the order as a cancel found it: cancellable when it succeeded, past that when refused', () => {
    const sightings = new Sightings();
    sightings.add(0, { data: [{ id: ID, side: 'BUY', isin: 'X', status: 'COMPLETED', account_id: ID }] });
    const lookup = (id: string) => sightings.before(id, 1);
    expect(relianceOf({ order_id: ID }, {}, lookup, { operationId: 'cancelOrder', status: 409 }).states[0]!.name).toBe(
      'an order exists in status COMPLETED',
    );
    expect(relianceOf({ order_id: ID }, {}, lookup, { operationId: 'cancelOrder', status: 200 }).states[0]!.name).toBe(
      'an order exists in status PLACED',
    );
  });
});
