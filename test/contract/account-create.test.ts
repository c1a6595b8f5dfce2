import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/api/document.js';
import type { Schemas } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

// `AccountCreate` is one shape per account type (a `oneOf` on `type` with its discriminator), so that a client
// generated from the document refuses a field of the other type at compile time; the fake checks the body as the one
// object it was, so its 422 answers stay what they were: a field of the other type is the rules' 422
// `field_not_applicable`, named beside every other broken rule, not a schema error of a `oneOf`.
const served = JSON.parse(loadApiDocument().json) as {
  components: { schemas: Record<string, Record<string, unknown>> };
};
const GOLDEN = JSON.parse(readFileSync(new URL('account-create-answers.json', import.meta.url), 'utf8')) as {
  body: object;
  status: number;
  answer: unknown;
}[];

describe('AccountCreate', () => {
  it('is a oneOf on `type` in the document served, each account type with its own fields only', () => {
    const { AccountCreate, IndividualAccountCreate, BusinessAccountCreate } = served.components.schemas;
    expect(AccountCreate).toMatchObject({
      oneOf: [
        { $ref: '#/components/schemas/IndividualAccountCreate' },
        { $ref: '#/components/schemas/BusinessAccountCreate' },
      ],
      discriminator: { propertyName: 'type' },
    });
    const fields = (schema: unknown) => Object.keys((schema as { properties: object }).properties);
    expect(fields(IndividualAccountCreate)).toEqual(expect.arrayContaining(['first_name', 'dob_year', 'tin']));
    expect(fields(IndividualAccountCreate)).not.toEqual(expect.arrayContaining(['business_name']));
    expect(fields(BusinessAccountCreate)).toEqual(expect.arrayContaining(['business_name', 'lei', 'tax_id']));
    expect(fields(BusinessAccountCreate)).not.toContain('first_name');
    for (const branch of [IndividualAccountCreate, BusinessAccountCreate])
      expect(branch).toMatchObject({ additionalProperties: false, required: ['type'] });
  });

  it('refuses a field of the other type at compile time (the generated types, as a client generated from it)', () => {
    // @ts-expect-error business_name is a business account's field
    const individual: Schemas['AccountCreate'] = { type: 'individual', business_name: 'Acme' };
    // @ts-expect-error first_name is an individual's field
    const business: Schemas['AccountCreate'] = { type: 'business', first_name: 'Ada' };
    const fine: Schemas['AccountCreate'][] = [
      { type: 'individual', first_name: 'Ada', tin: '1' },
      { type: 'business', business_name: 'Acme', lei: '5493001KJTIIGC8Y1R12' },
    ];
    expect([individual, business, ...fine]).toHaveLength(4);
  });

  it('is answered by the fake as the one object it was: each 422, its detail and its errors, as recorded', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const answers = [];
    for (const { body } of GOLDEN) {
      const response = await http(app).post('/v1/accounts').set('Authorization', `Bearer ${token}`).send(body);
      answers.push({ body, status: response.status, answer: response.body });
    }
    expect(answers).toEqual(GOLDEN);
    expect(JSON.stringify(GOLDEN)).toContain('not to an individual account');
  });
});
