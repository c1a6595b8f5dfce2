import type { RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';
import { clip } from './problem.js';

const CHUNKED_ALONE = /^[ \t]*chunked[ \t]*$/i;

/** Marks a connection whose framing was refused: nothing more read from it is a request. */
const FRAMING_REFUSED = Symbol('transfer coding refused');
type MarkedSocket = { [FRAMING_REFUSED]?: true };

/** Whether a connection's framing was refused: what still arrives on it is not a request. */
export const framingRefused = (socket: object): boolean => (socket as MarkedSocket)[FRAMING_REFUSED] === true;

/**
 * RFC 9112 §6.1: a server that receives a transfer coding it does not understand answers 501 and closes the
 * connection. Only `chunked` alone is understood here. Node's parser would take the last coding of
 * `identity, chunked` (reading what follows a `0` chunk as another request) or refuse `gzip` only once the request
 * was answered: the framing is unknown, so the request is refused before anything else reads it, and the connection
 * is closed after the answer (what the client sent after the headers is never read as a request).
 */
export const transferEncodingGuard: RequestHandler = (req, _res, next) => {
  // Node 24 parses what followed the refused request as a pipelined one and hands it over too (its answer would never
  // be sent: the connection closes after the 501), so it is dropped here, before anything acts on it or journals it.
  if (framingRefused(req.socket)) return;
  const header = req.headers['transfer-encoding'];
  if (header === undefined || CHUNKED_ALONE.test(header)) return next();
  (req.socket as MarkedSocket)[FRAMING_REFUSED] = true;
  const codings = header
    .split(',')
    .map((coding) => coding.trim())
    .filter(Boolean);
  const unknown = codings.filter((coding) => coding.toLowerCase() !== 'chunked');
  const named = unknown.length > 0 ? unknown : codings;
  throw new DomainError(
    501,
    'transfer_encoding_not_implemented',
    `The transfer coding${named.length > 1 ? 's' : ''} ${clip(named.map((c) => `"${c}"`).join(', '), 200)} of "Transfer-Encoding: ${clip(header, 200)}" ${named.length > 1 ? 'are' : 'is'} not implemented: send the body with Content-Length, or with "Transfer-Encoding: chunked" alone.`,
    undefined,
    { Connection: 'close' },
  );
};
