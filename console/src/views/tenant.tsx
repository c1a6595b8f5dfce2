import { useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { useApp } from '../app.js';
import { ProblemView } from '../components.js';

// `control`: the client's own tokens reach this control plane for its tenant (the operator grants it)
const SCOPES: Schemas['ApiScope'][] = [
  'read:accounts',
  'write:accounts',
  'read:orders',
  'write:orders',
  'read:assets',
  'read:documents',
  'control',
];
const SETTINGS: ['tax_reporting' | 'lei_required', string][] = [
  ['tax_reporting', 'Tax reporting (accounts need tin / tax_id and tax_residencies)'],
  ['lei_required', 'LEI required on business accounts'],
];

const PROGRESSIONS: [NonNullable<Schemas['ClientSettings']['order_progression']>, string][] = [
  ['manual', 'manual: orders stand still until forced'],
  ['clock', 'clock: orders move on the tenant clock'],
  ['polls', 'polls: orders move one step per few list reads'],
];

const AUTH_METHODS: [Schemas['TokenEndpointAuthMethod'], string][] = [
  ['client_secret_post', 'client_secret_post: client_id and client_secret in the form body'],
  ['client_secret_basic', 'client_secret_basic: HTTP Basic credentials only'],
];

const randomSecret = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');

function Settings() {
  const app = useApp();
  const [error, setError] = useState<unknown>();
  const client = app.clients?.find((c) => c.client_id === app.clientId);
  const change = async (update: Schemas['ClientUpdate']) => {
    try {
      setError(undefined);
      await app.api.updateClient(app.clientId!, update);
      await app.refresh();
      app.notify(`${app.clientId} changed.`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card" aria-labelledby="settings-h">
      <h2 id="settings-h">Settings of {app.clientId}</h2>
      {client && (
        <>
          <fieldset>
            <legend>Rules</legend>
            {SETTINGS.map(([key, label]) => (
              <label key={key} class="block">
                <input
                  type="checkbox"
                  checked={client.settings[key]}
                  onChange={(e) => change({ settings: { [key]: (e.target as HTMLInputElement).checked } })}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Orders</legend>
            <label class="block">
              Progression{' '}
              <select
                value={client.settings.order_progression ?? 'manual'}
                onChange={(e) =>
                  change({
                    settings: {
                      order_progression: (e.target as HTMLSelectElement).value as NonNullable<
                        Schemas['ClientSettings']['order_progression']
                      >,
                    },
                  })
                }
              >
                {PROGRESSIONS.map(([mode, label]) => (
                  <option key={mode} value={mode}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                const value = Number(new FormData(e.target as HTMLFormElement).get('investor_activity_per_hour'));
                void change({ settings: { investor_activity_per_hour: value } });
              }}
            >
              <label>
                Investor orders an hour (0–3600: end investors place orders on this tenant's accounts){' '}
                <input
                  type="number"
                  name="investor_activity_per_hour"
                  min={0}
                  max={3600}
                  step="any"
                  key={client.settings.investor_activity_per_hour}
                  defaultValue={String(client.settings.investor_activity_per_hour ?? 0)}
                />
              </label>
              <button type="submit" class="small">
                Set
              </button>
            </form>
          </fieldset>
          <fieldset>
            <legend>Token endpoint authentication (the other way is refused, as in production)</legend>
            {AUTH_METHODS.map(([method, label]) => (
              <label key={method} class="block">
                <input
                  type="radio"
                  name="token_endpoint_auth_method"
                  checked={client.token_endpoint_auth_method === method}
                  onChange={() => change({ token_endpoint_auth_method: method })}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>API scopes (tokens already issued keep theirs)</legend>
            {SCOPES.map((scope) => (
              <label key={scope} class="block">
                <input
                  type="checkbox"
                  checked={client.scopes.includes(scope)}
                  onChange={(e) =>
                    change({
                      scopes: (e.target as HTMLInputElement).checked
                        ? [...client.scopes, scope]
                        : client.scopes.filter((s) => s !== scope),
                    })
                  }
                />{' '}
                <code>{scope}</code>
              </label>
            ))}
          </fieldset>
        </>
      )}
      <ProblemView error={error} />
    </section>
  );
}

function CreateClient() {
  const app = useApp();
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState(randomSecret);
  const [method, setMethod] = useState<Schemas['TokenEndpointAuthMethod']>('client_secret_post');
  const [error, setError] = useState<unknown>();
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      setError(undefined);
      const created = await app.api.createClient({
        client_id: clientId,
        client_secret: secret,
        token_endpoint_auth_method: method,
      });
      await app.refresh();
      app.pickClient(created.client_id);
      app.notify(`Client ${created.client_id} created with a world of its own; it is the picked tenant now.`);
      setClientId('');
      setSecret(randomSecret());
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={create} aria-labelledby="create-h">
      <h2 id="create-h">Create a client</h2>
      <p>A new OAuth client is a new tenant, seeded from the same fixtures, with every API scope.</p>
      <div class="row">
        <label>
          Client id{' '}
          <input
            value={clientId}
            required
            pattern="[A-Za-z0-9._~\-]+"
            maxLength={128}
            onInput={(e) => setClientId((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Client secret{' '}
          <input value={secret} required onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
        </label>
        {/* labelled by id, so that its name is not its options' text too */}
        <label for="create-auth-method">Token endpoint auth method</label>
        <select
          id="create-auth-method"
          value={method}
          onChange={(e) => setMethod((e.target as HTMLSelectElement).value as Schemas['TokenEndpointAuthMethod'])}
        >
          {AUTH_METHODS.map(([value]) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <button type="submit">Create client</button>
      </div>
      <ProblemView error={error} />
    </form>
  );
}

function ResetAll() {
  const app = useApp();
  const [error, setError] = useState<unknown>();
  return (
    <section class="card" aria-labelledby="reset-all-h">
      <h2 id="reset-all-h">Every tenant</h2>
      <button
        type="button"
        class="danger"
        onClick={async () => {
          try {
            await app.api.reset();
            await app.refresh();
            app.notify('Every tenant is back to its fixtures.');
          } catch (e) {
            setError(e);
          }
        }}
      >
        Reset every tenant
      </button>
      <ProblemView error={error} />
    </section>
  );
}

export function Tenant() {
  return (
    <>
      <h1>Tenant</h1>
      <p>
        Every client of the fake is a tenant with a world, a clock, faults and requests of its own. Pick one at the top.
      </p>
      <Settings />
      <CreateClient />
      <ResetAll />
    </>
  );
}
