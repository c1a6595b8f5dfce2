import type { IncomingHttpHeaders } from 'node:http';
import express, { type RequestHandler } from 'express';
import { chain } from './chain.js';
import { stateOf } from './request-state.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../api/json-depth.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Deeper JSON is refused before it is parsed: no document schema nests beyond a few levels. */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH;
export { jsonDepth };

class TooDeep extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.too.deep';
  constructor(depth: number) {
    super(`it nests ${depth} levels deep; at most ${MAX_BODY_DEPTH} are accepted`);
  }
}

function keepRawBody(req: Parameters<RequestHandler>[0], buffer: Buffer, json: boolean): void {
  if (json) {
    const depth = jsonDepth(buffer);
    if (depth > MAX_BODY_DEPTH) throw new TooDeep(depth);
  }
  stateOf(req).rawBody = buffer;
}

/** As body-parser (type-is's hasBody): a request has a body when it says how long it is or that it is chunked. */
export const hasBody = (req: { headers: IncomingHttpHeaders }): boolean =>
  req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));

/**
 * JSON (any value, as the validator reports wrong types better than the parser) and form bodies, up to 1 MiB. A
 * request without a body skips both, as they would skip it themselves after their own checks.
 */
export const bodyParsers = (): RequestHandler[] => {
  const json = express.json({
    limit: BODY_LIMIT_BYTES,
    strict: false,
    verify: (req, _res, buffer) => keepRawBody(req as never, buffer, true),
  });
  const form = express.urlencoded({
    limit: BODY_LIMIT_BYTES,
    extended: false,
    verify: (req, _res, buffer) => keepRawBody(req as never, buffer, false),
  });
  return [
    (req, res, next) => {
      if (hasBody(req)) return json(req, res, next);
      if (!('body' in req)) (req as { body?: unknown }).body = undefined;
      next();
    },
    (req, res, next) => (hasBody(req) ? form(req, res, next) : next()),
  ];
};

/** Reads the request's body at once (the parsers then skip it), resolving to what went wrong, if anything. */
export type ReceiveBody = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => Promise<unknown>;

export function receiveBody(parsers: readonly RequestHandler[]): ReceiveBody {
  const read = chain(parsers);
  return (req, res) => new Promise((resolve) => read(req, res, resolve));
}
