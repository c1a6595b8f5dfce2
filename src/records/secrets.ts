/**
 * What a secret is, written once for everything the fake keeps or shows (the journal, its exports, a request read by
 * id, shadow mode's report and its JUnit): a value held by a secret-named member, parameter or header (at any depth,
 * of any type), and the values of a client's own credentials (its secret, the tokens it was issued or presented)
 * wherever they stand, inside a longer string too, upstream answers included; and any token by its shape (a JWT).
 * Each reader replaces them by `[redacted]`; none keeps a list of its own.
 */

export const REDACTED = '[redacted]';

/**
 * Names of fields, parameters and headers whose values are never shown, whatever their type: `access_token`,
 * `client_secret`, `password`, `api_key`, `jwt`, `authorization`… (names only: not `token_type`, nor a status).
 */
const SECRET_NAME =
  /secret|passw(?:or)?d|passphrase|authorization|credential|jwt|api[-_]?key|apikey|private[-_]?key|access[-_]?key|(?:token|signature)$/i;

export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** Shorter credentials are not searched for: a value of a few characters would hide ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * A credential as a text may carry it: as it is, escaped in a JSON string, percent-encoded in a form or a query, its
 * spaces as a form's `+`. Any other percent-encoding of it is found by decoding the text (`withoutSecretValues`).
 */
function writtenForms(value: string): string[] {
  const forms = new Set([value, JSON.stringify(value).slice(1, -1), percentEncoded(value), value.replace(/ /g, '+')]);
  return [...forms];
}

/** A value percent-encoded as a URL carries it; one with a lone surrogate has no UTF-8, so none (never a throw). */
const percentEncoded = (value: string): string => {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
};

/** The credentials worth searching for, each in every form a text may carry it, longest first. */
export function secretForms(values: readonly string[] | undefined): string[] {
  if (!values || values.length === 0) return [];
  const forms = new Set<string>();
  for (const value of values)
    if (value.length >= MIN_SECRET_LENGTH) for (const form of writtenForms(value)) forms.add(form);
  // a longer form first, so a credential inside another is not left half shown
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * A token by its shape, whoever issued it and whenever (a JWT: two base64url JSON segments, then its signature): an
 * older token of the client pasted into a field or a query is no credential of the request that shows it.
 */
const TOKEN_SHAPE = /eyJ[\w-]{6,}\.eyJ[\w-]{6,}\.[\w-]*/g;

/**
 * A text with every credential in it (`secretForms`) and every token-shaped value replaced, in any spelling: as it is,
 * and percent-encoded in any way (`%61cme` for `acme`, `%2E` or `%2e` for `.`, encoded again as `%252E`), as a path or
 * a query may carry it (`decodedView`).
 */
export function withoutSecretValues(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  if (out.includes('eyJ')) out = out.replace(TOKEN_SHAPE, REDACTED);
  return out.includes('%') ? withoutEncodedSecrets(out, forms) : out;
}

/** Whether a text (a path, a query) carries a credential, in any spelling. */
export function carriesSecret(text: string, value: string): boolean {
  if (text.includes(value)) return true;
  return text.includes('%') && decodedView(text).text.includes(value);
}

/** Times a text is decoded at most: a credential encoded more often than that is not a spelling a client makes. */
const DECODINGS = 4;

/** A text decoded, and for each of its UTF-16 units the span of the original text it came from. */
interface DecodedView {
  text: string;
  from: number[];
  to: number[];
}

/**
 * A text with its percent escapes decoded, again and again (`%2561` is `%61` is `a`), and where in the text each
 * decoded unit came from. Escapes that are no UTF-8 stay as they are.
 */
function decodedView(text: string): DecodedView {
  let view: DecodedView = {
    text,
    from: Array.from({ length: text.length }, (_, i) => i),
    to: Array.from({ length: text.length }, (_, i) => i + 1),
  };
  for (let round = 0; round < DECODINGS && view.text.includes('%'); round++) {
    const next = decodedOnce(view);
    if (next.text.length === view.text.length) break;
    view = next;
  }
  return view;
}

const hexAt = (text: string, i: number): number =>
  /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3)) && text[i] === '%' ? parseInt(text.slice(i + 1, i + 3), 16) : -1;

/** UTF-8's length of a sequence by its first byte (0: no first byte). */
const sequenceLength = (byte: number): number =>
  byte < 0x80
    ? 1
    : byte >= 0xc2 && byte < 0xe0
      ? 2
      : byte >= 0xe0 && byte < 0xf0
        ? 3
        : byte >= 0xf0 && byte < 0xf5
          ? 4
          : 0;

/** One round of decoding: each `%XX` run read as UTF-8, a character of it spanning its escapes' spans. */
function decodedOnce(view: DecodedView): DecodedView {
  const { text } = view;
  const out: DecodedView = { text: '', from: [], to: [] };
  const push = (units: string, first: number, last: number): void => {
    out.text += units;
    for (let k = 0; k < units.length; k++) {
      out.from.push(view.from[first]!);
      out.to.push(view.to[last]!);
    }
  };
  let i = 0;
  while (i < text.length) {
    const byte = hexAt(text, i);
    const length = byte < 0 ? 0 : sequenceLength(byte);
    const bytes = [byte];
    for (let k = 1; k < length; k++) bytes.push(hexAt(text, i + 3 * k));
    const decoded =
      length === 0 || bytes.some((b, k) => b < 0 || (k > 0 && (b & 0xc0) !== 0x80))
        ? undefined
        : Buffer.from(bytes).toString('utf8');
    if (decoded === undefined || decoded.includes('\ufffd')) {
      push(text[i]!, i, i);
      i++;
    } else {
      push(decoded, i, i + 3 * length - 1);
      i += 3 * length;
    }
  }
  return out;
}

/** The text with each credential (`forms`) and token shape found in its decoded view replaced where it stands. */
function withoutEncodedSecrets(text: string, forms: readonly string[]): string {
  const view = decodedView(text);
  if (view.text === text) return text;
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = view.text.indexOf(form); at >= 0 && form !== ''; at = view.text.indexOf(form, at + form.length))
      spans.push([at, at + form.length]);
  }
  for (const match of view.text.includes('eyJ') ? view.text.matchAll(TOKEN_SHAPE) : [])
    spans.push([match.index, match.index + match[0].length]);
  if (spans.length === 0) return text;
  // the spans in the text, merged where they overlap, replaced from the first
  const raw = spans
    .map(([start, end]): [number, number] => [view.from[start]!, view.to[end - 1]!])
    .sort((a, b) => a[0] - b[0]);
  let out = '';
  let copied = 0;
  for (const [start, end] of raw) {
    if (end <= copied) continue;
    out += `${text.slice(copied, Math.max(start, copied))}${start >= copied ? REDACTED : ''}`;
    copied = end;
  }
  return out + text.slice(copied);
}

/**
 * What a cut text must keep beyond its cut for a credential across it to be found: its longest form in its longest
 * spelling (each character an escape encoded `DECODINGS` times, `%25252561`).
 */
export const longestForm = (forms: readonly string[]): number => (forms[0]?.length ?? 0) * (2 * DECODINGS + 1);

/**
 * A JSON value as it may be shown: every secret-named member replaced whatever its value's type, every string with
 * a credential in it redacted there. A copy; the value is left as it was. `{ names: false }` leaves member names and
 * secret-named members as they are, redacting string values only: the last guard of a file whose own structure must
 * hold whatever a client's secret reads as (`interactions`).
 */
export function redactedValue(
  value: unknown,
  forms: readonly string[] = [],
  { names = true }: { names?: boolean } = {},
): unknown {
  if (typeof value === 'string') return withoutSecretValues(value, forms);
  if (Array.isArray(value)) return value.map((item) => redactedValue(item, forms, { names }));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) =>
      names
        ? [withoutSecretValues(k, forms), isSecretName(k) && v !== null ? REDACTED : redactedValue(v, forms)]
        : [k, redactedValue(v, forms, { names })],
    ),
  );
}

/** A request's path as every reader shows it (journal, log): its credentials and tokens replaced, in any spelling. */
export const shownPath = (path: string, credentials: readonly string[] | undefined): string =>
  withoutSecretValues(path, secretForms(credentials));

/** What a reader of a kept body replaces: secret-named members, link signatures, credential values. */
export interface Redaction {
  /** Secret-named members and parameters. */
  names: boolean;
  /** `signature=` of the document links this fake signed. */
  links: boolean;
  /** The credentials of the request's client (bearer token, secret, a token it was issued), wherever they appear. */
  credentials?: readonly string[];
}

export const REDACT_ALL: Redaction = { names: true, links: true };

export const isForm = (contentType: string | null): boolean =>
  contentType !== null && /x-www-form-urlencoded/i.test(contentType);

const LINK_SIGNATURE = /([?&]signature=)[^&"\s\\]+/g;

/** Text as a reader sees it: form fields, JSON members (also of a cut or broken JSON text) and `name=value` pairs. */
export function redactedText(text: string, contentType: string | null, redaction: Redaction): string {
  let out = withoutSecretValues(text, secretForms(redaction.credentials));
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
  const cleared = withoutSecretValues(text, secretForms(credentials));
  const form = new URLSearchParams(cleared);
  let changed = false;
  const out = new URLSearchParams();
  for (const [name, value] of form) {
    const secret = isSecretName(name);
    changed ||= secret;
    out.append(name, secret ? REDACTED : value);
  }
  return changed ? out.toString() : cleared;
}

// `password=…` in a text that is neither JSON nor a form (text/plain, XML, a body that lies about its type)
// (a name is tried from its first character only, at most 64 long: linear in the text, however long a word is)
const SECRET_PAIR = /(?<![\w.-])([\w.-]{1,64})(\s*[=:]\s*)([^\s&;,<]+)/g;
const redactedPairs = (text: string): string =>
  text.replace(SECRET_PAIR, (pair, name: string, sep: string, value: string) =>
    isSecretName(name) && value !== `"${REDACTED}"` ? `${name}${sep}${REDACTED}` : pair,
  );

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
    if (!isSecretName(memberName(text.slice(i + 1, end - 1)))) {
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
 * The credentials each client was seen with (its secrets, the tokens it was issued or presented), so that an answer
 * carrying one later is redacted too: shadow mode's upstream may echo them anywhere. Held in memory only, never
 * shown or written; per client its last few secrets and its newest tokens, for the clients seen most recently.
 */
export class CredentialBook {
  private readonly byClient = new Map<string, { secrets: string[]; tokens: string[] }>();

  constructor(private readonly clients = 10_000) {}

  remember(
    clientId: string,
    { secret, tokens = [] }: { secret?: string | undefined; tokens?: readonly (string | undefined)[] },
  ): void {
    const known = this.byClient.get(clientId) ?? { secrets: [], tokens: [] };
    this.byClient.delete(clientId);
    this.byClient.set(clientId, {
      secrets: newest(known.secrets, [secret], 4),
      tokens: newest(known.tokens, tokens, 16),
    });
    if (this.byClient.size > this.clients) this.byClient.delete(this.byClient.keys().next().value!);
  }

  of(clientId: string | undefined): readonly string[] {
    const known = clientId === undefined ? undefined : this.byClient.get(clientId);
    return known ? [...known.secrets, ...known.tokens] : [];
  }
}

const newest = (known: readonly string[], added: readonly (string | undefined)[], keep: number): string[] => {
  const fresh = added.filter(
    (value): value is string => value !== undefined && value.length >= MIN_SECRET_LENGTH && !known.includes(value),
  );
  return [...known, ...fresh].slice(-keep);
};

/** The token an OAuth token answer grants (RFC 6749 §5.1 `access_token`), or undefined: shadow mode learns it here. */
export const grantedToken = (answer: unknown): string | undefined => {
  const token =
    answer !== null && typeof answer === 'object' ? (answer as { access_token?: unknown }).access_token : undefined;
  return typeof token === 'string' ? token : undefined;
};

/** A token answer with the token it grants redacted (its type and scope kept): what a comparison may see of it. */
export const withoutGrantedToken = (answer: unknown): unknown =>
  answer !== null && typeof answer === 'object' && 'access_token' in answer
    ? { ...answer, access_token: REDACTED }
    : answer;

/** A token request's form split into the client's secret (`client_secret`, if it holds one) and the rest. */
export function clientSecretOfForm(form: readonly [string, string][]): {
  secret: string | undefined;
  inForm: boolean;
  rest: [string, string][];
} {
  const isSecret = ([name]: readonly [string, string]) => name === 'client_secret';
  return {
    secret: form.find(isSecret)?.[1],
    inForm: form.some(isSecret),
    rest: form.filter((pair) => !isSecret(pair)),
  };
}
