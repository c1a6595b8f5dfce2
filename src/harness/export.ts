import { JOURNAL_BODY_LIMIT_BYTES, REDACTED, type JournalBody } from './journal-body.js';
import type { JournalRecord } from './journal.js';

/** Where the exported requests went and who made them: absolute URLs need a base. */
export interface ExportContext {
  baseUrl: string;
  creator: { name: string; version: string };
}

const CUT_NOTE = `cut at ${JOURNAL_BODY_LIMIT_BYTES} bytes by the journal`;

const queryString = (r: JournalRecord): string => {
  const query = new URLSearchParams(Object.entries(r.entry.query)).toString();
  return query ? `?${query}` : '';
};

const authorizationHeader = (r: JournalRecord, bearer: string, basic: string): string | undefined =>
  r.exchange.authorization === 'bearer' ? `Bearer ${bearer}` : r.exchange.authorization === 'basic' ? `Basic ${basic}` : undefined;

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
    ...(form && !body.truncated && { params: [...new URLSearchParams(body.text)].map(([name, value]) => ({ name, value })) }),
    ...(body.truncated && { comment: CUT_NOTE }),
  };
}

/** An answer the client never got although the operation was applied (phase `after`, or a client that left). */
const lostAfterWrite = (r: JournalRecord): boolean => r.entry.applied && (r.entry.status < 200 || r.entry.status >= 300);
const LOST_NOTE = 'applied: the operation was done, its answer lost';

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): what the journal holds, credentials redacted. */
export function harOf(records: readonly JournalRecord[], { baseUrl, creator }: ExportContext) {
  return {
    log: {
      version: '1.2',
      creator,
      comment: `Request and response bodies ${CUT_NOTE}; secrets, tokens and link signatures read ${REDACTED}.`,
      entries: records.map((r) => {
        const { entry, exchange } = r;
        const postData = harPostData(exchange.request);
        return {
          startedDateTime: entry.time,
          time: entry.duration_ms,
          request: {
            method: entry.method,
            url: `${baseUrl}${entry.path}${queryString(r)}`,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: [...header('Authorization', authorizationHeader(r, REDACTED, REDACTED)), ...header('Content-Type', exchange.request?.contentType)],
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
          ...((entry.code || lostAfterWrite(r)) && { comment: [entry.code && `problem code ${entry.code}`, lostAfterWrite(r) && LOST_NOTE].filter(Boolean).join('; ') }),
          _requestId: entry.id,
          // a custom field (HAR allows those starting with "_"): whether the operation's write was applied
          _applied: entry.applied,
        };
      }),
    },
  };
}

/** A form's redacted fields become variables of the file (`client_secret={{client_secret}}`), to fill in once. */
const withSecretVariables = (text: string): string => text.replace(/(^|&)([^=&]+)=(?:%5Bredacted%5D|\[redacted\])(?=&|$)/g, '$1$2={{$2}}');

/**
 * A `.http` file for the REST clients of VS Code and JetBrains: `###` between requests, the base URL and the
 * credentials as variables at the top (`{{token}}` where a request carried a bearer token).
 */
export function httpFileOf(records: readonly JournalRecord[], { baseUrl }: ExportContext): string {
  const head = [
    `# ${records.length} request(s) journaled by investment-api-fake; bodies ${CUT_NOTE}, credentials replaced by variables.`,
    `@base = ${baseUrl}`,
    '@token = paste-an-access-token-here',
    '@client_secret = your-client-secret',
    '@basic_credentials = base64-of-client_id:client_secret',
    '',
  ];
  const blocks = records.map((r) => {
    const { entry, exchange } = r;
    const lines = [
      `### ${entry.id}: ${entry.method} ${entry.path} answered ${entry.status === 0 ? 'nothing (connection dropped)' : entry.status}${entry.code ? ` ${entry.code}` : ''}${lostAfterWrite(r) ? ` (${LOST_NOTE})` : ''}`,
      `${entry.method} {{base}}${entry.path}${queryString(r)}`,
    ];
    const authorization = authorizationHeader(r, '{{token}}', '{{basic_credentials}}');
    if (authorization) lines.push(`Authorization: ${authorization}`);
    const body = exchange.request;
    if (body?.text) {
      lines.push(`Content-Type: ${body.contentType ?? 'application/json'}`, '');
      if (body.truncated) lines.splice(1, 0, `# the body below is ${CUT_NOTE}`);
      lines.push(/x-www-form-urlencoded/i.test(body.contentType ?? '') ? withSecretVariables(body.text) : body.text);
    }
    return `${lines.join('\n')}\n`;
  });
  return `${head.join('\n')}\n${blocks.join('\n')}`;
}
