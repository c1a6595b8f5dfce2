import type { Request, Response } from 'express';
import type { FakeContext } from '../context.js';
import type { LinkContext } from '../domain/documents.js';
import type { Tenant } from '../domain/tenants.js';

/** The public base URL of a request: BASE_URL when configured, else the request's own scheme and Host. */
export function baseUrlOf(req: Request, ctx: FakeContext): string {
  return ctx.options.baseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The audiences a token for this base URL may carry: `URL.host`, and `URL.hostname` too. */
export function audiencesOf(baseUrl: string): string[] {
  const { host, hostname } = new URL(baseUrl);
  return host === hostname ? [host] : [host, hostname];
}

/** The tenant the security handler authenticated; only set on operations that need a token. */
export function tenantOf(res: Response): Tenant {
  const tenant = res.locals.tenant as Tenant | undefined;
  if (!tenant) throw new Error('No authenticated tenant on this request.');
  return tenant;
}

export function linkContextOf(req: Request, ctx: FakeContext, tenant: Tenant): LinkContext {
  return {
    clientId: tenant.client.client_id,
    docsUrl: ctx.options.docsUrl ?? `${baseUrlOf(req, ctx)}/files`,
    clock: tenant.clock,
    signer: ctx.linkSigner,
  };
}
