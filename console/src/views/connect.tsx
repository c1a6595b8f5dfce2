import { useApp } from '../app.js';
import { Copyable } from '../components.js';

/** POSIX shell single quotes: the secret is the user's and may hold anything. */
const sh = (s: string): string => (/^[A-Za-z0-9._~:/@=-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');

export function Connect() {
  const app = useApp();
  const base = location.origin;
  const audience = location.host;
  const clientId = app.clientId ?? '';
  // the control plane lists every client with its secret
  const client = app.clients?.find((c) => c.client_id === clientId);
  const secret = client?.client_secret ?? '';
  const method = client?.token_endpoint_auth_method ?? 'client_secret_post';
  // the token request the way this client is registered (the other way is refused, as in production)
  const credentials =
    method === 'client_secret_basic'
      ? [`  -u ${sh(`${formEncode(clientId)}:${formEncode(secret)}`)} \\`]
      : [
          `  -d client_id=${sh(clientId)} \\`,
          // encoded by curl: a secret may hold `+`, `&` or `%`, which -d would send as form syntax
          `  --data-urlencode ${sh(`client_secret=${secret}`)} \\`,
        ];
  const tokenCommand = [
    `curl -s ${base}/oauth2/token \\`,
    `  -d grant_type=client_credentials \\`,
    ...credentials,
    `  -d audience=${sh(audience)} \\`,
    `  -d 'scope=openid offline'`,
  ].join('\n');
  const firstCall = [
    `TOKEN=$(${tokenCommand.replaceAll('\\\n  ', '')} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `curl -s ${base}/v1/accounts -H "Authorization: Bearer $TOKEN"`,
  ].join('\n');
  return (
    <>
      <h1>Connect your client</h1>
      <p>Point the partner's client at this fake with these settings; every request it makes shows in Requests.</p>
      <dl class="fields wide">
        <div>
          <dt>Base URL</dt>
          <dd>
            <code>{base}</code>
          </dd>
        </div>
        <div>
          <dt>Token endpoint</dt>
          <dd>
            <code>{base}/oauth2/token</code> (client credentials, <code>{method}</code>:{' '}
            {method === 'client_secret_basic'
              ? 'the id and secret as HTTP Basic only'
              : 'the id and secret in the form body, no Basic header'}
            )
          </dd>
        </div>
        <div>
          <dt>Client id</dt>
          <dd>
            <code>{clientId}</code>
          </dd>
        </div>
        <div>
          <dt>Client secret</dt>
          <dd>
            <code>{secret}</code>
          </dd>
        </div>
        <div>
          <dt>Audience</dt>
          <dd>
            <code>{audience}</code>
          </dd>
        </div>
        <div>
          <dt>Scope</dt>
          <dd>
            <code>openid offline</code> (the client's API scopes are added)
          </dd>
        </div>
      </dl>
      <Copyable label="Get a token" text={tokenCommand} />
      <Copyable label="A first call" text={firstCall} />
      <p>
        The API reference, with a working Authorize button, is at <a href="/docs">/docs</a>.
      </p>
    </>
  );
}
