/**
 * The library's `fake.token()`: one access token kept per client, as a careful OAuth client keeps it, so a suite
 * that asks for a token before every request fetches one an hour, not one a call (readiness: `token_per_call`).
 */

/** A kept token is renewed when its tenant's clock is this close to its expiry, as the readiness report advises. */
const RENEW_BEFORE_EXPIRY_SECONDS = 60;

interface Kept {
  /** What the token was fetched for (secret, scopes, method): a client changed since gets a new one. */
  readonly fingerprint: string;
  readonly token: Promise<string>;
  /** The token's `exp` (seconds), once it has come. */
  exp?: number;
}

/** The `exp` claim of a JWT, read without checking it (the fake signed it); undefined when it has none. */
export function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tokens kept per owner (a tenant, held weakly: a tenant gone takes its token with it). `nowMs` is that tenant's
 * clock: a clock moved on past `exp - 60 s` (a control call, `advanceClock`) renews the token, as the fake would
 * refuse it soon; a token still being fetched is shared by concurrent callers; a failed fetch is not kept.
 */
export class TokenKeeper<Owner extends object> {
  private readonly kept = new WeakMap<Owner, Kept>();

  async token(
    owner: Owner,
    fingerprint: string,
    nowMs: () => number,
    fetchToken: () => Promise<string>,
    fresh = false,
  ): Promise<string> {
    const kept = this.kept.get(owner);
    if (
      !fresh &&
      kept &&
      kept.fingerprint === fingerprint &&
      (kept.exp === undefined || nowMs() < (kept.exp - RENEW_BEFORE_EXPIRY_SECONDS) * 1000)
    ) {
      return kept.token;
    }
    const entry: Kept = { fingerprint, token: fetchToken() };
    this.kept.set(owner, entry);
    try {
      const token = await entry.token;
      // a token without exp is never renewed by time: 0 makes the next call fetch again
      entry.exp = expiryOf(token) ?? 0;
      return token;
    } catch (error) {
      if (this.kept.get(owner) === entry) this.kept.delete(owner);
      throw error;
    }
  }
}
