import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '../api/errors.js';
import { basicCredentials } from '../auth/basic-credentials.js';
import { bearerTokenOf, malformedBearer, missingToken, type VerifyExpectations } from '../auth/jwt.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import { clientProvenBy, withBasicCredentials } from '../domain/token-request.js';
import type { Fault } from '../records/faults.js';
import type { ReceiveBody } from './body.js';
import { strike, takeFault } from './faults.js';
import { audiencesOf, baseUrlOf, verifyOnTenantClock } from './request-context.js';
import { stateOf } from './request-state.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'linkSigner' | 'options' | 'tenants' | 'tokens'>;

export interface Identified {
  /** The client the request proved to be: a token we signed, or the token request's own credentials. */
  tenant?: Tenant;
  /** Why the request may not go on, answered after its tenant's faults. */
  refusal?: unknown;
}

/** Who a token must be issued by and for: the request's base URL and its audiences. */
type TokenExpectations = Omit<VerifyExpectations, 'clientOf'>;

const insufficientScope = (missing: string[]): DomainError =>
  new DomainError(
    403,
    'insufficient_scope',
    `This operation needs the scope ${missing.join(' ')}, which the token does not carry.`,
    undefined,
    {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${missing.join(' ')}"`,
    },
  );

/**
 * Who is calling, proven by a bearer token we signed (even an expired one, or one short of a scope: it still proves
 * its client). A forged token names no tenant, so it never takes a tenant's faults nor lands in its journal or report.
 */
function identifyBearer(
  ctx: InstanceParts,
  expectations: (req: Request) => TokenExpectations,
  req: Request,
): Identified {
  const scopes = stateOf(req).route?.operation.scopes;
  if (!scopes) return {};
  return bearerIdentity(ctx, req.get('authorization'), () => expectations(req), scopes);
}

/** The client an Authorization header's bearer token proves, and why it may not call an operation needing `scopes`. */
export function bearerIdentity(
  ctx: InstanceParts,
  authorization: string | undefined,
  expectations: () => TokenExpectations,
  scopes: readonly string[],
): Identified {
  const token = bearerTokenOf(authorization);
  if (token === undefined)
    return { refusal: /^bearer\s/i.test(authorization ?? '') ? malformedBearer() : missingToken() };
  const { issuer, audiences } = expectations();
  const verdict = verifyOnTenantClock(ctx, token, issuer, audiences);
  const tenant = verdict.signedFor === undefined ? undefined : ctx.tenants.find(verdict.signedFor);
  if (verdict.error) return { tenant, refusal: verdict.error };
  const granted = verdict.claims.scope.split(' ');
  const missing = scopes.filter((s) => !granted.includes(s));
  return { tenant, ...(missing.length > 0 && { refusal: insufficientScope(missing) }) };
}

const isForm = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

/** A token request proves its client by its credentials, Basic or in the form (the grant's rules are the handler's). */
function identifyTokenRequest(ctx: InstanceParts, req: Request): Identified {
  if (stateOf(req).operationId !== 'createToken') return {};
  let basic: ReturnType<typeof basicCredentials>;
  try {
    basic = basicCredentials(req.get('authorization'));
  } catch (error) {
    // malformed Basic credentials prove nobody, and are answered as such before validation asks for form fields
    return { refusal: error };
  }
  if (basic && isForm(req.body)) {
    try {
      // validation then sees the five fields the document requires, whichever way the client sent its credentials
      req.body = withBasicCredentials(req.body, basic);
    } catch (error) {
      // two authentication methods at once: refused (after the faults of the client Basic proves), nothing issued
      return { tenant: clientProvenBy(ctx.tenants, {}, basic), refusal: error };
    }
  }
  return { tenant: clientProvenBy(ctx.tenants, req.body ?? {}, basic) };
}

/** The token request's body is read before its client is known. */
const alreadyReceived: ReceiveBody = () => Promise.resolve(undefined);

/**
 * A fault before the operation. A delay holds a request the platform has received: its body is read first, so the
 * operation runs after the delay whether or not the client is still waiting (a slow platform still applies what it
 * received). What was wrong with the body is answered after the fault and the refusal, as without a delay.
 */
async function strikeBefore(
  fault: Fault,
  req: Request,
  res: Response,
  receive: ReceiveBody,
): Promise<{ dropped: boolean; bodyError?: unknown }> {
  const bodyError = fault.latency_ms === null ? undefined : await receive(req, res);
  return { dropped: (await strike(fault, req, res)) === 'dropped', bodyError };
}

/** Attributes the request to the client it proved to be, applies that tenant's injected faults, then refuses or goes on. */
const admit =
  (identify: (req: Request) => Identified, receive: ReceiveBody): RequestHandler =>
  (req, res, next) => {
    const { tenant, refusal } = identify(req);
    if (tenant) {
      stateOf(req).tenant = tenant;
      // Only a request with a fault waits for it: the others go on in this tick (no promise per request).
      const fault = takeFault(tenant, req, 'before');
      if (fault) {
        return strikeBefore(fault, req, res, receive).then(({ dropped, bodyError }) => {
          if (dropped) return;
          if (refusal) throw refusal;
          next(bodyError);
        });
      }
    }
    if (refusal) throw refusal;
    next();
  };

/**
 * The client a bearer token we signed names, whatever the request asks (an unknown path too): attribution for the
 * journal only, with no faults and no refusal.
 */
export function bearerTenant(ctx: InstanceParts): (req: Request) => Tenant | undefined {
  return (req) => {
    const token = bearerTokenOf(req.get('authorization'));
    if (token === undefined) return undefined;
    const { signedFor } = verifyOnTenantClock(ctx, token, baseUrlOf(req, ctx));
    return signedFor === undefined ? undefined : ctx.tenants.find(signedFor);
  };
}

/** Before the body is read: operations secured by OAuth need a valid token with the operation's scopes. */
export function authenticateBearer(ctx: InstanceParts, receive: ReceiveBody): RequestHandler {
  // The issuer and audiences of the last scheme and Host seen: a client keeps its host, so the Host check and
  // `new URL` run when they change, not per request. One per instance.
  let last: { protocol: string; host: string | undefined; issuer: string; audiences: readonly string[] } | undefined;
  const expectations = (req: Request): { issuer: string; audiences: readonly string[] } => {
    const protocol = req.protocol;
    const host = req.get('host');
    if (last === undefined || last.protocol !== protocol || last.host !== host) {
      const issuer = baseUrlOf(req, ctx);
      last = { protocol, host, issuer, audiences: audiencesOf(issuer) };
    }
    return last;
  };
  return admit((req) => identifyBearer(ctx, expectations, req), receive);
}

/** After the body is read: the token endpoint's client, by the credentials of its form. */
export const authenticateTokenRequest = (ctx: InstanceParts): RequestHandler =>
  admit((req) => identifyTokenRequest(ctx, req), alreadyReceived);
