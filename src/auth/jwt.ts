import { randomUUID, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type Jwt from 'jsonwebtoken';

/** jsonwebtoken (and the semver it loads) on the first token signed or read: not paid for at start. */
const require = createRequire(import.meta.url);
const jwtLibrary = (): typeof Jwt => require('jsonwebtoken') as typeof Jwt;
import { DomainError } from '../api/errors.js';
import { prepareRsaKeyPair, rsaKeyPair, type RsaKeyPair } from './key-pair.js';
import { jwkThumbprint } from './key-file.js';
import type { Schemas } from '../api/types.js';
import { accessTokenClaims, decodeCompactJws, headerOf, type AccessTokenClaims } from './token-shape.js';

export type Jwks = Schemas['Jwks'];

export type { AccessTokenClaims };

/**
 * The signing key of one server instance: it signs access tokens and is published as a JWKS under its own kid. By
 * default the process's shared key pair under a kid of the instance's own (so instances in one process refuse each
 * other's tokens); with a kept key (SIGNING_KEY_FILE, STATE_DIR) that key under its RFC 7638 thumbprint, the same
 * after a restart and on every replica holding it.
 */
export class SigningKeys {
  readonly kid: string;
  private pair: RsaKeyPair | undefined;

  constructor(kept?: RsaKeyPair) {
    this.pair = kept;
    this.kid = kept ? jwkThumbprint(kept.publicKey) : randomUUID();
  }

  /**
   * The process's key pair, taken on first use, so an instance may be made (and answer its health check) while the
   * pair is still being made on the thread pool: whoever signs or publishes awaits `ready()` first.
   */
  private get keyPair(): RsaKeyPair {
    return (this.pair ??= rsaKeyPair());
  }

  private get privateKey(): KeyObject {
    return this.keyPair.privateKey;
  }

  get publicKey(): KeyObject {
    return this.keyPair.publicKey;
  }

  /** Resolves when the process's key pair is made; the token library is loaded first, while the pair is made. */
  ready(): Promise<void> {
    jwtLibrary();
    return this.pair ? Promise.resolve() : prepareRsaKeyPair();
  }

  jwks(): Jwks {
    const { n, e } = this.publicKey.export({ format: 'jwk' });
    return { keys: [{ kty: 'RSA', kid: this.kid, use: 'sig', alg: 'RS256', n: n!, e: e! }] };
  }

  sign(claims: AccessTokenClaims): string {
    return jwtLibrary().sign(claims, this.privateKey, { algorithm: 'RS256', keyid: this.kid });
  }
}

/** RFC 6750 §3: an error_description is printable ASCII without `"` or `\\` (a header can carry no other anyway). */
const headerSafe = (text: string): string => text.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');

const invalidToken = (detail: string, code = 'invalid_token'): DomainError =>
  new DomainError(401, code, detail, undefined, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${headerSafe(detail)}"`,
  });

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 7235), or undefined. */
export const bearerTokenOf = (authorization: string | undefined): string | undefined =>
  BEARER.exec(authorization ?? '')?.[1];

/** Bearer credentials that are not one token (spaces inside it, nothing after the scheme): refused, not missing. */
export const malformedBearer = (): DomainError =>
  invalidToken('The Authorization header is not "Bearer <token>" with one token of base64url segments and dots.');

export const missingToken = (): DomainError =>
  new DomainError(
    401,
    'invalid_token',
    'An access token is required: send "Authorization: Bearer <token>".',
    undefined,
    {
      'WWW-Authenticate': 'Bearer',
    },
  );

export interface VerifyExpectations {
  issuer: string;
  audiences: readonly string[];
  /**
   * The token's client as this instance has it now, or undefined when it has none of that id: its clock's time in
   * seconds, and its registration (`ClientRecord.registration`), which begins every jti of its tokens.
   */
  clientOf(clientId: string): { now: number; registration: string | undefined } | undefined;
}

const VERIFIED_CACHE_SIZE = 1000;

/**
 * A token's verification: its claims when valid; else why not, whose it is when its signature is ours, and whether
 * its header names this server's key (a token of ours tampered with, or one made to look so).
 */
export type TokenVerdict =
  | { claims: AccessTokenClaims; signedFor: string; error?: undefined }
  | { claims?: undefined; signedFor: string | undefined; error: DomainError; namesThisServer?: boolean };

/**
 * Tokens whose signature one server instance has verified. An RSA verification costs far more than the rest of a
 * request, and clients reuse a token for an hour, so the signature is checked once per token; issuer, audience and
 * expiry are checked on every request, as they depend on the request's host and the tenant's clock.
 */
export class VerifiedTokens {
  private readonly signed = new Map<string, AccessTokenClaims>();

  constructor(private readonly keys: SigningKeys) {}

  verify(token: string, expect: VerifyExpectations): TokenVerdict {
    let claims = this.signed.get(token);
    if (!claims) {
      const signature = verifySignature(this.keys, token);
      if ('error' in signature) return { signedFor: undefined, ...signature };
      claims = signature.claims;
      if (this.signed.size >= VERIFIED_CACHE_SIZE) this.signed.delete(this.signed.keys().next().value!);
      this.signed.set(token, claims);
    }
    const error = checkClaims(claims, expect);
    return error ? { signedFor: claims.sub, error } : { claims, signedFor: claims.sub };
  }
}

/**
 * Only RS256 under this instance's kid, with a valid signature over claims shaped as ours: then the token is ours and
 * names its client. Whatever the token holds, the answer is a verdict, never a throw: no input causes a 5xx.
 */
function verifySignature(
  keys: SigningKeys,
  token: string,
): { claims: AccessTokenClaims } | { error: DomainError; namesThisServer: boolean } {
  const namesThisServer = headerOf(token)?.kid === keys.kid;
  const decoded = decodeCompactJws(token);
  if (!decoded)
    return {
      error: invalidToken(
        'The access token is not a well-formed JWT: three base64url segments, the first two JSON objects.',
      ),
      namesThisServer,
    };
  if (decoded.header.alg !== 'RS256')
    return {
      error: invalidToken(`The access token's algorithm "${String(decoded.header.alg).slice(0, 20)}" is not accepted.`),
      namesThisServer,
    };
  if (!namesThisServer)
    return { error: invalidToken('The access token was not signed by this server.'), namesThisServer };
  let verified: unknown;
  try {
    // Time, issuer and audience are checked against each request (checkClaims), not here.
    verified = jwtLibrary().verify(token, keys.publicKey, {
      algorithms: ['RS256'],
      ignoreExpiration: true,
      ignoreNotBefore: true,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'verification failed';
    return { error: invalidToken(`The access token is not valid: ${reason.slice(0, 100)}.`), namesThisServer };
  }
  const claims = accessTokenClaims(verified);
  return claims
    ? { claims }
    : { error: invalidToken("The access token's claims are not those this server issues."), namesThisServer };
}

function checkClaims(claims: AccessTokenClaims, expect: VerifyExpectations): DomainError | undefined {
  if (claims.iss !== expect.issuer)
    return invalidToken(`The access token is not valid: jwt issuer invalid. expected: ${expect.issuer}.`);
  if (!expect.audiences.includes(claims.aud))
    return invalidToken(
      `The access token is not valid: jwt audience invalid. expected: ${expect.audiences.join(' or ')}.`,
    );
  const client = expect.clientOf(claims.sub);
  if (client === undefined) return invalidToken('The access token names an unknown client.');
  if (client.registration !== undefined && !claims.jti.startsWith(client.registration))
    return invalidToken(
      'The access token was issued to an earlier client of this id, removed since (DELETE /__control/clients/{client_id}): request a new one.',
    );
  if (client.now >= claims.exp) return invalidToken('The access token has expired.', 'token_expired');
  return undefined;
}
