import { describe, expect, it } from 'vitest';
import * as consoleRules from '../../console/src/lifecycle.js';
import * as domain from '../../src/domain/order-lifecycle.js';

describe('the console draws the order lifecycle of the domain', () => {
  it('has the same steps per side, cancellable statuses and statuses', () => {
    expect(consoleRules.LIFECYCLE).toEqual(domain.LIFECYCLE);
    expect(consoleRules.CANCELLABLE_STATUSES).toEqual(domain.CANCELLABLE_STATUSES);
    expect(consoleRules.ORDER_STATUSES).toEqual(domain.ORDER_STATUSES);
  });

  it('draws each side from PLACED to COMPLETED', () => {
    expect(consoleRules.road('BUY')).toEqual(['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
    expect(consoleRules.road('SELL')).toEqual(['PLACED', 'AWAITING_TOKEN_DELIVERY', 'AWAITING_PAYMENT', 'COMPLETED']);
  });
});
