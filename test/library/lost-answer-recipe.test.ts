import ts from 'typescript';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { matchers } from '../../src/vitest.js';
import { markedSnippet } from '../support/doc-pages.js';

expect.extend(matchers);

interface Recipe {
  createAccountOnce(
    api: string,
    token: string,
    account: { external_id: string; type: string },
  ): Promise<{ id: string; external_id: string | null }>;
  cancelOrderOnce(
    api: string,
    token: string,
    order: { id: string; account_id: string },
  ): Promise<{ id: string; status: string }>;
}

/** The "Surviving a lost answer" block (docs/readiness.md), compiled as it is written and loaded as a module. */
async function readmeRecipe(): Promise<Recipe> {
  const { outputText } = ts.transpileModule(markedSnippet('lost-answer', 'ts'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return (await import(`data:text/javascript;base64,${Buffer.from(outputText).toString('base64')}`)) as Recipe;
}

let fake: FakeServer;
let recipe: Recipe;
let token: string;
const accountsNamed = async (externalId: string) =>
  (
    (await (
      await fetch(`${fake.url}/v1/accounts?external_id=${externalId}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { data: unknown[] }
  ).data;

beforeAll(async () => {
  [fake, recipe] = await Promise.all([startServer({ seed: 1 }), readmeRecipe()]);
});
afterAll(() => fake.stop());
beforeEach(async () => {
  fake.reset();
  token = await fake.token();
});

describe('the docs recipe "Surviving a lost answer"', () => {
  it('creates one account when the answer of the create is lost after it was applied, and the report stays silent', async () => {
    await fake.control.addFault({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after', count: 1 });
    await fake.control.addFault({
      method: 'POST',
      path: '/v1/accounts',
      status: 503,
      retry_after_seconds: 0,
      phase: 'after',
      count: 1,
    });
    for (const externalId of ['recipe-dropped', 'recipe-503']) {
      const account = await recipe.createAccountOnce(fake.url, token, { type: 'individual', external_id: externalId });
      expect(account.external_id).toBe(externalId);
      expect(await accountsNamed(externalId)).toHaveLength(1);
    }
    expect(fake.verify({ method: 'POST', path: '/v1/accounts' }, { exactly: 2 }).matched).toBe(2);
    expect(fake).toHaveNoReadinessFindings();
  });

  it('still creates the account when the create was refused before it ran (a 503 before, then a retry)', async () => {
    await fake.control.addFault({
      method: 'POST',
      path: '/v1/accounts',
      status: 503,
      retry_after_seconds: 0,
      count: 1,
    });
    await recipe.createAccountOnce(fake.url, token, { type: 'individual', external_id: 'recipe-refused' });
    expect(await accountsNamed('recipe-refused')).toHaveLength(1);
    expect(fake).toHaveNoReadinessFindings();
  });

  it('treats the 409 on a retried cancel as success when the order is CANCELLED, and the report stays silent', async () => {
    const world = fake.state();
    const order = world.orders.find((o) => o.status === 'PLACED')!;
    await fake.control.addFault({ method: 'DELETE', path: '/v1/orders/*', drop: true, phase: 'after', count: 1 });
    const cancelled = await recipe.cancelOrderOnce(fake.url, token, order);
    expect(cancelled).toMatchObject({ id: order.id, status: 'CANCELLED' });
    expect(fake.verify({ method: 'DELETE', path: '/v1/orders/*' }, { exactly: 2 }).matched).toBe(2);
    expect(fake).toHaveNoReadinessFindings();
  });

  it('still refuses a cancel that was never applied: 409 on the first attempt is final', async () => {
    const order = fake.state().orders.find((o) => o.status === 'COMPLETED')!;
    await expect(recipe.cancelOrderOnce(fake.url, token, order)).rejects.toThrow(
      'not cancellable: the order is COMPLETED',
    );
  });
});
