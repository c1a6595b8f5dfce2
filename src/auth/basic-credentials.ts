import { OAuthError } from '../api/errors.js';
import { decodeForm } from '../api/form-urlencoded.js';
import type { BasicCredentials } from '../domain/token-request.js';

const malformed = (): OAuthError =>
  new OAuthError(
    400,
    'invalid_request',
    'The Authorization header is not HTTP Basic credentials as RFC 6749 §2.3.1 has them: send "Basic base64(urlencode(client_id):urlencode(client_secret))", ' +
      'where a ":", "%", "+", space or non-ASCII character of the id or secret is form-urlencoded first (UTF-8).',
  );

/**
 * `client_secret_basic` (RFC 6749 §2.3.1, RFC 7617): the client credentials of an `Authorization: Basic` header,
 * undefined without one (another scheme is not client authentication here).
 */
export function basicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization ?? '');
  if (!match) {
    if (/^Basic(?: |$)/i.test(authorization ?? '')) throw malformed();
    return undefined;
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  // RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic
  const clientId = decodeForm(decoded.slice(0, colon));
  const clientSecret = decodeForm(decoded.slice(colon + 1));
  if (clientId === undefined || clientSecret === undefined) throw malformed();
  return { clientId, clientSecret };
}
