import type { World } from '../../src/api/types.js';

/** A partner's session against a base URL, touching every public operation; what it sent, with what answers. */
export interface SessionStep {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

/**
 * Every public operation of the document, as a partner's client calls them, through `base` (the fake in shadow mode):
 * a token, then accounts (created with a wallet and a payment method, changed, read, listed by its own external_id),
 * wallets, payment method details, orders (a cancel), the catalog and the documents. The records the session does not
 * create (payment method details, orders, the catalog) are the fixtures' of `world`, which both sides hold.
 */
export async function scriptedSession(
  base: string,
  world: World,
  options: { clientId?: string; secret?: string } = {},
): Promise<SessionStep[]> {
  const steps: SessionStep[] = [];
  const host = new URL(base).host;
  let token = '';
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<SessionStep> => {
    const isForm = typeof body === 'string';
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && {
          'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json',
        }),
        ...headers,
      },
      ...(body !== undefined && { body: isForm ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      // an upstream's own failure page: kept as text
    }
    const step = { method, path, status: response.status, body: parsed };
    steps.push(step);
    return step;
  };
  const clientId = options.clientId ?? 'sandbox-client';
  const tokenAnswer = await call(
    'POST',
    '/oauth2/token',
    form({
      grant_type: 'client_credentials',
      scope: 'openid offline read:accounts write:accounts read:orders write:orders read:assets read:documents',
      client_id: clientId,
      client_secret: options.secret ?? 'sandbox-secret',
      audience: host,
    }),
  );
  token = (tokenAnswer.body as { access_token: string }).access_token;

  const externalId = `shadow-${Math.random().toString(36).slice(2)}`;
  const created = await call('POST', '/v1/accounts', {
    type: 'individual',
    external_id: externalId,
    first_name: 'Ada',
    last_name: 'Lovelace',
    country: 'GB',
    dob_day: 10,
    dob_month: 12,
    dob_year: 1985,
    wallets: [{ chain: 'polygon', wallet_address: '0x52908400098527886e0f7030069857d2e4169ee7', is_primary: true }],
    payment_methods: [
      { type: 'sepa', iban: 'DE89370400440532013000', account_holder_name: 'Ada Lovelace', is_primary: true },
    ],
  });
  const accountId = (created.body as { id: string }).id;
  await call('PATCH', `/v1/accounts/${accountId}`, { city: 'London', birthdate: '1985-12-11' });
  await call('GET', `/v1/accounts/${accountId}`);
  await call('GET', `/v1/accounts?external_id=${externalId}`);
  await call('GET', '/v1/accounts?account_type=business&limit=3');
  const wallet = await call('POST', `/v1/accounts/${accountId}/wallets`, {
    chain: 'polygon',
    wallet_address: '0x8617e340b3d01fa5f11f306f4090fd50e238070d',
  });
  const walletId = (wallet.body as { id: string }).id;
  await call('PATCH', `/v1/accounts/${accountId}/wallets/${walletId}`, { is_primary: true });
  await call('GET', `/v1/accounts/${accountId}/wallets`);
  // an error both sides give: a wallet address that is not one
  await call('POST', `/v1/accounts/${accountId}/wallets`, { chain: 'polygon', wallet_address: '0x1234' });

  const method = world.payment_method_details[0]!;
  await call('GET', `/v1/accounts/${method.account_id}/payment-method-details/${method.id}`);
  await call('PATCH', `/v1/accounts/${method.account_id}/payment-method-details/${method.id}`, { is_primary: true });

  await call('GET', '/v1/orders?limit=5');
  const placed = world.orders.find((o) => o.status === 'PLACED')!;
  await call('DELETE', `/v1/orders/${placed.id}/`);
  const completed = world.orders.find((o) => o.status === 'COMPLETED')!;
  await call('DELETE', `/v1/orders/${completed.id}/`);

  await call('GET', '/v1/share-classes?limit=3');
  const offering = world.custom_offerings[0]!;
  const asset = world.assets.find((a) => a.id === offering.asset_id)!;
  await call('GET', `/v1/share-classes/${asset.isin}`);
  await call('GET', '/v1/assets?subscribeable=true');
  await call('GET', `/v1/assets/${asset.isin}/custom-offerings/${offering.id}/documents`);
  await call('GET', `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`);
  await call('GET', '/v1/accounts/00000000-0000-4000-8000-000000000000');
  return steps;
}
