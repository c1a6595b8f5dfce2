import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as consoleRules from '../../console/src/lifecycle.js';
import * as table from '../../src/domain/order-lifecycle-table.js';

describe('the console draws the order lifecycle of the domain', () => {
  it('takes the one table the domain applies, not a copy', () => {
    expect(consoleRules.LIFECYCLE).toBe(table.LIFECYCLE);
    expect(consoleRules.CANCELLABLE_STATUSES).toBe(table.CANCELLABLE_STATUSES);
    expect(consoleRules.ORDER_STATUSES).toBe(table.ORDER_STATUSES);
  });

  it("imports nothing at run time but the table, which imports only the document's types: the browser bundle can hold it", () => {
    const source = readFileSync(new URL('../../src/domain/order-lifecycle-table.ts', import.meta.url), 'utf8');
    const imports = [...source.matchAll(/^import .*$/gm)].map((m) => m[0]);
    expect(imports).toEqual(["import type { components } from '../api/schema.js';"]);
  });

  it('draws each side from PLACED to COMPLETED', () => {
    expect(consoleRules.road('BUY')).toEqual(['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
    expect(consoleRules.road('SELL')).toEqual(['PLACED', 'AWAITING_TOKEN_DELIVERY', 'AWAITING_PAYMENT', 'COMPLETED']);
  });
});
