import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler, Response } from 'express';
import type { FakeContext } from '../context.js';
import { JournalRecord, type JournalExchange } from '../harness/journal.js';
import { journalBody, storedQuery } from '../harness/journal-body.js';
import { urlParts } from './request-context.js';
import { beginRequestState, stateOf, type RequestState } from './request-state.js';
import { isTwinReplay } from './shadow/replay-transport.js';

/** The control plane, the spec, the docs and the console are the fake's own: never journaled, logged or faulted. */
export const isOwnPath = (path: string): boolean =>
  path.startsWith('/__control') || path.startsWith('/docs') || path === '/openapi.json' || path === '/openapi.yaml' ||
  path === '/' || path === '/console' || path.startsWith('/console/');

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
export function requestObserver(ctx: FakeContext, nextId: () => string): RequestHandler {
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

/** A request as the journal reads it: Express's, or Node's own (a kept answer served before Express). */
type ObservedRequest = IncomingMessage & { originalUrl?: string };

/** Journals and logs a request when its response closes and its work is over (`path`: its URL's path). */
export function journalWhenClosed(ctx: FakeContext, state: RequestState, req: ObservedRequest, res: ServerResponse, path: string): void {
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
 * Every answer is written by res.send (res.json ends there too): the last body it was given is the one sent, kept for
 * the journal of a journaled request. Set once on the app's response prototype rather than on each response.
 */
export function keepSentBodies(app: Express): void {
  const send = app.response.send;
  app.response.send = function sendAndKeep(this: Response, body) {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      const state = this.req && stateOf(this.req);
      if (state?.id !== undefined) state.responseBody = body;
    }
    return send.call(this, body);
  };
}

const AUTHORIZATION_SCHEME = /^\s*(bearer|basic)\s/i;

function exchangeOf(req: ObservedRequest, res: ServerResponse, state: RequestState, answered: boolean): JournalExchange {
  const scheme = AUTHORIZATION_SCHEME.exec(req.headers.authorization ?? '')?.[1]?.toLowerCase();
  const responseType = res.getHeader('content-type');
  return {
    request: journalBody(state.rawBody, req.headers['content-type'] ?? null),
    // an answer written after the client left never reached it
    response: !answered ? null : state.responseJournal !== undefined ? state.responseJournal : journalBody(state.responseBody, typeof responseType === 'string' ? responseType : null),
    authorization: scheme === 'bearer' || scheme === 'basic' ? scheme : null,
  };
}

function record(
  ctx: FakeContext,
  state: RequestState,
  { req, res, path, at, started, answered }: { req: ObservedRequest; res: ServerResponse; path: string; at: number; started: number; answered: boolean },
): void {
  const status = answered ? res.statusCode : 0;
  const durationMs = Math.round((performance.now() - started) * 100) / 100;
  const clientId = state.tenant?.client.client_id ?? null;
  // the tenant's clock when the request arrived (its offset may have changed since only through the control plane)
  const tenantAt = state.tenant ? state.tenant.clock.now().getTime() - (Date.now() - at) : null;
  const retryAfter = res.getHeader('retry-after');
  const { query } = urlParts(req.originalUrl ?? req.url ?? '');
  ctx.journal.record(
    new JournalRecord(
      {
        id: state.id!,
        client_id: clientId,
        method: req.method!, // a server's request always has one
        path,
        rawQuery: storedQuery(query),
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
      },
      exchangeOf(req, res, state, answered),
    ),
  );
  ctx.logger.info({ reqId: state.id, method: req.method, path, status, durationMs, clientId }, 'request');
}
