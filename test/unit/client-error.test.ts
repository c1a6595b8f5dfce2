import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { answerClientError } from '../../src/http/client-error.js';

const failure = (code: string) => Object.assign(new Error(code), { code });

/** What answerClientError wrote on a socket before ending it. */
async function answerTo(code: string): Promise<string> {
  const socket = new PassThrough();
  answerClientError(failure(code), socket);
  let written = '';
  for await (const chunk of socket) written += String(chunk);
  return written;
}

describe("answerClientError: Node's parser refusals", () => {
  it('answers oversized headers 431 with a problem whose Content-Length is its size, and closes', async () => {
    const answer = await answerTo('HPE_HEADER_OVERFLOW');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(head).toContain('Content-Type: application/problem+json\r\n');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body!)}\r\n`);
    expect(head).toContain('Connection: close');
    expect(JSON.parse(body!)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('answers a request that took too long 408 request_timeout, and anything else 400 malformed_request', async () => {
    expect(await answerTo('ERR_HTTP_REQUEST_TIMEOUT')).toMatch(
      /^HTTP\/1\.1 408 Request Timeout[\s\S]*"code":"request_timeout"/,
    );
    expect(await answerTo('HPE_INVALID_METHOD')).toMatch(
      /^HTTP\/1\.1 400 Bad Request[\s\S]*"code":"malformed_request"/,
    );
  });

  it('writes nothing to a connection the client reset or that can no longer be written, and destroys it', () => {
    const reset = new PassThrough();
    const write = vi.spyOn(reset, 'write');
    answerClientError(failure('ECONNRESET'), reset);
    expect(reset.destroyed).toBe(true);
    expect(write).not.toHaveBeenCalled();

    const ended = new PassThrough();
    ended.end();
    const destroy = vi.spyOn(ended, 'destroy');
    answerClientError(failure('HPE_HEADER_OVERFLOW'), ended);
    expect(destroy).toHaveBeenCalledOnce();
  });

  it('writes nothing on a connection whose answer has begun (a body the parser cannot frame, after its request was answered): it ends it', async () => {
    const answering = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } });
    answerClientError(failure('HPE_INVALID_TRANSFER_ENCODING'), answering);
    let written = '';
    for await (const chunk of answering) written += String(chunk);
    expect(written).toBe('');
    expect(answering.writableEnded).toBe(true);
  });
});
