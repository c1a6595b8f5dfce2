/**
 * The bodies the journal keeps, in two steps. On the request path, `keptBody` keeps what the pipeline was handed (a
 * Buffer or a string), cut to JOURNAL_BODY_LIMIT_BYTES without decoding it: that is all a request pays. When someone
 * reads the journal (verify, the report, an export, the list, the console), `readBody` decodes the kept part and
 * replaces every secret: by name at any depth and of any value type, and the request's own credentials wherever they
 * appear. Binary bodies (the PDF documents) keep their size only.
 */

/** Bytes of a request or response body the journal keeps; the rest is cut (and the body marked `truncated`). */
export const JOURNAL_BODY_LIMIT_BYTES = 8 * 1024;
export const REDACTED = '[redacted]';

/**
 * Names of fields, parameters and headers whose values are never shown, whatever their type: `access_token`,
 * `client_secret`, `password`, `api_key`, `jwt`, `authorization`… (not `token_type`, nor a value such as
 * `AWAITING_TOKEN_DELIVERY`: names only).
 */
export const SECRET_NAME = /secret|passw(?:or)?d|passphrase|authorization|credential|jwt|api[-_]?key|apikey|private[-_]?key|access[-_]?key|(?:token|signature)$/i;

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

/** What a reader replaces: secret-named members (always, in what a client sent), link signatures, credential values. */
export interface Redaction {
  /** Secret-named members and parameters. */
  names: boolean;
  /** `signature=` of the document links this fake signed. */
  links: boolean;
  /** The request's own credentials (its bearer token, its Basic secret), replaced wherever they appear. */
  credentials?: readonly string[];
}

export const REDACT_ALL: Redaction = { names: true, links: true };

const isText = (contentType: string | null): boolean =>
  contentType === null || /json|text|x-www-form-urlencoded|xml/i.test(contentType);
export const isForm = (contentType: string | null): boolean => contentType !== null && /x-www-form-urlencoded/i.test(contentType);

/**
 * A body as the request path keeps it: nothing is decoded or searched. What the journal keeps (the body, or its
 * first `limit` bytes) stays where it is when that memory is at most twice the cut: a body within the cut as it was
 * handed (the pipeline made it anyway), a longer one cut by `subarray`/`slice`. Otherwise the kept part is copied to
 * a block of its own (a memcpy of at most the cut, never decoded), so an entry never pins a 1 MiB body, a 100 KB
 * answer, or a block of Node's shared Buffer pool (64 KiB on Node 24) for as long as it lives. `size`: the body's
 * bytes when the caller knows them (a Content-Length).
 */
export function keptBody(body: Buffer | string | undefined, contentType: string | null, size?: number): KeptBody | null {
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
  let text = bytes === undefined ? (kept.raw as string) : bytes.toString('utf8', 0, Math.min(bytes.length, JOURNAL_BODY_LIMIT_BYTES));
  if (truncated) text = text.replace(/\uFFFD$/, '');
  return { contentType, text: redactedText(text, contentType, redaction), size, truncated };
}

/** A body shown with every secret replaced: `keptBody` then `readBody` (for callers that hold an answer already). */
export function journalBody(body: Buffer | string | undefined, contentType: string | null): JournalBody | null {
  return readBody(keptBody(body, contentType), REDACT_ALL);
}

const LINK_SIGNATURE = /([?&]signature=)[^&"\s\\]+/g;

function withoutCredentials(text: string, credentials: readonly string[] | undefined): string {
  let out = text;
  for (const credential of credentials ?? []) if (credential.length >= 8 && out.includes(credential)) out = out.split(credential).join(REDACTED);
  return out;
}

/** Text as a reader sees it: form fields, JSON members (also of a cut or broken JSON text) and `name=value` pairs. */
export function redactedText(text: string, contentType: string | null, redaction: Redaction): string {
  let out = withoutCredentials(text, redaction.credentials);
  if (isForm(contentType)) return redaction.names ? redactedForm(out) : out;
  if (redaction.names) {
    out = redactedJsonMembers(out);
    // `name=value` pairs only where the text is not JSON (a JSON string may hold `token: …` as a value)
    if (!/json/i.test(contentType ?? '') || !/^\s*[[{"]/.test(out)) out = redactedPairs(out);
  }
  if (redaction.links && out.includes('signature=')) out = out.replace(LINK_SIGNATURE, `$1${REDACTED}`);
  return out;
}

/** A query string or form with its secret-named values replaced (order and other fields kept as sent). */
export function redactedForm(text: string, credentials?: readonly string[]): string {
  const form = new URLSearchParams(withoutCredentials(text, credentials));
  let changed = false;
  const out = new URLSearchParams();
  for (const [name, value] of form) {
    const secret = SECRET_NAME.test(name);
    changed ||= secret;
    out.append(name, secret ? REDACTED : value);
  }
  return changed ? out.toString() : withoutCredentials(text, credentials);
}

// `password=…` in a text that is neither JSON nor a form (text/plain, XML, a body that lies about its type)
// (a name is tried from its first character only, at most 64 long: linear in the text, however long a word is)
const SECRET_PAIR = /(?<![\w.-])([\w.-]{1,64})(\s*[=:]\s*)([^\s&;,<]+)/g;
const redactedPairs = (text: string): string =>
  text.replace(SECRET_PAIR, (pair, name: string, sep: string, value: string) => (SECRET_NAME.test(name) && value !== `"${REDACTED}"` ? `${name}${sep}${REDACTED}` : pair));

/**
 * A JSON text with the value of every secret-named member replaced by `"[redacted]"`, whatever its type (a string,
 * a number, an array, an object): one pass of a tokenizer over the text, so a cut or broken JSON text (a member cut
 * in its value) is redacted too and the rest of the text stays byte for byte as sent.
 */
export function redactedJsonMembers(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    i = text.indexOf('"', i);
    if (i < 0) break;
    const end = stringEnd(text, i);
    let j = end;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (j >= n || text.charCodeAt(j) !== 0x3a /* : */) {
      i = end;
      continue;
    }
    j++;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (!SECRET_NAME.test(memberName(text.slice(i + 1, end - 1)))) {
      // scanning goes on at the value: a string there is no name (no colon follows), an object's names come next
      i = j;
      continue;
    }
    const valueEnd = j < n ? jsonValueEnd(text, j) : n;
    if (text.slice(j, valueEnd) !== `"${REDACTED}"`) {
      out += `${text.slice(copied, j)}"${REDACTED}"`;
      copied = valueEnd;
    }
    i = valueEnd;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A member's name as JSON reads it (`"pass\u0077ord"` is `password`). */
function memberName(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index after a JSON string starting at `start` (its quote), or the text's end when it is cut. */
function stringEnd(text: string, start: number): number {
  let quote = start;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote < 0) return text.length;
    // escaped when an odd number of backslashes precede it
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
}

/** The index after the JSON value starting at `start`: a string, a balanced object or array, or a scalar. */
function jsonValueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 0x22) return stringEnd(text, start);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  let i = start;
  while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i++;
  return i;
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
