import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import type { FakeContext } from '../context.js';
import { JournalRecord } from '../harness/journal.js';
import type { Tenant } from '../domain/tenants.js';

/** The control plane, the spec, the docs and the console are the fake's own: never journaled, logged or faulted. */
export const isOwnPath = (path: string): boolean =>
  path.startsWith('/__control') || path.startsWith('/docs') || path === '/openapi.json' || path === '/openapi.yaml' ||
  path === '/' || path === '/console' || path.startsWith('/console/');

/** The client a request claims to be, before (or without) verification: for journal attribution and faults. */
export function claimedClientId(req: Request): string | undefined {
  if (req.path === '/oauth2/token') return typeof req.body?.client_id === 'string' ? req.body.client_id : undefined;
  const match = /^Bearer +([^\s]+)/i.exec(req.get('authorization') ?? '');
  const payload = match ? jwt.decode(match[1]!) : null;
  return payload && typeof payload === 'object' && typeof payload.sub === 'string' ? payload.sub : undefined;
}

function bodyHash(req: Request): string | null {
  if (req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0)) return null;
  return createHash('sha256').update(JSON.stringify(req.body)).digest('hex');
}

/**
 * One journal entry and one log line per request, with a request id (also the `X-Request-Id` header). First in the
 * pipeline, so even unparseable bodies are journaled; records on `close`, so dropped connections are too (status 0).
 */
export function requestObserver(ctx: FakeContext): RequestHandler {
  let counter = 0;
  return (req, res, next) => {
    if (isOwnPath(req.path)) return next();
    const id = String(++counter);
    const at = Date.now();
    const started = performance.now();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);

    let itemCount: number | null = null;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const data = (body as { data?: unknown } | null)?.data;
      if (Array.isArray(data)) itemCount = data.length;
      return json(body);
    };

    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 0;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const tenant = res.locals.tenant as Tenant | undefined;
      // the verified client when authentication passed, else the one the request claimed (say, with an expired token)
      const clientId = tenant?.client.client_id ?? claimedClientId(req) ?? null;
      const retryAfter = res.getHeader('retry-after');
      const queryAt = req.originalUrl.indexOf('?');
      ctx.journal.record(
        new JournalRecord(
          {
            id,
            client_id: clientId,
            method: req.method,
            path: req.path,
            rawQuery: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
            status,
            duration_ms: durationMs,
            operation_id: (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ?? null,
            code: (res.locals.problemCode as string | undefined) ?? null,
            fault_id: (res.locals.faultId as string | undefined) ?? null,
          },
          {
            at,
            retryAfter: retryAfter === undefined ? null : Number(retryAfter),
            // only the readiness report reads it, and only for 4xx answers: no hashing on the success path
            bodyHash: status >= 400 && status < 500 ? bodyHash(req) : null,
            itemCount,
          },
        ),
      );
      ctx.logger.info({ reqId: id, method: req.method, path: req.path, status, durationMs, clientId }, 'request');
    });
    next();
  };
}

