import type { Request } from 'express';
import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import type { LinkContext } from '../domain/documents.js';
import type { Tenant } from '../domain/tenants.js';

// A Host is `host[:port]`: a name, an IPv4 literal or a bracketed IPv6 literal; nothing that would change a URL.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{1,5})?$/;

function isValidHost(host: string): boolean {
  if (!HOST.test(host)) return false;
  try {
    new URL(`http://${host}`);
    return true;
  } catch {
    return false;
  }
}

/** The public base URL of a request: BASE_URL when configured, else the request's own scheme and Host. */
export function baseUrlOf(req: Request, ctx: FakeContext): string {
  if (ctx.options.baseUrl !== undefined) return ctx.options.baseUrl;
  const host = req.get('host') ?? 'localhost';
  if (!isValidHost(host)) throw new DomainError(400, 'malformed_host', `The Host header "${host.slice(0, 100)}" is not a valid host[:port].`);
  return `${req.protocol}://${host}`;
}

/** The audiences a token for this base URL may carry: `URL.host`, and `URL.hostname` too. */
export function audiencesOf(baseUrl: string): string[] {
  const { host, hostname } = new URL(baseUrl);
  return host === hostname ? [host] : [host, hostname];
}

export function linkContextOf(call: { baseUrl: string }, ctx: FakeContext, tenant: Tenant): LinkContext {
  return {
    clientId: tenant.client.client_id,
    docsUrl: ctx.options.docsUrl ?? `${call.baseUrl}/files`,
    clock: tenant.clock,
    signer: ctx.linkSigner,
  };
}
