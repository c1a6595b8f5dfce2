import { describe, expect, it } from 'vitest';
import { bodyValue, journalBody, JOURNAL_BODY_LIMIT_BYTES } from '../../src/records/journal-body.js';
import { redactedForm } from '../../src/records/secrets.js';

describe('what the journal stores of a body', () => {
  it('replaces tokens and secrets in JSON, forms and query strings, and keeps the rest as sent', () => {
    const token = journalBody(
      JSON.stringify({ access_token: 'eyJ.a.b', token_type: 'Bearer', expires_in: 3600, scope: 'openid' }),
      'application/json',
    );
    expect(bodyValue(token)).toEqual({
      access_token: '[redacted]',
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid',
    });
    const form = journalBody(
      Buffer.from('grant_type=client_credentials&client_id=a&client_secret=s3cret&scope=openid'),
      'application/x-www-form-urlencoded',
    );
    expect(bodyValue(form)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'a',
      client_secret: '[redacted]',
      scope: 'openid',
    });
    expect(form!.text).not.toContain('s3cret');
    const links = journalBody(
      '{"data":[{"url":"http://x/files/a/b.pdf?expires=1&signature=abcdef"}]}',
      'application/json; charset=utf-8',
    );
    expect(links!.text).toBe('{"data":[{"url":"http://x/files/a/b.pdf?expires=1&signature=[redacted]"}]}');
    expect(redactedForm('expires=1&signature=abc')).toBe('expires=1&signature=%5Bredacted%5D');
    expect(redactedForm('order_status=AWAITING_TOKEN_DELIVERY&limit=5')).toBe(
      'order_status=AWAITING_TOKEN_DELIVERY&limit=5',
    );
  });

  it('cuts a body at the limit, marks it, and reads a cut body as no value', () => {
    const long = JSON.stringify({ refresh_token: 'r'.repeat(JOURNAL_BODY_LIMIT_BYTES) });
    const body = journalBody(long, 'application/json')!;
    expect(body).toMatchObject({ size: long.length, truncated: true });
    expect(body.text).toBe('{"refresh_token":"[redacted]"');
    expect(bodyValue(body)).toBeUndefined();
  });

  it('keeps only the size of a binary body, and nothing of an empty one', () => {
    expect(journalBody(Buffer.from('%PDF-1.4'), 'application/pdf')).toEqual({
      contentType: 'application/pdf',
      text: null,
      size: 8,
      truncated: false,
    });
    expect(journalBody(undefined, null)).toBeNull();
    expect(journalBody('', 'application/json')).toBeNull();
  });
});
