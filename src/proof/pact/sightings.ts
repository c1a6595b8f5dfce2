/**
 * What the span's answers showed of the world's records, in order: the fields each record had when an answer last
 * showed it. A provider state names a record as the request found it, so it is read as of the request (`before`).
 */
export type RecordKind = 'account' | 'wallet' | 'paymentMethod' | 'order';

export type RecordFields = Record<string, unknown>;

const isObject = (value: unknown): value is RecordFields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A record's kind by the fields the document gives it (an account has a type and no account_id…). */
function kindOf(value: RecordFields): RecordKind | undefined {
  if (typeof value.id !== 'string') return undefined;
  if (typeof value.wallet_address === 'string' && typeof value.account_id === 'string') return 'wallet';
  if (typeof value.iban === 'string' && typeof value.account_id === 'string' && 'account_holder_name' in value)
    return 'paymentMethod';
  if (typeof value.side === 'string' && typeof value.isin === 'string' && typeof value.status === 'string')
    return 'order';
  if (
    (value.type === 'individual' || value.type === 'business') &&
    typeof value.created === 'string' &&
    !('account_id' in value)
  )
    return 'account';
  return undefined;
}

/** The records of one answer: itself, or the items of its `data`. */
function recordsIn(body: unknown): RecordFields[] {
  if (!isObject(body)) return [];
  if (Array.isArray(body.data)) return body.data.filter(isObject);
  return [body];
}

export class Sightings {
  /** By id: each time an answer showed the record, at which exchange, with which fields. */
  private readonly seen = new Map<string, { at: number; kind: RecordKind; fields: RecordFields }[]>();

  /** The answer of exchange `at` (in span order). */
  add(at: number, body: unknown): void {
    for (const record of recordsIn(body)) {
      const kind = kindOf(record);
      if (!kind) continue;
      const list = this.seen.get(record.id as string) ?? [];
      list.push({ at, kind, fields: record });
      this.seen.set(record.id as string, list);
    }
  }

  /** The record as the last answer before exchange `at` showed it, else as the first one after (it existed then). */
  before(id: string, at: number): { kind: RecordKind; fields: RecordFields } | undefined {
    const list = this.seen.get(id);
    if (!list) return undefined;
    return [...list].reverse().find((s) => s.at < at) ?? list[0];
  }

  /** Whether an answer before exchange `at` showed it. */
  seenBefore(id: string, at: number): boolean {
    return this.seen.get(id)?.some((s) => s.at < at) ?? false;
  }
}
