/**
 * The bodies the journal keeps: text, cut at JOURNAL_BODY_LIMIT_BYTES, with secrets and tokens replaced before they
 * are stored (a heap dump or an export never holds one). Binary bodies (the PDF documents) keep their size only.
 */

/** Bytes of a request or response body the journal keeps; the rest is cut (and the body marked `truncated`). */
export const JOURNAL_BODY_LIMIT_BYTES = 8 * 1024;
export const REDACTED = '[redacted]';

/** Names of fields and parameters whose values are never stored: `access_token`, `client_secret`… (not `token_type`). */
export const SECRET_NAME = /(?:token|secret|signature|password|authorization)$/i;
const MAY_HOLD_SECRET = /token|secret|signature|password|authorization/i;

/** A query string as the journal stores it: the values of secret-named parameters replaced (a link's signature). */
export function storedQuery(rawQuery: string): string {
  if (!MAY_HOLD_SECRET.test(rawQuery)) return rawQuery;
  const query = new URLSearchParams(rawQuery);
  for (const key of new Set(query.keys())) if (SECRET_NAME.test(key)) query.set(key, REDACTED);
  return query.toString();
}

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
const isForm = (contentType: string | null): boolean => contentType !== null && /x-www-form-urlencoded/i.test(contentType);

// `"access_token": "…"` and the like, also in a body cut in the middle of the value.
const SECRET_JSON_MEMBER = /("[^"]*(?:token|secret|signature|password|authorization)"\s*:\s*)"(?:[^"\\]|\\.)*"?/gi;
// The signature of a document link is its credential for 15 minutes.
const LINK_SIGNATURE = /([?&]signature=)[^&"\s]+/g;

function redactedText(text: string, contentType: string | null): string {
  if (isForm(contentType)) return storedQuery(text);
  let out = MAY_HOLD_SECRET.test(text) ? text.replace(SECRET_JSON_MEMBER, `$1"${REDACTED}"`) : text;
  if (out.includes('signature=')) out = out.replace(LINK_SIGNATURE, `$1${REDACTED}`);
  return out;
}

/** A body as the journal keeps it; `undefined` or empty is no body. */
export function journalBody(body: Buffer | string | undefined, contentType: string | null): JournalBody | null {
  if (body === undefined || body.length === 0) return null;
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (!isText(contentType)) return { contentType, text: null, size, truncated: false };
  const truncated = size > JOURNAL_BODY_LIMIT_BYTES;
  // A copy, never a slice: a slice would keep the whole (up to 1 MiB) body alive for as long as the entry lives.
  let text: string;
  if (typeof body !== 'string') text = body.toString('utf8', 0, JOURNAL_BODY_LIMIT_BYTES);
  else text = truncated ? Buffer.from(body.slice(0, JOURNAL_BODY_LIMIT_BYTES)).toString('utf8', 0, JOURNAL_BODY_LIMIT_BYTES) : body;
  return { contentType, text: redactedText(text, contentType), size, truncated };
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
