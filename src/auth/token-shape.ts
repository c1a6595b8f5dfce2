/**
 * A bearer token is hostile input: these read it without throwing, whatever it holds. jsonwebtoken's own `decode`
 * throws on a payload that is not JSON when the header says `typ: JWT` (a token cut by one character), so the
 * segments are read here and the library is asked only to check a signature.
 */

export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  /**
   * A token carrying the scope `control` only: when its authority on the control plane ends, in real time (seconds):
   * `exp` is on the tenant's clock, which the partner moves itself (moved back, it would keep the token valid).
   */
  control_until?: number;
}

type JsonObject = Record<string, unknown>;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Base64url as RFC 7515 writes it: its alphabet, no padding, and canonical (the decoder ignores a last character's
 * spare bits, so without this check a signature's last character could change and the token still verify).
 */
const isBase64url = (segment: string): boolean =>
  BASE64URL.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;

const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonObjectIn(segment: string): JsonObject | undefined {
  if (!isBase64url(segment)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The header of a compact JWS when it is a JSON object, however broken the rest of the token. */
export function headerOf(token: string): JsonObject | undefined {
  const end = token.indexOf('.');
  return end === -1 ? undefined : jsonObjectIn(token.slice(0, end));
}

/** A JWS in compact form: three base64url segments, the first two JSON objects; else undefined. */
export function decodeCompactJws(token: string): { header: JsonObject; payload: JsonObject } | undefined {
  const segments = token.split('.');
  if (segments.length !== 3 || !isBase64url(segments[2]!)) return undefined;
  const header = jsonObjectIn(segments[0]!);
  const payload = header && jsonObjectIn(segments[1]!);
  return payload && { header: header!, payload };
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isInstant = (value: unknown): value is number => Number.isSafeInteger(value);

/**
 * The claims as this server signs them (http/handlers/auth.ts), or undefined: a signature of ours over anything else
 * (a key that leaked, a token signed by hand with the kept key) proves nobody.
 */
export function accessTokenClaims(payload: unknown): AccessTokenClaims | undefined {
  if (!isJsonObject(payload)) return undefined;
  const { iss, aud, sub, client_id, scope, iat, exp, jti, control_until, nbf } = payload;
  const shaped =
    isText(iss) &&
    isText(aud) &&
    isText(sub) &&
    client_id === sub &&
    typeof scope === 'string' &&
    isText(jti) &&
    isInstant(iat) &&
    isInstant(exp) &&
    iat <= exp &&
    (control_until === undefined || isInstant(control_until)) &&
    nbf === undefined;
  return shaped ? (payload as unknown as AccessTokenClaims) : undefined;
}
