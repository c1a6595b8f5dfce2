import type { FakeServer, Schemas, World } from '../../src/index.js';

/** A starting-world account ready to buy (a primary wallet and payment method), and an asset it may subscribe to. */
export function buyer(world: World): { accountId: string; otherAccountId: string; isin: string; value: number } {
  const ready = world.accounts.filter(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  );
  const asset = world.assets.find((a) => a.subscribeable)!;
  const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment;
  return { accountId: ready[0]!.id, otherAccountId: ready[1]!.id, isin: asset.isin, value: minimum ?? 100_000 };
}

/**
 * A partner's session with everything a replay must carry: a token request, an account and a wallet created (their
 * identifiers then used), an order placed for it through the control plane, a clock move, a forced status, a 4xx
 * mistake, lists; and a starting-world account read by its identifier. Answers what it used.
 */
export async function driveSession(
  fake: FakeServer,
  clientId = fake.clientId,
): Promise<{ startingAccountId: string; otherAccountId: string }> {
  const control = fake.control.forClient(clientId);
  const start = buyer(fake.state(clientId));
  const token = await fake.token(clientId, { fresh: true });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { id: string } };
  };
  const account = await call('POST', '/v1/accounts', {
    type: 'individual',
    external_id: 'replay-1',
    first_name: 'Ann',
    last_name: 'Example',
    dob_day: 14,
    dob_month: 7,
    dob_year: 1985,
    country: 'DE',
    city: 'Berlin',
    line1: 'Unter den Linden 1',
    postal_code: '10117',
    wallets: [{ chain: 'polygon', wallet_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', is_primary: true }],
    payment_methods: [
      { type: 'sepa', iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'Ann Example', is_primary: true },
    ],
  });
  if (account.status !== 201) throw new Error(`account: ${JSON.stringify(account.body)}`);
  const wallet = await call('POST', `/v1/accounts/${account.body.id}/wallets`, {
    wallet_address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
  });
  if (wallet.status !== 201) throw new Error(`wallet: ${JSON.stringify(wallet.body)}`);
  await call('GET', `/v1/accounts/${account.body.id}/wallets/${wallet.body.id}`);
  await call('GET', `/v1/accounts/${start.accountId}`);
  const order = await control.placeOrder({
    account_id: account.body.id,
    isin: start.isin,
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: 2,
    value: start.value,
  } as Schemas['OrderPlacement']);
  await control.advanceClock(90);
  await control.setOrderStatus(order.id, 'AWAITING_PAYMENT');
  // mistakes: an account that does not exist, an order cancelled twice
  await call('GET', '/v1/accounts/00000000-0000-4000-8000-000000000000');
  await call('GET', `/v1/orders?account_id=${account.body.id}`);
  await call('DELETE', `/v1/orders/${order.id}/`);
  await call('DELETE', `/v1/orders/${order.id}/`);
  await call('GET', `/v1/orders?account_id=${account.body.id}&order_status=CANCELLED`);
  return { startingAccountId: start.accountId, otherAccountId: start.otherAccountId };
}
