import { httpFile } from './code-writer.js';
import { JOURNAL_BODY_LIMIT_BYTES, type JournalBody } from '../records/journal-body.js';
import { isForm, REDACTED } from '../records/secrets.js';
import type { JournalRecord, ResetMark } from '../records/journal.js';
import { runNow, type Slices } from '../util/slices.js';

/** Where the exported requests went and who made them: absolute URLs need a base. */
export interface ExportContext {
  baseUrl: string;
  creator: { name: string; version: string };
  /** The resets the journal marks between the records: HAR pages, `.http` comment lines. */
  resets?: readonly ResetMark[];
}

/** The records in stretches between resets: each with the reset that began it (none for the first). */
function stretches(
  records: readonly JournalRecord[],
  resets: readonly ResetMark[] = [],
): { reset: ResetMark | undefined; records: JournalRecord[] }[] {
  const out: { reset: ResetMark | undefined; records: JournalRecord[] }[] = [];
  let mark = 0;
  let current: { reset: ResetMark | undefined; records: JournalRecord[] } | undefined;
  for (const record of records) {
    let reset: ResetMark | undefined;
    while (mark < resets.length && resets[mark]!.afterSeq < record.seq) reset = resets[mark++];
    if (!current || reset) out.push((current = { reset: reset ?? undefined, records: [] }));
    current.records.push(record);
  }
  return out;
}

const resetTitle = (reset: ResetMark | undefined): string =>
  reset ? `after the reset at ${new Date(reset.at).toISOString()}` : 'before any reset the journal marks';

const CUT_NOTE = `cut at ${JOURNAL_BODY_LIMIT_BYTES} bytes by the journal`;

const queryString = (r: JournalRecord): string => {
  const query = new URLSearchParams(Object.entries(r.entry.query)).toString();
  return query ? `?${query}` : '';
};

const authorizationHeader = (r: JournalRecord, bearer: string, basic: string): string | undefined =>
  r.kept.authorization === 'bearer'
    ? `Bearer ${bearer}`
    : r.kept.authorization === 'basic'
      ? `Basic ${basic}`
      : undefined;

const header = (name: string, value: string | null | undefined) => (value ? [{ name, value }] : []);

function harContent(body: JournalBody | null) {
  if (body === null) return { size: 0, mimeType: 'x-unknown' };
  return {
    size: body.size,
    mimeType: body.contentType ?? 'x-unknown',
    ...(body.text !== null && { text: body.text }),
    ...(body.text === null && { comment: 'binary body: not kept by the journal' }),
    ...(body.truncated && { comment: CUT_NOTE }),
  };
}

function harPostData(body: JournalBody | null) {
  if (body === null || body.text === null) return undefined;
  const form = /x-www-form-urlencoded/i.test(body.contentType ?? '');
  return {
    mimeType: body.contentType ?? 'x-unknown',
    text: body.text,
    ...(form &&
      !body.truncated && { params: [...new URLSearchParams(body.text)].map(([name, value]) => ({ name, value })) }),
    ...(body.truncated && { comment: CUT_NOTE }),
  };
}

/** An answer the client never got although the operation was applied (phase `after`, or a client that left). */
const lostAfterWrite = (r: JournalRecord): boolean =>
  r.entry.applied && (r.entry.status < 200 || r.entry.status >= 300);
const LOST_NOTE = 'applied: the operation was done, its answer lost';

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): what the journal holds, credentials redacted. */
export function* harSteps(records: readonly JournalRecord[], context: ExportContext): Slices<Buffer> {
  const { entries, ...log } = harOf([], context).log;
  const parts = stretches(records, context.resets);
  const pages = parts.map((part, i) => harPage(part, i));
  const pageOf = new Map<JournalRecord, string>();
  for (const [i, part] of parts.entries()) for (const r of part.records) pageOf.set(r, `stretch_${i + 1}`);
  // entries are written one by one (as JSON.stringify(har, null, 2) would write them), the event loop free between
  const head = JSON.stringify({ log: { ...log, pages, entries } }, null, 2);
  const at = head.lastIndexOf('"entries": []');
  if (records.length === 0) return Buffer.from(head);
  // each entry encoded in its slice: no one string (nor its encoding) of the whole export
  const written: Buffer[] = [Buffer.from(`${head.slice(0, at)}"entries": [\n`)];
  for (const [i, r] of records.entries()) {
    yield;
    const text = JSON.stringify(harEntry(r, context.baseUrl, pageOf.get(r)), null, 2).replace(/\n/g, '\n      ');
    written.push(Buffer.from(`${i > 0 ? ',\n' : ''}      ${text}`));
  }
  written.push(Buffer.from(`\n    ]${head.slice(at + '"entries": []'.length)}`));
  return Buffer.concat(written);
}

const harPage = (part: { reset: ResetMark | undefined; records: JournalRecord[] }, i: number) => ({
  startedDateTime: part.records[0]!.entry.time,
  id: `stretch_${i + 1}`,
  title: `Requests ${resetTitle(part.reset)}`,
  pageTimings: {},
  ...(part.reset && { _reset: new Date(part.reset.at).toISOString() }),
});

function harOf(records: readonly JournalRecord[], { baseUrl, creator, resets }: ExportContext) {
  const parts = stretches(records, resets);
  const pageOf = new Map<JournalRecord, string>();
  for (const [i, part] of parts.entries()) for (const r of part.records) pageOf.set(r, `stretch_${i + 1}`);
  return {
    log: {
      version: '1.2',
      creator,
      comment: `Request and response bodies ${CUT_NOTE}; secrets, tokens and link signatures read ${REDACTED}. One page per stretch between the tenant's resets.`,
      pages: parts.map(harPage),
      entries: records.map((r) => harEntry(r, baseUrl, pageOf.get(r))),
    },
  };
}

function harEntry(r: JournalRecord, baseUrl: string, pageref: string | undefined) {
  const { entry } = r;
  const exchange = r.exchange;
  const postData = harPostData(exchange.request);
  return {
    pageref,
    startedDateTime: entry.time,
    time: entry.duration_ms,
    request: {
      method: entry.method,
      url: `${baseUrl}${entry.path}${queryString(r)}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        ...header('Authorization', authorizationHeader(r, REDACTED, REDACTED)),
        ...header('Content-Type', exchange.request?.contentType),
      ],
      queryString: Object.entries(entry.query).map(([name, value]) => ({ name, value })),
      ...(postData && { postData }),
      headersSize: -1,
      bodySize: exchange.request?.size ?? 0,
    },
    response: {
      status: entry.status,
      statusText: entry.status === 0 ? 'connection dropped' : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [...header('Content-Type', exchange.response?.contentType), { name: 'X-Request-Id', value: entry.id }],
      content: harContent(exchange.response),
      redirectURL: '',
      headersSize: -1,
      bodySize: exchange.response?.size ?? (entry.status === 0 ? -1 : 0),
    },
    cache: {},
    timings: { send: 0, wait: entry.duration_ms, receive: 0 },
    ...((entry.code || lostAfterWrite(r)) && {
      comment: [entry.code && `problem code ${entry.code}`, lostAfterWrite(r) && LOST_NOTE].filter(Boolean).join('; '),
    }),
    _requestId: entry.id,
    // a custom field (HAR allows those starting with "_"): whether the operation's write was applied
    _applied: entry.applied,
  };
}

/** A form's redacted fields become variables of the file (`client_secret={{client_secret}}`), to fill in once. */
const VARIABLE_NAME = /^[A-Za-z_]\w{0,63}$/;

/**
 * A body written so it cannot open a block of its own nor reach a client's variables or files (`code-writer.ts`,
 * `httpFile`): a form field by field, a JSON body as it was sent, anything else, or a cut body, as comment lines, the
 * request then sending none. Answers the lines and whether a body is sent.
 */
function httpBody(body: JournalBody): { lines: string[]; sent: boolean } {
  const text = body.text!;
  if (isForm(body.contentType) && !body.truncated) {
    const fields = [...new URLSearchParams(text)];
    return {
      lines: [
        httpFile.form(fields, (name, value) => (value === REDACTED && VARIABLE_NAME.test(name) ? name : undefined)),
      ],
      sent: true,
    };
  }
  if (!body.truncated) {
    try {
      JSON.parse(text);
      return { lines: [httpFile.json(text)], sent: true };
    } catch {
      // not JSON: shown as comments below
    }
  }
  const why = body.truncated ? CUT_NOTE : 'neither JSON nor a form';
  return {
    lines: [
      httpFile.comment(`The body sent (${body.size} bytes, ${why}) is shown as comments: this request sends none.`),
      ...text.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => httpFile.comment(`| ${line}`)),
    ],
    sent: false,
  };
}

/**
 * A `.http` file for the REST clients of VS Code and JetBrains: `###` between requests, the base URL and the
 * credentials as variables at the top (`{{token}}` where a request carried a bearer token). Nothing a client sent can
 * add a block, a variable or a file reference (`httpBody`); each reset is a comment line.
 */
export const httpFileOf = (records: readonly JournalRecord[], context: ExportContext): string =>
  runNow(httpFileSteps(records, context)).toString('utf8');

/** `httpFileOf` record by record (`slices.ts`). */
export function* httpFileSteps(records: readonly JournalRecord[], { baseUrl, resets }: ExportContext): Slices<Buffer> {
  const head = [
    `# ${records.length} request(s) journaled by investment-api-fake; bodies ${CUT_NOTE}, credentials replaced by variables.`,
    httpFile.variable('base', baseUrl),
    '@token = paste-an-access-token-here',
    '@client_secret = your-client-secret',
    '@basic_credentials = base64-of-client_id:client_secret',
    '',
  ];
  const blocks: Buffer[] = [Buffer.from(`${head.join('\n')}\n`)];
  const add = (block: string) => blocks.push(Buffer.from(`${blocks.length > 1 ? '\n' : ''}${block}`));
  for (const [i, part] of stretches(records, resets).entries()) {
    if (part.reset || i > 0) add(`# ----- ${resetTitle(part.reset)} -----\n`);
    for (const r of part.records) {
      yield;
      add(httpBlock(r));
    }
  }
  return Buffer.concat(blocks);
}

function httpBlock(r: JournalRecord): string {
  const { entry } = r;
  const lines = [
    httpFile.separator(
      `${entry.id}: ${entry.method} ${entry.path} answered ${entry.status === 0 ? 'nothing (connection dropped)' : entry.status}${entry.code ? ` ${entry.code}` : ''}${lostAfterWrite(r) ? ` (${LOST_NOTE})` : ''}`,
    ),
    httpFile.requestLine(entry.method, entry.path, queryString(r).slice(1)),
  ];
  const authorization = authorizationHeader(r, '{{token}}', '{{basic_credentials}}');
  if (authorization) lines.push(`Authorization: ${authorization}`);
  const body = r.requestBody;
  if (body?.text) {
    const written = httpBody(body);
    if (written.sent) lines.push(httpFile.header('Content-Type', body.contentType ?? 'application/json'), '');
    else lines.push('');
    lines.push(...written.lines);
  }
  return `${lines.join('\n')}\n`;
}
