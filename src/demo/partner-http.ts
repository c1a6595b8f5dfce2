// The demo partner's HTTP client: what a careful partner's own client does, over the network like any other. A token
// per purpose kept until shortly before it expires, a 401 answered by a new token, a 429 or 503 retried after its
// Retry-After, lists read page by page until a short page.
import { tokenRequestOf } from '../control-client.js';
import type { TokenEndpointAuthMethod } from '../api/types.js';

/** Who the partner is, read at each token request: a secret the operator changed (or STATE_DIR kept) is used. */
export interface PartnerCredentials {
  clientId: string;
  clientSecret: string;
  authMethod: TokenEndpointAuthMethod;
}

/** The scopes each token asks for: the API's the session uses (no more: `unused_scopes`), and the rig's `control`. */
const SCOPES = {
  api: 'openid offline read:accounts write:accounts read:orders write:orders read:assets',
  control: 'openid offline control',
} as const;
export type TokenPurpose = keyof typeof SCOPES;

/** Renew this long before the token's own expiry, as docs/readiness.md advises. */
const RENEW_EARLY_MS = 60_000;
/** Attempts of a request answered 429 or 503, and the longest wait between two. */
const ATTEMPTS = 3;
const LONGEST_WAIT_MS = 10_000;

export interface Answer {
  status: number;
  body: unknown;
}

/** An answer the session did not expect: its status and problem code, for the session to decide on. */
export class PartnerCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    what: string,
  ) {
    super(`${what} answered ${status}${code ? ` ${code}` : ''}`);
  }
}

export interface PartnerHttpOptions {
  /** Where the fake listens, as this process reaches it. */
  baseUrl: string;
  /** The token's audience: the host of the fake's public base URL. */
  audience: string;
  credentials: () => PartnerCredentials;
  /** Ends waits and requests when the partner stops. */
  signal: AbortSignal;
  now: () => number;
}

export class PartnerHttp {
  private readonly kept = new Map<TokenPurpose, { token: string; renewAt: number }>();

  constructor(private readonly options: PartnerHttpOptions) {}

  /** The kept token, or a new one when there is none or it is about to expire. */
  async token(purpose: TokenPurpose): Promise<string> {
    const kept = this.kept.get(purpose);
    if (kept && this.options.now() < kept.renewAt) return kept.token;
    const { clientId, clientSecret, authMethod } = this.options.credentials();
    const request = tokenRequestOf(this.options.baseUrl, clientId, clientSecret, {
      scope: SCOPES[purpose],
      authMethod,
    });
    (request.init.body as URLSearchParams).set('audience', this.options.audience);
    const response = await fetch(request.url, { ...request.init, signal: this.options.signal });
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (!response.ok || !body.access_token)
      throw new PartnerCallError(response.status, body.error, 'POST /oauth2/token');
    this.kept.set(purpose, {
      token: body.access_token,
      renewAt: this.options.now() + (body.expires_in ?? 3600) * 1000 - RENEW_EARLY_MS,
    });
    return body.access_token;
  }

  /**
   * One request with the purpose's token: answered as it came (any status), but a 401 is tried once more with a new
   * token (the tenant's clock may have moved past its expiry) and a 429 or 503 after its Retry-After.
   */
  async send(purpose: TokenPurpose, method: string, path: string, body?: unknown): Promise<Answer> {
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${await this.token(purpose)}`,
        accept: 'application/json',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${this.options.baseUrl}${path}`, {
        method,
        headers,
        signal: this.options.signal,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const answer = { status: response.status, body: await response.json().catch(() => undefined) };
      if (response.status === 401 && !renewed) {
        renewed = true;
        this.kept.delete(purpose);
        continue;
      }
      if ((response.status === 429 || response.status === 503) && attempt < ATTEMPTS) {
        const seconds = Number(response.headers.get('retry-after'));
        await this.wait(
          Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, LONGEST_WAIT_MS) : 1000 * attempt,
        );
        continue;
      }
      return answer;
    }
  }

  /** A request whose answer must be `expected`, else a PartnerCallError naming what came. */
  async expect<T>(expected: number, purpose: TokenPurpose, method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.send(purpose, method, path, body);
    if (answer.status !== expected)
      throw new PartnerCallError(
        answer.status,
        (answer.body as { code?: string } | undefined)?.code,
        `${method} ${path}`,
      );
    return answer.body as T;
  }

  /** Every item of a list, page by page, until a page holds fewer than `limit` (the API shows no total). */
  async readAll<T>(path: string, query: Record<string, string> = {}, limit = 50): Promise<T[]> {
    const items: T[] = [];
    for (let skip = 0; ; skip += limit) {
      const search = new URLSearchParams({ ...query, skip: String(skip), limit: String(limit) });
      const page = await this.expect<{ data: T[] }>(200, 'api', 'GET', `${path}?${search}`);
      items.push(...page.data);
      if (page.data.length < limit) return items;
    }
  }

  private wait(ms: number): Promise<void> {
    const { signal } = this.options;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        // a wait that ran out leaves no listener behind on the partner's signal, which lives for hours
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
