import { DomainError } from '../api/errors.js';
import type { Schemas } from '../api/types.js';
import type { FakeContext } from '../context.js';
import type { JournalBody } from '../records/journal-body.js';

/** A body as the journal keeps it (cut, redacted: `records/journal-body.ts`), as the control plane shows it. */
const exchangeBody = (body: JournalBody | null): Schemas['ExchangeBody'] =>
  body && { content_type: body.contentType, size: body.size, truncated: body.truncated, text: body.text };

/**
 * One journaled request with its bodies (`GET /__control/requests/{request_id}`): the console's Requests view opens
 * one at a time, so the list stays small. `clientId`: a partner's own client, whose requests alone it may see.
 */
export function requestExchange(
  ctx: Pick<FakeContext, 'journal'>,
  requestId: string,
  clientId: string | undefined,
): Schemas['RequestExchange'] {
  const record = ctx.journal.find(requestId, clientId);
  if (!record)
    throw new DomainError(
      404,
      'request_not_found',
      `The journal holds no request "${requestId}" (it keeps the last JOURNAL_SIZE requests).`,
    );
  return {
    entry: record.entry,
    request: exchangeBody(record.exchange.request),
    response: exchangeBody(record.exchange.response),
  };
}
