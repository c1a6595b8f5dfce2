import type { Duplex } from 'node:stream';
import { problem } from './problem.js';

const ANSWERS: Record<string, { status: number; reason: string; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'headers_too_large',
    detail: 'The request headers are larger than this server accepts (16 KiB).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'request_timeout',
    detail: 'The request did not arrive in time.',
  },
};
const MALFORMED = {
  status: 400,
  reason: 'Bad Request',
  code: 'malformed_request',
  detail: 'The request is not valid HTTP/1.1.',
};

/** The response Node's server is writing on a socket, if any. */
const inFlight = (socket: Duplex): { headersSent: boolean } | undefined =>
  (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage ?? undefined;

/**
 * Node's own HTTP parser refuses some requests before Express sees them (oversized headers, broken syntax); by
 * default it answers them with an empty body. Here they get a problem, like every other refusal. A request the
 * parser refuses only after its headers (a body it cannot frame) may already be answered: a second answer on the
 * same connection would read as the answer to another request, so the connection is only closed once that one is out
 * (Node's own rule).
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (inFlight(socket)?.headersSent) {
    socket.end();
    return;
  }
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const answer = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify(problem(answer.status, answer.code, answer.detail));
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
