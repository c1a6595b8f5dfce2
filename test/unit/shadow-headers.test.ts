import { describe, expect, it } from 'vitest';
import { answerHeaders, forwardedRequestHeaders, rewriteAudience } from '../../src/shadow/headers.js';

describe('what shadow mode forwards', () => {
  it('rewrites Host, drops hop-by-hop headers (and those Connection names) and Expect, keeps the rest as the client wrote them', () => {
    const raw = [
      'Host',
      'localhost:8080',
      'Connection',
      'keep-alive, X-Hop',
      'X-Hop',
      '1',
      'Keep-Alive',
      'timeout=5',
      'Authorization',
      'Bearer abc',
      'X-Trace',
      'a',
      'Content-Length',
      '12',
      'Expect',
      '100-continue',
      'TE',
      'trailers',
    ];
    expect(forwardedRequestHeaders(raw, 'sandbox.example.com', 7, true)).toEqual([
      ['Host', 'sandbox.example.com'],
      ['Authorization', 'Bearer abc'],
      ['X-Trace', 'a'],
      ['Content-Length', '7'],
    ]);
  });

  it("hands the client the upstream's end-to-end headers, the length of what it sends, and a HEAD answer's own length", () => {
    const raw = [
      'Content-Type',
      'application/json',
      'Transfer-Encoding',
      'chunked',
      'X-Request-Id',
      'up-7',
      'Content-Length',
      '99',
    ];
    expect(answerHeaders(raw, 12)).toEqual([
      'Content-Type',
      'application/json',
      'X-Request-Id',
      'up-7',
      'Content-Length',
      '12',
    ]);
    expect(answerHeaders(raw, 0, true)).toEqual([
      'Content-Type',
      'application/json',
      'X-Request-Id',
      'up-7',
      'Content-Length',
      '99',
    ]);
  });

  it("rewrites a token request's audience naming the fake's host, and not one byte more", () => {
    const upstream = new URL('https://sandbox.example.com');
    const own = { host: 'localhost:8080', hostname: 'localhost' };
    const body =
      'grant_type=client_credentials&scope=openid+offline&client_id=a%2Bb&client_secret=s&audience=localhost%3A8080';
    expect(rewriteAudience(Buffer.from(body), own, upstream).toString()).toBe(
      body.replace('audience=localhost%3A8080', 'audience=sandbox.example.com'),
    );
    expect(
      rewriteAudience(
        Buffer.from('audience=localhost&scope=x'),
        own,
        new URL('https://sandbox.example.com:8443'),
      ).toString(),
    ).toBe('audience=sandbox.example.com&scope=x');
    // an audience that already names another host is the client's business
    const other = Buffer.from('audience=sandbox.example.com&scope=x');
    expect(rewriteAudience(other, own, upstream)).toBe(other);
  });
});
