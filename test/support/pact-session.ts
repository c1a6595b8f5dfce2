import type { FakeServer } from '../../src/index.js';

/** A lower-case wallet address (no checksum applies) made from a number. */
const walletAddress = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;

/**
 * A partner's session against a fake, as the pact tests export it: a token, accounts created, read, changed and
 * listed, a wallet registered and changed, payment method details read, an order cancelled and cancelled again (409),
 * an unknown account (404), the catalog. Answers the records it made.
 */
/** The few fields of an answer the session reads on. */
interface PactBody {
  id?: unknown;
  data?: { id?: unknown; isin?: unknown }[];
}

export async function partnerSession(
  fake: FakeServer,
): Promise<{ token: string; accountId: string; walletId: string; orderId: string }> {
  const token = await fake.token();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as PactBody };
  };
  await api('GET', '/v1/accounts?limit=2');
  const account = await api('POST', '/v1/accounts', {
    type: 'individual',
    external_id: 'ada-1',
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  const accountId = account.body.id as string;
  await api('GET', `/v1/accounts/${accountId}`);
  await api('GET', `/v1/accounts/${accountId}`); // the same exchange again: one interaction
  await api('PATCH', `/v1/accounts/${accountId}`, { city: 'London' });
  const wallet = await api('POST', `/v1/accounts/${accountId}/wallets`, {
    wallet_address: walletAddress(0xada),
    is_primary: true,
  });
  const walletId = wallet.body.id as string;
  await api('GET', `/v1/accounts/${accountId}/wallets`);
  await api('PATCH', `/v1/accounts/${accountId}/wallets/${walletId}`, { is_primary: false });
  const method = await fake.control.addPaymentMethodDetails(accountId, {
    type: 'sepa',
    iban: 'DE89370400440532013000',
    account_holder_name: 'Ada Lovelace',
    is_primary: true,
  });
  await api('GET', `/v1/accounts/${accountId}/payment-method-details/${method.id}`);
  const placed = await api('GET', '/v1/orders?order_status=PLACED&limit=1');
  const orderId = placed.body.data![0]!.id as string;
  await api('DELETE', `/v1/orders/${orderId}/`);
  await api('DELETE', `/v1/orders/${orderId}/`);
  await api('GET', `/v1/orders?account_id=${accountId}`);
  await api('GET', '/v1/accounts/00000000-0000-4000-8000-000000000000');
  const assets = await api('GET', '/v1/assets?limit=2');
  await api('GET', `/v1/share-classes/${assets.body.data![0]!.isin as string}`);
  const world = fake.state();
  await api('GET', `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents?limit=1`);
  const offering = world.custom_offerings[0]!;
  const offered = world.assets.find((asset) => asset.id === offering.asset_id)!;
  await api('GET', `/v1/assets/${offered.isin}/custom-offerings/${offering.id}/documents`);
  return { token, accountId, walletId, orderId };
}
