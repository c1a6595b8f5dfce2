import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler, Response } from 'express';
import { decodeFormAsSent } from '../api/form-urlencoded.js';
import type { FakeContext } from '../context.js';
import { JournalRecord, type KeptExchange } from '../records/journal.js';
import { keptBody } from '../records/journal-body.js';
import { carriesSecret, shownPath } from '../records/secrets.js';
import { isOwnPath } from './own-paths.js';
import { urlParts } from './request-context.js';
import { beginRequestState, stateOf, type RequestState } from './request-state.js';
import { isTwinReplay } from './replay-transport.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'journal' | 'logger' | 'tenants'>;

const hashOf = (body: Buffer | undefined): string | null =>
  body === undefined || body.length === 0 ? null : createHash('sha256').update(body).digest('hex');

/** The ids of one app's requests (the journal's, the `X-Request-Id` header's), counted from 1. */
export const requestIds = (): (() => string) => {
  let counter = 0;
  return () => String(++counter);
};

/**
 * One journal entry and one log line per request, with a request id (also the `X-Request-Id` header). First in the
 * pipeline, so even unparseable bodies are journaled; records on `close`, so dropped connections are too (status 0),
 * and not before the request's work is over, so a write applied after the client left is `applied` too.
 */
export function requestObserver(ctx: InstanceParts, nextId: () => string): RequestHandler {
  return (req, res, next) => {
    // shadow mode's twin replays its clients' requests: they are the clients', journaled once, as forwarded
    if (isOwnPath(req.path) || isTwinReplay(req)) {
      beginRequestState(req, undefined);
      return next();
    }
    const state = beginRequestState(req, nextId());
    res.setHeader('X-Request-Id', state.id!);
    journalWhenClosed(ctx, state, req, res, req.path);
    next();
  };
}

/** A request as the journal reads it. */
type ObservedRequest = IncomingMessage & { originalUrl?: string };

/** Journals and logs a request when its response closes and its work is over (`path`: its URL's path). */
export function journalWhenClosed(
  ctx: InstanceParts,
  state: RequestState,
  req: ObservedRequest,
  res: ServerResponse,
  path: string,
): void {
  const at = Date.now();
  const started = performance.now();
  const journal = (answered: boolean): void => {
    // Runs outside Express's error handling: whatever happens here must not end the process.
    try {
      // a change made after a delay (an injected latency) is saved too, not only what was there when the call began
      if (state.tenant) ctx.tenants.touch(state.tenant);
      record(ctx, state, { req, res, path, at, started, answered });
    } catch (error) {
      ctx.logger.error({ err: error, reqId: state.id }, 'could not journal a request');
    }
  };
  res.once('close', () => {
    // A client that left before its answer does not stop the operation (an injected delay): the entry waits for
    // the request's work to end, so it says whether the write was applied.
    // whether the answer went out is known now: one written after the client left reaches nobody
    const answered = res.writableFinished;
    if (answered || state.settled) journal(answered);
    else state.whenSettled = () => journal(answered);
  });
}

/**
 * The body of a request's answer, as res.end wrote it (the bytes Express made of a longer string, so the journal cuts
 * them without encoding them again): read by the journal and, in tests, by the answer check. Set once on the app's
 * response prototype rather than on each response.
 */
export function keepSentBodies(app: Express): void {
  const end = app.response.end as (this: Response, ...args: unknown[]) => Response;
  app.response.end = function endAndKeep(this: Response, ...args: unknown[]) {
    const [chunk] = args;
    if (this.req && (typeof chunk === 'string' || Buffer.isBuffer(chunk)) && chunk.length > 0)
      stateOf(this.req).sentBody = chunk;
    return end.apply(this, args);
  } as Response['end'];
}

const AUTHORIZATION = /^\s*(bearer|basic)\s+(\S+)/i;

/**
 * The request's own credentials that its path, query, body or answer carries too (a token pasted into a field or a
 * path, raw or percent-encoded any way, echoed when the record is read back): kept to be replaced there when the
 * journal is read. Most requests have none to look for.
 */
function credentialsCarried(
  scheme: string | undefined,
  value: string | undefined,
  url: { path: string; rawQuery: string },
  bodies: { rawBody?: Buffer | undefined; sentBody?: string | Buffer | undefined },
  clientSecret: string | undefined,
): string[] | undefined {
  const { rawBody, sentBody } = bodies;
  const { path, rawQuery } = url;
  // the client's own secret too, wherever a request carries it (a field of a create, echoed by its answer)
  const candidates = [value, clientSecret].filter((c): c is string => c !== undefined);
  if (scheme === 'basic' && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const secret = decoded.slice(decoded.indexOf(':') + 1);
    // form-encoded or not: the secret as it is, and decoded
    candidates.push(secret, decodeFormAsSent(secret));
  }
  const carried = candidates.filter(
    (c) =>
      c.length >= 8 &&
      (carriesSecret(path, c) || carriesSecret(rawQuery, c) || rawBody?.includes(c) || sentBody?.includes(c)),
  );
  return carried.length > 0 ? [...new Set(carried)] : undefined;
}

/** What the journal keeps of the bodies: references to what the pipeline was handed, cut (`keptBody`), nothing more. */
function exchangeOf(
  ctx: InstanceParts,
  req: ObservedRequest,
  res: ServerResponse,
  state: RequestState,
  answered: boolean,
  url: { path: string; rawQuery: string },
): KeptExchange {
  const authorization = AUTHORIZATION.exec(req.headers.authorization ?? '');
  const scheme = authorization?.[1]?.toLowerCase();
  const responseType = res.getHeader('content-type');
  const length = res.getHeader('content-length');
  const carried = credentialsCarried(scheme, authorization?.[2], url, state, state.tenant?.client.client_secret);
  const credentials = state.credentials ? [...new Set([...(carried ?? []), ...state.credentials])] : carried;
  return {
    request: keptBody(state.rawBody, req.headers['content-type'] ?? null),
    // an answer written after the client left never reached it
    response: !answered
      ? null
      : keptBody(
          state.sentBody,
          typeof responseType === 'string' ? responseType : null,
          length === undefined ? undefined : Number(length),
        ),
    authorization: scheme === 'bearer' || scheme === 'basic' ? scheme : null,
    ...(credentials && { credentials }),
    // an upstream's answer is not bound by the document: redacted by name too, whatever its operation
    secretAnswer:
      state.credentials !== undefined ||
      state.operationId === undefined ||
      ctx.journal.answersSecrets(state.operationId),
  };
}

function record(
  ctx: InstanceParts,
  state: RequestState,
  {
    req,
    res,
    path,
    at,
    started,
    answered,
  }: { req: ObservedRequest; res: ServerResponse; path: string; at: number; started: number; answered: boolean },
): void {
  const status = answered ? res.statusCode : 0;
  const durationMs = Math.round((performance.now() - started) * 100) / 100;
  const clientId = state.tenant?.client.client_id ?? null;
  // the tenant's clock when the request arrived (its offset may have changed since only through the control plane)
  const tenantAt = state.tenant ? state.tenant.clock.now().getTime() - (Date.now() - at) : null;
  const retryAfter = res.getHeader('retry-after');
  const { query } = urlParts(req.originalUrl ?? req.url ?? '');
  const exchange = exchangeOf(ctx, req, res, state, answered, { path, rawQuery: query });
  ctx.journal.record(
    new JournalRecord(
      {
        id: state.id!,
        client_id: clientId,
        method: req.method!, // a server's request always has one
        path,
        rawQuery: query,
        status,
        duration_ms: durationMs,
        operation_id: state.operationId ?? null,
        code: state.code ?? null,
        fault_id: state.faultId ?? null,
        applied: state.applied ?? false,
      },
      {
        at,
        retryAfter: retryAfter === undefined ? null : Number(retryAfter),
        // only the readiness report reads it, and only for 4xx answers: no hashing on the success path
        bodyHash: status >= 400 && status < 500 ? hashOf(state.rawBody) : null,
        itemCount: state.itemCount ?? null,
        tenantAt,
        ...(state.documentedPath && { documentedPath: state.documentedPath }),
      },
      exchange,
    ),
  );
  // the log line shows the path as the journal does: a credential pasted into it, in any spelling, never
  ctx.logger.info(
    { reqId: state.id, method: req.method, path: shownPath(path, exchange.credentials), status, durationMs, clientId },
    'request',
  );
}
