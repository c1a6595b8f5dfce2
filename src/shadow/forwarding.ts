import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '../api/errors.js';
import { decodeFormAsSent } from '../api/form-urlencoded.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import {
  clientSecretOfForm,
  grantedToken,
  secretForms,
  withoutSecretValues,
  type CredentialBook,
} from '../records/secrets.js';
import { jsonBodies } from './json-slices.js';
import { JOURNAL_BODY_LIMIT_BYTES } from '../records/journal-body.js';
import { settle, stateOf } from '../http/request-state.js';
import { audiencesOf, baseUrlOf } from '../http/request-context.js';
import type { RoutableRequest } from '../http/route.js';
import type { RouteMatch } from '../http/route-match.js';
import { answerHeaders, forwardedRequestHeaders, rewriteAudience } from './headers.js';
import { isTwinReplay } from '../http/replay-transport.js';
import { UpstreamUnreachable, type UpstreamAnswer, type UpstreamClient } from './upstream-client.js';

/** The most a forwarded request's body may hold (the fake's own limit is 1 MiB; the upstream may take more). */
const MAX_FORWARDED_BODY_BYTES = 8 * 1024 * 1024;

/** The requests shadow mode forwards (docs/shadow-mode.md): the token request and everything under `/v1`. */
const isForwarded = (method: string, path: string): boolean =>
  (method === 'POST' && path === '/oauth2/token') || path === '/v1' || path.startsWith('/v1/');

/**
 * The operation of a forwarded request, found by the route step's own router (`http/route.ts`: the document's paths
 * to the letter), or none where the route step would refuse the request (404, 405, 400 malformed_uri). The route step
 * never sees a forwarded request: this is its one routing, and the exchange carries what it found to the twin.
 */
export function forwardedRoute(
  route: (req: RoutableRequest) => RouteMatch,
): (req: RoutableRequest) => RouteMatch | undefined {
  return (req) => {
    try {
      return route(req);
    } catch {
      return undefined;
    }
  };
}

/** An answer up to this size is joined and sent in one write; a larger one goes out chunk by chunk. */
const JOINED_ANSWER_BYTES = 1024 * 1024;

/** How many of the first chunks it takes to hold `bytes` bytes. */
const chunksHolding = (chunks: readonly Buffer[], bytes: number): number => {
  let held = 0;
  for (let i = 0; i < chunks.length; i++) if ((held += chunks[i]!.length) >= bytes) return i + 1;
  return chunks.length;
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What the comparison needs of an exchange: tokens by their hash; the client's credentials only to hide them. */
export interface ForwardedExchange {
  requestId: string;
  method: string;
  path: string;
  rawQuery: string;
  /** What the route step's router found (`forwardedRoute`): the operation, its OpenAPI path and path parameters. */
  route: RouteMatch | undefined;
  contentType: string | undefined;
  /** The client's `Host`: the replay's too, so the twin issues tokens for the same audience. */
  host: string | undefined;
  accept: string | undefined;
  /** The request's body; a token request's without its `client_secret`. */
  body: Buffer;
  /** SHA-256 of the bearer token the request carried (the upstream's token). */
  bearer: string | undefined;
  /** A token request: who asked, how it authenticated (never with what). */
  token: TokenRequest | undefined;
  /** The client's credentials the answers may carry (`records/secrets.ts`): kept to hide them in the report. */
  secrets: readonly string[];
  upstream: {
    status: number;
    body: unknown;
    contentType: string | undefined;
    tokenHash: string | undefined;
    size: number;
  };
}

export interface TokenRequest {
  clientId: string;
  method: 'client_secret_post' | 'client_secret_basic';
  /** The form's fields but the secret. */
  form: [string, string][];
  /** The form carried a `client_secret` (beside Basic: two methods, which the twin must see to refuse alike). */
  secretInForm: boolean;
}

/** What the forwarding step asks of the twin: who a token belongs to, and to compare an exchange once answered. */
export interface TwinSide {
  clientOfToken(tokenHash: string): string | undefined;
  /** Each client's credentials as seen on the way: what journal and report hide wherever an answer carries them. */
  readonly credentials: CredentialBook;
  /** The upstream granted a token: its client's twin exists from now on (answers its tenant, if it could be made). */
  tokenGranted(clientId: string, scope: unknown, method: TokenRequest['method'], tokenHash: string): Tenant | undefined;
  compareLater(exchange: ForwardedExchange): void;
}

const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

function readBody(req: Request): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORWARDED_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(
          new DomainError(
            413,
            'payload_too_large',
            `The request body is over ${MAX_FORWARDED_BODY_BYTES} bytes: shadow mode does not forward it.`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(undefined));
    req.on('aborted', () => resolve(undefined));
  });
}

/** Who a token request is from and how it authenticated; its secret apart: hidden wherever it shows, never kept. */
function tokenRequestOf(req: Request, body: Buffer): { token: TokenRequest; secret: string | undefined } | undefined {
  const form = body
    .toString('latin1')
    .split('&')
    .filter(Boolean)
    .map((pair): [string, string] => {
      const eq = pair.indexOf('=');
      return [decodeFormAsSent(eq < 0 ? pair : pair.slice(0, eq)), decodeFormAsSent(eq < 0 ? '' : pair.slice(eq + 1))];
    });
  const basic = /^\s*basic\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  let clientId = form.find(([name]) => name === 'client_id')?.[1];
  const credentials = clientSecretOfForm(form);
  let secret = credentials.secret;
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    clientId = decodeFormAsSent(colon < 0 ? decoded : decoded.slice(0, colon));
    secret = colon < 0 ? secret : decodeFormAsSent(decoded.slice(colon + 1));
  }
  if (clientId === undefined || clientId === '') return undefined;
  const token: TokenRequest = {
    clientId,
    method: basic !== undefined ? 'client_secret_basic' : 'client_secret_post',
    form: credentials.rest,
    secretInForm: credentials.inForm,
  };
  return { token, secret };
}

const withoutSecret = (token: TokenRequest | undefined, body: Buffer): Buffer =>
  token ? Buffer.from(token.form.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')) : body;

const headerOf = (rawHeaders: readonly string[], name: string): string | undefined => {
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
};

/**
 * The answer's JSON (`parse`: large answers in slices, one at a time); `undefined` for an empty body; throws
 * `UpstreamUnreachable` for anything else below 500.
 */
async function jsonOf(
  answer: UpstreamAnswer,
  contentType: string | undefined,
  parse: ReturnType<typeof jsonBodies>,
): Promise<unknown> {
  if (answer.size === 0) return undefined;
  try {
    if (!/[/+]json\b/i.test(contentType ?? '')) throw new Error('not JSON');
    return await parse(answer.chunks, answer.size);
  } catch {
    // an upstream's own failure is passed through whatever it says: the report shows the status
    if (answer.status >= 500) return undefined;
    throw new UpstreamUnreachable(
      `the upstream answered ${answer.status} with a body that is not JSON (${contentType ?? 'no Content-Type'})`,
    );
  }
}

/**
 * Shadow mode's step, right after the journal's observer: the token request and every `/v1` request go
 * to the upstream and its answer goes back to the client, byte for byte but for hop-by-hop headers; the request is
 * journaled as any other (attributed to the twin of its client once the upstream vouched for the client). The
 * comparison with the twin is queued once the client has its answer. Other requests, and the twin's replays, go on.
 */
export function forwardingStep(
  ctx: FakeContext,
  upstream: UpstreamClient,
  twin: TwinSide,
  route: (req: RoutableRequest) => RouteMatch,
): RequestHandler {
  const parse = jsonBodies();
  const routeOf = forwardedRoute(route);
  const forward = async (req: Request, res: Response): Promise<void> => {
    const state = stateOf(req);
    const route = routeOf(req);
    if (route) {
      state.operationId = route.operation.operationId;
      state.route = route;
    }
    const received = await readBody(req);
    if (received === undefined) {
      // the client left before its request was read: nobody to answer, nothing forwarded
      res.destroy();
      settle(state);
      return;
    }
    state.rawBody = received;
    const isTokenRequest = req.path === '/oauth2/token';
    const asked = isTokenRequest ? tokenRequestOf(req, received) : undefined;
    const token = asked?.token;
    const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const bearerHash = bearer === undefined ? undefined : sha256(bearer);
    const tokenOwner = bearerHash === undefined ? undefined : twin.clientOfToken(bearerHash);
    if (tokenOwner !== undefined) state.tenant = ctx.tenants.find(tokenOwner);
    // what the upstream's answer may echo: the credentials sent now, and those its client was seen with before
    const secrets = [asked?.secret, bearer, ...twin.credentials.of(token?.clientId ?? tokenOwner)].filter(
      (value): value is string => value !== undefined,
    );
    state.credentials = secrets;
    let body = received;
    if (isTokenRequest) {
      const [host = '', hostname = host] = audiencesOf(baseUrlOf(req, ctx));
      body = rewriteAudience(received, { host, hostname }, upstream.base);
    }
    const hadBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const answer = await upstream.send({
      method: req.method,
      url: req.originalUrl,
      headers: forwardedRequestHeaders(req.rawHeaders, upstream.base.host, body.length, hadBody),
      body,
    });
    const contentType = headerOf(answer.rawHeaders, 'content-type');
    const json = await jsonOf(answer, contentType, parse);
    // the answer is the upstream's: not even the fake's request id is added to it
    res.removeHeader('X-Request-Id');
    const code =
      json !== null && typeof json === 'object'
        ? ((json as { code?: unknown; error?: unknown }).code ?? (json as { error?: unknown }).error)
        : undefined;
    if (typeof code === 'string') state.code = withoutSecretValues(code, secretForms(secrets));
    res.writeHead(
      answer.status,
      answer.statusMessage,
      answerHeaders(answer.rawHeaders, answer.size, req.method === 'HEAD'),
    );
    if (answer.size <= JOINED_ANSWER_BYTES) res.end(Buffer.concat(answer.chunks, answer.size));
    else {
      // a large answer goes out as it came, never joined; the journal keeps its beginning, as of any answer
      for (const chunk of answer.chunks) res.write(chunk);
      res.end();
      state.sentBody = Buffer.concat(answer.chunks.slice(0, chunksHolding(answer.chunks, JOURNAL_BODY_LIMIT_BYTES)));
    }
    const accessToken = isTokenRequest && answer.status === 200 ? grantedToken(json) : undefined;
    const tokenHash = accessToken === undefined ? undefined : sha256(accessToken);
    if (token && tokenHash !== undefined) {
      state.tenant = twin.tokenGranted(token.clientId, (json as { scope?: unknown }).scope, token.method, tokenHash);
      twin.credentials.remember(token.clientId, { secret: asked?.secret, tokens: [accessToken as string] });
      secrets.push(accessToken as string);
    } else if (tokenOwner !== undefined) twin.credentials.remember(tokenOwner, { tokens: [bearer] });
    settle(state);
    twin.compareLater({
      requestId: state.id!,
      method: req.method,
      path: req.path,
      rawQuery: req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '',
      route,
      contentType: req.headers['content-type'],
      host: req.headers.host,
      accept: req.headers.accept,
      body: withoutSecret(token, received),
      bearer: bearerHash,
      token,
      secrets,
      upstream: { status: answer.status, body: json, contentType, tokenHash, size: answer.size },
    });
  };
  return (req, res, next) => {
    if (isTwinReplay(req) || !isForwarded(req.method, req.path)) return next();
    forward(req, res).catch((error: unknown) => {
      const cause = error instanceof UpstreamUnreachable ? error.message : undefined;
      // nothing was compared or changed: the client hears that the upstream could not be used, and why
      next(
        cause !== undefined
          ? new DomainError(
              502,
              'upstream_unreachable',
              `Shadow mode could not use the upstream ${upstream.base.origin}: ${cause}.`,
            )
          : error,
      );
    });
  };
}
