import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from './api.js';
import { tenantNow, useApp } from './app.js';
import { Link, ProblemView, saveFile } from './components.js';
import type { Route } from './router.js';

const NAV: [string, string][] = [
  ['', 'Overview'],
  ['accounts', 'Accounts'],
  ['orders', 'Orders'],
  ['catalog', 'Catalog'],
  ['requests', 'Requests'],
  ['faults', 'Faults'],
  ['report', 'Readiness'],
  ['fidelity', 'Fidelity'],
  ['connect', 'Connect'],
  ['tenant', 'Tenant'],
];

export function Nav({ route }: { route: Route }) {
  const section = route.segments[0] ?? '';
  return (
    <nav aria-label="Views">
      <ul>
        {NAV.map(([to, label]) => (
          <li key={to}>
            <Link to={to} aria-current={section === to ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function TenantPicker() {
  const app = useApp();
  return (
    <label class="picker">
      Tenant{' '}
      <select value={app.clientId ?? ''} onChange={(e) => app.pickClient((e.target as HTMLSelectElement).value)}>
        {(app.clients ?? []).map((c) => (
          <option key={c.client_id} value={c.client_id}>
            {c.client_id}
            {c.default ? ' (default)' : ''}
            {c.demo_partner ? ' (demo partner)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

const PRESETS: [string, number][] = [
  ['+1 hour', 3600],
  ['+1 day', 86_400],
  ['+7 days', 7 * 86_400],
  ['+30 days', 30 * 86_400],
];

const ISO_EXAMPLE = '2031-02-03T16:05:00Z';

/** An instant to the second, as the field shows one: `2031-02-03T16:05:00Z`. */
const isoSeconds = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/**
 * The instant a text names in UTC, or undefined: ISO 8601's date and time (`T` or a space between), seconds and
 * milliseconds optional, `Z` or nothing after (the field is UTC); any other offset or form is refused rather than
 * guessed (a browser's date field showed its own locale, 12-hour, for a UTC setter).
 */
function utcInstantOf(text: string): string | undefined {
  const parts = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)Z?$/i.exec(text.trim());
  if (!parts) return undefined;
  const ms = Date.parse(`${parts[1]}T${parts[2]}Z`);
  // a day the month does not have (02-30) is refused, not rolled over into the next
  return Number.isNaN(ms) || !new Date(ms).toISOString().startsWith(parts[1]!) ? undefined : new Date(ms).toISOString();
}

/** The tenant's clock, ticking locally between reads, with the presets a presenter needs. */
export function ClockControls() {
  const app = useApp();
  const [, tick] = useState(0);
  const [error, setError] = useState<unknown>();
  const [date, setDate] = useState('');
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  const now = app.clock ? tenantNow(app.clock) : undefined;
  const change = async (body: { advance_seconds: number } | { now: string }) => {
    try {
      setError(undefined);
      await app.api.setClock(body);
      await app.refresh();
      app.notify(`Clock of ${app.clientId} moved.`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="clock" aria-label="Clock">
      <p>
        Clock:{' '}
        <time dateTime={now?.toISOString()}>
          {now ? `${now.toISOString().replace('T', ' ').slice(0, 19)} UTC` : '…'}
        </time>
        {app.clock?.frozen && ' (frozen)'}
      </p>
      <div class="row">
        {PRESETS.map(([label, seconds]) => (
          <button key={label} type="button" class="small" onClick={() => change({ advance_seconds: seconds })}>
            {label}
          </button>
        ))}
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (!date) return;
            const instant = utcInstantOf(date);
            if (instant) void change({ now: instant });
            else
              setError(new Error(`"${date}" is not an instant in UTC: write it as ISO 8601, such as ${ISO_EXAMPLE}.`));
          }}
        >
          <label>
            Set (UTC){' '}
            <input
              type="text"
              class="instant"
              inputMode="text"
              spellcheck={false}
              autoComplete="off"
              value={date}
              placeholder={now ? isoSeconds(now) : ISO_EXAMPLE}
              aria-describedby="clock-format"
              onInput={(e) => setDate((e.target as HTMLInputElement).value)}
            />
          </label>
          <span id="clock-format" class="format">
            ISO 8601, UTC: {ISO_EXAMPLE}
          </span>
          <button type="submit" class="small">
            Set date
          </button>
        </form>
      </div>
      <ProblemView error={error} />
    </section>
  );
}

/** Reset, and the world as a file: download a snapshot, upload one. */
export function WorldControls() {
  const app = useApp();
  const [error, setError] = useState<unknown>();
  const act = async (what: () => Promise<void>, done: string) => {
    try {
      setError(undefined);
      await what();
      await app.refresh();
      app.notify(done);
    } catch (e) {
      setError(e);
    }
  };
  const download = () =>
    act(async () => {
      const world = await app.api.state();
      saveFile(
        new Blob([JSON.stringify(world, null, 2)], { type: 'application/json' }),
        `${app.clientId ?? 'world'}-snapshot.json`,
      );
    }, 'Snapshot downloaded.');
  const upload = (file: File | undefined) =>
    file &&
    act(async () => {
      let world: unknown;
      try {
        world = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not JSON.`);
      }
      await app.api.replaceState(world);
    }, `Snapshot ${file.name} loaded into ${app.clientId}.`);
  return (
    <section class="world-controls" aria-label="World">
      <div class="row">
        <button
          type="button"
          class="danger"
          onClick={() => act(() => app.api.reset(app.clientId), `${app.clientId} is back to its fixtures.`)}
        >
          Reset
        </button>
        <button type="button" onClick={download}>
          Download snapshot
        </button>
        <label class="button">
          Upload snapshot
          <input
            type="file"
            accept="application/json,.json"
            class="visually-hidden"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              void upload(input.files?.[0]);
              input.value = '';
            }}
          />
        </label>
      </div>
      <ProblemView error={error} />
    </section>
  );
}

type AuthMethod = Schemas['TokenEndpointAuthMethod'];

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded, then base64 of their UTF-8 bytes. */
const basicAuthorization = (clientId: string, clientSecret: string): string => {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  // every character is ASCII once form-urlencoded, so btoa takes it
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
};

/**
 * A partner signs in as the API does: its client's credentials for a token with the scope `control`, sent the way
 * its client is registered (the other way is refused, as in production).
 */
async function partnerToken(clientId: string, clientSecret: string, method: AuthMethod): Promise<string> {
  const form: Record<string, string> = {
    grant_type: 'client_credentials',
    scope: 'openid offline control',
    audience: location.host,
  };
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (method === 'client_secret_basic') headers.authorization = basicAuthorization(clientId, clientSecret);
  else Object.assign(form, { client_id: clientId, client_secret: clientSecret });
  const response = await fetch('/oauth2/token', { method: 'POST', headers, body: new URLSearchParams(form) });
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || !body.access_token)
    throw new Error(`${body.error ?? response.status}: ${body.error_description ?? 'no token'}`);
  return body.access_token;
}

function PartnerSignIn() {
  const app = useApp();
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [method, setMethod] = useState<AuthMethod>('client_secret_post');
  const [error, setError] = useState('');
  return (
    <form
      aria-labelledby="partner-h"
      onSubmit={(e) => {
        e.preventDefault();
        setError('');
        partnerToken(clientId, secret, method).then(app.useToken, (err: Error) => setError(err.message));
      }}
    >
      <h2 id="partner-h">Or sign in as a partner</h2>
      <p>
        With your client's credentials, if the operator granted it the scope <code>control</code>: the console then
        shows your own tenant only. Pick the token endpoint auth method your client is registered for (
        <code>client_secret_post</code> unless the operator said otherwise).
      </p>
      {error && (
        <p role="alert" class="problem">
          No token: {error}
        </p>
      )}
      <label>
        client_id{' '}
        <input
          autoComplete="username"
          value={clientId}
          onInput={(e) => setClientId((e.target as HTMLInputElement).value)}
          required
        />
      </label>{' '}
      <label>
        client_secret{' '}
        <input
          type="password"
          autoComplete="current-password"
          value={secret}
          onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
          required
        />
      </label>{' '}
      {/* labelled by id, so that its name is not its options' text too */}
      <label for="partner-auth-method">token_endpoint_auth_method</label>{' '}
      <select
        id="partner-auth-method"
        value={method}
        onChange={(e) => setMethod((e.target as HTMLSelectElement).value as AuthMethod)}
      >
        <option value="client_secret_post">client_secret_post (form body)</option>
        <option value="client_secret_basic">client_secret_basic (HTTP Basic)</option>
      </select>{' '}
      <button type="submit">Sign in</button>
    </form>
  );
}

export function TokenPrompt() {
  const app = useApp();
  const [token, setToken] = useState('');
  return (
    <main id="main" class="token-prompt">
      <h1>Control token</h1>
      <p>
        This fake guards its control plane with a <code>CONTROL_TOKEN</code>. Enter it once; the console keeps it for
        this browser tab only.
      </p>
      {app.tokenRejected && (
        <p role="alert" class="problem">
          {app.tokenRejected === 'token_expired' ? 'That token has expired' : 'That token is wrong'}: the fake answered
          401 <code>{app.tokenRejected}</code>. Check the <code>CONTROL_TOKEN</code> the fake runs with, or sign in
          again.
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (token) app.useToken(token);
        }}
      >
        <label>
          CONTROL_TOKEN{' '}
          <input
            type="password"
            autoComplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
            required
          />
        </label>{' '}
        <button type="submit">Use this token</button>
      </form>
      <PartnerSignIn />
    </main>
  );
}
