import { isForm, REDACT_ALL, redactedText, type Redaction } from './secrets.js';

/**
 * The bodies the journal keeps, in two steps. On the request path, `keptBody` keeps what the pipeline was handed (a
 * Buffer or a string), cut to JOURNAL_BODY_LIMIT_BYTES without decoding it: that is all a request pays. When someone
 * reads the journal (verify, the report, an export, the list, the console), `readBody` decodes the kept part and
 * replaces every secret as `secrets.ts` defines them. Binary bodies (the PDF documents) keep their size only.
 */

/** Bytes of a request or response body the journal keeps; the rest is cut (and the body marked `truncated`). */
export const JOURNAL_BODY_LIMIT_BYTES = 8 * 1024;

/** What a request's body or answer kept on the request path: at most the cut, as it was handed over. */
export interface KeptBody {
  readonly raw: Buffer | string;
  readonly contentType: string | null;
  /** Bytes the whole body had. */
  readonly size: number;
  /**
   * Bytes of memory this keeps alive, for the journal's byte budgets: the body as handed when it is kept so (a cut
   * by `subarray`/`slice` holds the whole), else the copied part; a character of a kept text counted as one byte.
   */
  readonly held: number;
}

/** The body as the journal shows it: decoded, cut and with its secrets replaced. */
export interface JournalBody {
  contentType: string | null;
  /** The body as text, at most JOURNAL_BODY_LIMIT_BYTES of it; null for a binary body. */
  text: string | null;
  /** Bytes the body had. */
  size: number;
  /** True when `text` holds only the first JOURNAL_BODY_LIMIT_BYTES bytes. */
  truncated: boolean;
}

const isText = (contentType: string | null): boolean =>
  contentType === null || /json|text|x-www-form-urlencoded|xml/i.test(contentType);

/**
 * A body as the request path keeps it: nothing is decoded or searched. What the journal keeps (the body, or its
 * first `limit` bytes) stays where it is when that memory is at most twice the cut: a body within the cut as it was
 * handed (the pipeline made it anyway), a longer one cut by `subarray`/`slice`. Otherwise the kept part is copied to
 * a block of its own (a memcpy of at most the cut, never decoded), so an entry never pins a 1 MiB body, a 100 KB
 * answer, or a block of Node's shared Buffer pool (64 KiB on Node 24) for as long as it lives. `size`: the body's
 * bytes when the caller knows them (a Content-Length).
 */
export function keptBody(
  body: Buffer | string | undefined,
  contentType: string | null,
  size?: number,
): KeptBody | null {
  if (body === undefined || body.length === 0) return null;
  const limit = JOURNAL_BODY_LIMIT_BYTES;
  if (typeof body !== 'string') {
    if (!isText(contentType)) return { raw: EMPTY, contentType, size: body.length, held: 0 };
    const kept = body.length <= limit ? body : body.subarray(0, limit);
    if (body.buffer.byteLength <= 2 * limit) return { raw: kept, contentType, size: body.length, held: body.length };
    return { raw: ownCopy(kept), contentType, size: body.length, held: kept.length };
  }
  // a string's UTF-8 bytes are at least its UTF-16 units: its first `limit` units hold its first `limit` bytes
  const bytes = size ?? (body.length <= limit ? undefined : Buffer.byteLength(body));
  if (!isText(contentType)) return { raw: EMPTY, contentType, size: bytes ?? Buffer.byteLength(body), held: 0 };
  if (body.length <= limit) return { raw: body, contentType, size: bytes ?? -1, held: body.length };
  const cut = body.slice(0, limit);
  if (body.length <= 2 * limit) return { raw: cut, contentType, size: bytes!, held: body.length };
  const own = ownCopy(cut);
  return { raw: own, contentType, size: bytes!, held: own.length };
}

/** Bytes in a block of their own (`Buffer.from` would take them from the shared pool). */
function ownCopy(kept: Buffer | string): Buffer {
  if (typeof kept === 'string') {
    const own = Buffer.allocUnsafeSlow(Buffer.byteLength(kept));
    own.write(kept);
    return own;
  }
  const own = Buffer.allocUnsafeSlow(kept.length);
  kept.copy(own);
  return own;
}

const EMPTY = Buffer.alloc(0);

/** The body as a reader sees it (see the module's comment). */
export function readBody(kept: KeptBody | null, redaction: Redaction): JournalBody | null {
  if (kept === null) return null;
  const { contentType } = kept;
  const size = kept.size >= 0 ? kept.size : Buffer.byteLength(kept.raw as string);
  if (!isText(contentType)) return { contentType, text: null, size, truncated: false };
  const truncated = size > JOURNAL_BODY_LIMIT_BYTES;
  const bytes = typeof kept.raw === 'string' ? (truncated ? Buffer.from(kept.raw) : undefined) : kept.raw;
  // cut at the limit in bytes; a character split there is dropped rather than shown as U+FFFD
  let text =
    bytes === undefined
      ? (kept.raw as string)
      : bytes.toString('utf8', 0, Math.min(bytes.length, JOURNAL_BODY_LIMIT_BYTES));
  if (truncated) text = text.replace(/\uFFFD$/, '');
  return { contentType, text: redactedText(text, contentType, redaction), size, truncated };
}

/** A body shown with every secret replaced: `keptBody` then `readBody` (for callers that hold an answer already). */
export function journalBody(body: Buffer | string | undefined, contentType: string | null): JournalBody | null {
  return readBody(keptBody(body, contentType), REDACT_ALL);
}

/**
 * The body as a value, for matching: JSON parsed, a form as an object of its fields; undefined when there is none
 * or when it was cut (a partial JSON text cannot be read).
 */
export function bodyValue(body: JournalBody | null): unknown {
  if (body === null || body.text === null || body.truncated) return undefined;
  if (isForm(body.contentType)) return Object.fromEntries(new URLSearchParams(body.text));
  try {
    return JSON.parse(body.text);
  } catch {
    return body.text;
  }
}
