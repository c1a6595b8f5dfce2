// The one wording of a difference (`shadow/headings.ts`): a sentence for every kind, as the report, its
// JUnit form and the console head it.
import { describe, expect, it } from 'vitest';
import { compareAnswers, type Answer } from '../../src/shadow/compare.js';
import { headingOf } from '../../src/shadow/headings.js';

const headings = (
  upstream: Answer,
  fake: Answer,
  enums?: { upstream: string[]; fake: string[] },
  secrets: string[] = [],
) =>
  compareAnswers({
    upstream,
    fake,
    compareValues: true,
    translate: () => undefined,
    ...(enums && { enumViolations: enums }),
    secrets,
  }).map(headingOf);

const problem = (status: number, code: string, detail: string) => ({
  status,
  body: { type: 'about:blank', title: 'x', status, code, detail },
});

describe('a difference as a sentence', () => {
  it('status: both statuses, with each side’s problem code where it has one', () => {
    expect(
      headings(problem(422, 'invalid_request', 'amount is too small'), { status: 201, body: { id: 'x' } }),
    ).toEqual(['The upstream answered 422 (invalid_request) where the fake answered 201']);
    expect(headings(problem(404, 'not_found', 'no'), problem(409, 'order_not_cancellable', 'filled'))).toEqual([
      'The upstream answered 404 (not_found) where the fake answered 409 (order_not_cancellable)',
    ]);
  });

  it('error_code: the shared status and both codes', () => {
    expect(headings(problem(422, 'validation_error', 'a'), problem(422, 'invalid_wallet_address', 'b'))).toEqual([
      "Both answered 422, but the upstream's problem code is `validation_error` where the fake's is `invalid_wallet_address`",
    ]);
    expect(
      headings({ status: 400, body: { error: 'invalid_scope' } }, { status: 400, body: { error: 'invalid_request' } }),
    ).toEqual([
      "Both answered 400, but the upstream's OAuth error is `invalid_scope` where the fake's is `invalid_request`",
    ]);
  });

  it('fields: missing, extra, another type, another value, outside the enum', () => {
    expect(headings({ status: 200, body: { a: 1, nickname: 'ada' } }, { status: 200, body: { a: 1 } })).toEqual([
      'Field `/nickname` is in the upstream\'s answer (`"ada"`) but not in the fake\'s',
    ]);
    expect(headings({ status: 200, body: { a: 1 } }, { status: 200, body: { a: 1, b: true } })).toEqual([
      "Field `/b` is in the fake's answer (`true`) but not in the upstream's",
    ]);
    expect(headings({ status: 200, body: { x: '1985' } }, { status: 200, body: { x: 1985 } })).toEqual([
      'Field `/x` is a string upstream, a number in the fake',
    ]);
    expect(
      headings(
        { status: 200, body: { data: [{ x: null }, { x: {} }] } },
        { status: 200, body: { data: [{ x: [1] }] } },
      ),
    ).toEqual(['Field `/data/*/x` is an object upstream, an array in the fake']);
    expect(headings({ status: 200, body: { city: 'London' } }, { status: 200, body: { city: 'Paris' } })).toEqual([
      'Field `/city` is `"London"` upstream, `"Paris"` in the fake',
    ]);
    expect(
      headings(
        { status: 200, body: { status: 'SETTLED' } },
        { status: 200, body: { status: 'COMPLETED' } },
        { upstream: ['/status'], fake: [] },
      ),
    ).toEqual(['Field `/status` is `"SETTLED"` upstream, outside the document\'s enum, `"COMPLETED"` in the fake']);
  });

  it('never reads "another status at (the status)", and shows no secret', () => {
    const all = headings(
      problem(401, 'invalid_token', 'tok-0123456789 is not valid'),
      { status: 200, body: { token: 'tok-0123456789' } },
      undefined,
      ['tok-0123456789'],
    );
    expect(all.join()).not.toMatch(/another status|\(the status\)/);
    const [finding] = compareAnswers({
      upstream: problem(401, 'invalid_token', 'tok-0123456789 is not valid'),
      fake: { status: 200, body: {} },
      compareValues: false,
      translate: () => undefined,
      secrets: ['tok-0123456789'],
    });
    expect(finding!.problems!.upstream!.detail).toBe('[redacted] is not valid');
  });
});
