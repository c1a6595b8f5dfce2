import { useState } from 'preact/hooks';
import { ControlError, type Schemas } from '../api.js';
import { useApp } from '../app.js';
import { accountName, Link, ProblemView } from '../components.js';
import { navigate } from '../router.js';

type Field =
  | 'account_id'
  | 'isin'
  | 'side'
  | 'market'
  | 'amount_of_units'
  | 'value'
  | 'currency'
  | 'custom_offering_id';

/** The control plane's placement: the market rules decide, and their errors are shown by the field they name. */
export function PlaceOrder({
  accountId,
  chooseAccount = false,
}: {
  accountId?: string | undefined;
  chooseAccount?: boolean;
}) {
  const app = useApp();
  const w = app.world;
  const [form, setForm] = useState<Record<Field, string>>({
    account_id: accountId ?? '',
    isin: '',
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: '1',
    value: '100000',
    currency: '',
    custom_offering_id: '',
  });
  const [error, setError] = useState<unknown>();
  if (!w) return <p>Loading…</p>;
  const account = form.account_id || accountId || w.accounts[0]?.id || '';
  const isin = form.isin || w.assets[0]?.isin || '';
  const asset = w.assets.find((a) => a.isin === isin);
  const offerings = w.custom_offerings.filter((c) => c.asset_id === asset?.id);
  const fieldErrors = new Map<string, string>();
  if (error instanceof ControlError)
    for (const e of error.problem?.errors ?? [])
      fieldErrors.set(e.path.replace(/^\//, ''), `${e.message}${e.code ? ` (${e.code})` : ''}`);
  const set = (key: Field) => (e: Event) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value });
  const described = (key: Field) =>
    fieldErrors.has(key) ? { 'aria-describedby': `err-${key}`, 'aria-invalid': true as const } : {};
  const errorOf = (key: Field) =>
    fieldErrors.has(key) && (
      <span id={`err-${key}`} class="field-error">
        {fieldErrors.get(key)}
      </span>
    );

  const place = async (e: Event) => {
    e.preventDefault();
    const order: Schemas['OrderPlacement'] = {
      account_id: account,
      isin,
      side: form.side as Schemas['OrderSide'],
      market: form.market as Schemas['OrderMarket'],
      amount_of_units: Number(form.amount_of_units),
      value: Number(form.value),
      ...(form.currency && { currency: form.currency }),
      ...(form.custom_offering_id && { custom_offering_id: form.custom_offering_id }),
    };
    try {
      setError(undefined);
      const placed = await app.api.placeOrder(order);
      await app.refresh();
      app.notify(`Order ${placed.id} placed.`);
      navigate(`orders/${placed.id}`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form class="card place-order" onSubmit={place} aria-labelledby="place-h" noValidate>
      <h2 id="place-h">Place an order</h2>
      <div class="grid">
        {chooseAccount && (
          <label>
            Account
            <select value={account} onChange={set('account_id')} {...described('account_id')}>
              {w.accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {accountName(a)}
                </option>
              ))}
            </select>
            {errorOf('account_id')}
          </label>
        )}
        <label>
          Asset (ISIN)
          <select value={isin} onChange={set('isin')} {...described('isin')}>
            {w.assets.map((a) => (
              <option key={a.id} value={a.isin}>
                {a.isin} · {a.currency} ·{' '}
                {[a.subscribeable && 'subscribeable', a.redeemable && 'redeemable', a.tradeable && 'tradeable']
                  .filter(Boolean)
                  .join(', ') || 'no market'}
              </option>
            ))}
          </select>
          {errorOf('isin')}
        </label>
        <label>
          Side
          <select value={form.side} onChange={set('side')} {...described('side')}>
            <option>BUY</option>
            <option>SELL</option>
          </select>
          {errorOf('side')}
        </label>
        <label>
          Market
          <select value={form.market} onChange={set('market')} {...described('market')}>
            <option>PRIMARY</option>
            <option>SECONDARY</option>
          </select>
          {errorOf('market')}
        </label>
        <label>
          Units
          <input
            type="number"
            min={1}
            value={form.amount_of_units}
            onInput={set('amount_of_units')}
            {...described('amount_of_units')}
          />
          {errorOf('amount_of_units')}
        </label>
        <label>
          Value (cents)
          <input type="number" min={1} value={form.value} onInput={set('value')} {...described('value')} />
          {errorOf('value')}
        </label>
        <label>
          Currency
          <input
            value={form.currency}
            placeholder={asset?.currency ?? 'the asset’s'}
            maxLength={3}
            onInput={set('currency')}
            {...described('currency')}
          />
          {errorOf('currency')}
        </label>
        <label>
          Custom offering
          <select
            value={form.custom_offering_id}
            onChange={set('custom_offering_id')}
            {...described('custom_offering_id')}
          >
            <option value="">none</option>
            {offerings.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          {errorOf('custom_offering_id')}
        </label>
      </div>
      <button type="submit">Place order</button>
      <ProblemView error={error} />
    </form>
  );
}

export function NewOrder({ accountId }: { accountId?: string }) {
  return (
    <>
      <p class="crumbs">
        <Link to="orders">Orders</Link> /
      </p>
      <h1>New order</h1>
      <PlaceOrder key={accountId} accountId={accountId} chooseAccount />
    </>
  );
}
