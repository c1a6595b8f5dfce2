import { randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { DomainError } from '../api/errors.js';
import { rsaKeyPair } from './key-pair.js';
import type { Schemas } from '../api/types.js';

export type Jwks = Schemas['Jwks'];

export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

/** The signing key of one server instance: it signs access tokens and is published as a JWKS under its own kid. */
export class SigningKeys {
  readonly kid = randomUUID();
  private readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;

  constructor() {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = rsaKeyPair());
  }

  jwks(): Jwks {
    const { n, e } = this.publicKey.export({ format: 'jwk' });
    return { keys: [{ kty: 'RSA', kid: this.kid, use: 'sig', alg: 'RS256', n: n!, e: e! }] };
  }

  sign(claims: AccessTokenClaims): string {
    return jwt.sign(claims, this.privateKey, { algorithm: 'RS256', keyid: this.kid });
  }
}

const invalidToken = (detail: string, code = 'invalid_token'): DomainError =>
  new DomainError(401, code, detail, undefined, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`,
  });

export const missingToken = (): DomainError =>
  new DomainError(401, 'invalid_token', 'An access token is required: send "Authorization: Bearer <token>".', undefined, {
    'WWW-Authenticate': 'Bearer',
  });

export interface VerifyExpectations {
  issuer: string;
  audiences: readonly string[];
  /** The current time, in seconds, of the clock of the token's client (undefined when the client is unknown). */
  nowOf(clientId: string): number | undefined;
}

const VERIFIED_CACHE_SIZE = 1000;

/**
 * Tokens whose signature one server instance has verified. An RSA verification costs far more than the rest of a
 * request, and clients reuse a token for an hour, so the signature is checked once per token; issuer, audience and
 * expiry are checked on every request, as they depend on the request's host and the tenant's clock.
 */
export class VerifiedTokens {
  private readonly claims = new Map<string, AccessTokenClaims>();

  constructor(private readonly keys: SigningKeys) {}

  verify(token: string, expect: VerifyExpectations): AccessTokenClaims {
    const known = this.claims.get(token);
    if (!known) {
      const claims = verifyAccessToken(this.keys, token, expect);
      if (this.claims.size >= VERIFIED_CACHE_SIZE) this.claims.delete(this.claims.keys().next().value!);
      this.claims.set(token, claims);
      return claims;
    }
    if (known.iss !== expect.issuer) throw invalidToken(`The access token is not valid: jwt issuer invalid. expected: ${expect.issuer}.`);
    if (!expect.audiences.includes(known.aud)) throw invalidToken(`The access token is not valid: jwt audience invalid. expected: ${expect.audiences.join(' or ')}.`);
    const now = expect.nowOf(known.sub);
    if (now === undefined) throw invalidToken('The access token names an unknown client.');
    if (now >= known.exp) throw invalidToken('The access token has expired.', 'token_expired');
    return known;
  }
}

/** Verifies signature (RS256 only, our kid), issuer, audience and expiry; throws a 401 problem otherwise. */
export function verifyAccessToken(keys: SigningKeys, token: string, expect: VerifyExpectations): AccessTokenClaims {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') throw invalidToken('The access token is not a well-formed JWT.');
  if (decoded.header.alg !== 'RS256') throw invalidToken(`The access token's algorithm "${decoded.header.alg}" is not accepted.`);
  if (decoded.header.kid !== keys.kid) throw invalidToken('The access token was not signed by this server.');
  const clientId = typeof decoded.payload.sub === 'string' ? decoded.payload.sub : '';
  const now = expect.nowOf(clientId);
  if (now === undefined) throw invalidToken('The access token names an unknown client.');
  try {
    const claims = jwt.verify(token, keys.publicKey, {
      algorithms: ['RS256'],
      issuer: expect.issuer,
      audience: expect.audiences as [string, ...string[]],
      clockTimestamp: now,
    });
    return claims as unknown as AccessTokenClaims;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw invalidToken('The access token has expired.', 'token_expired');
    const reason = error instanceof Error ? error.message : 'verification failed';
    throw invalidToken(`The access token is not valid: ${reason}.`);
  }
}
