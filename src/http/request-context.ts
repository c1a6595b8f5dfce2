import type { Request } from 'express';
import { DomainError } from '../api/errors.js';
import type { TokenVerdict } from '../auth/jwt.js';
import type { FakeContext } from '../context.js';
import type { LinkContext } from '../domain/documents.js';
import type { Tenant } from '../domain/tenants.js';
import { hostNameOf } from './host-guard.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'linkSigner' | 'options' | 'tenants' | 'tokens'>;

/** A request target's path and its query string (without the `?`; empty when there is none). */
export function urlParts(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  return at === -1 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at + 1) };
}

/** The public base URL of a request: BASE_URL when configured, else the request's own scheme and Host. */
export const baseUrlOf = (req: Request, ctx: InstanceParts): string =>
  ctx.options.baseUrl ?? baseUrlFor(req.protocol, req.get('host'));

/** The base URL of a request's scheme and Host header (BASE_URL aside). */
export function baseUrlFor(protocol: string, hostHeader: string | undefined): string {
  const host = hostHeader ?? 'localhost';
  // The host guard refuses these first; a path it exempts must not turn one into a broken URL either.
  if (hostNameOf(host) === undefined)
    throw new DomainError(400, 'malformed_host', `The Host header "${host.slice(0, 100)}" is not a valid host[:port].`);
  return `${protocol}://${host}`;
}

/** The audiences a token for this base URL may carry: `URL.host`, and `URL.hostname` too. */
export function audiencesOf(baseUrl: string): string[] {
  const { host, hostname } = new URL(baseUrl);
  return host === hostname ? [host] : [host, hostname];
}

/**
 * A token checked as this instance signs them for a base URL, its times read on the clock of the tenant it names:
 * the one token check of the API, the control plane and the provider states.
 */
export function verifyOnTenantClock(
  ctx: InstanceParts,
  token: string,
  issuer: string,
  audiences: readonly string[] = audiencesOf(issuer),
): TokenVerdict {
  return ctx.tokens.verify(token, {
    issuer,
    audiences,
    clientOf: (clientId) => {
      const tenant = ctx.tenants.find(clientId);
      return tenant && { now: tenant.clock.nowSeconds(), registration: tenant.client.registration };
    },
  });
}

export function linkContextOf(call: { baseUrl: string }, ctx: InstanceParts, tenant: Tenant): LinkContext {
  return {
    clientId: tenant.client.client_id,
    docsUrl: ctx.options.docsUrl ?? `${call.baseUrl}/files`,
    clock: tenant.clock,
    signer: ctx.linkSigner,
  };
}
