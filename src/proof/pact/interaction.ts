import { letterOf, responseContentOf, type ApiDocument } from '../../api/document.js';
import type { JournalBody } from '../../records/journal-body.js';
import {
  BEARER_PATTERN,
  bodyRules,
  contractExample,
  rule,
  UUID_PATTERN,
  type Rules,
  type RuleList,
} from './matching.js';
import type { ProviderState, Reliance } from './states-of.js';

/** What an interaction is made of: one `/v1` exchange of the journal, as a reader sees it (redacted). */
export interface Exchange {
  method: string;
  /** The path as sent. */
  path: string;
  /** The document's path it routed to (`/v1/accounts/{account_id}`). */
  template: string;
  operationId: string;
  query: Record<string, string>;
  bearer: boolean;
  request: JournalBody | null;
  response: JournalBody | null;
  status: number;
  code: string | null;
}

type Generator = { type: 'ProviderState'; expression: string; dataType: 'STRING' };

/** A Pact V4 `Synchronous/HTTP` interaction (https://github.com/pact-foundation/pact-specification/tree/version-4). */
export interface PactInteraction {
  type: 'Synchronous/HTTP';
  description: string;
  providerStates?: ProviderState[];
  pending: false;
  request: {
    method: string;
    path: string;
    query?: Record<string, string[]>;
    headers: Record<string, string[]>;
    body?: PactBody;
    matchingRules: { path: RuleList; header?: Rules; query?: Rules; body?: Rules };
    generators?: { path?: Generator; query?: Record<string, Generator> };
  };
  response: {
    status: number;
    headers?: Record<string, string[]>;
    body?: PactBody;
    matchingRules?: { body: Rules };
  };
  comments?: { text: string[] };
}

interface PactBody {
  content: unknown;
  contentType: string;
  encoded: false;
}

/** Not a credential: what stands for the bearer token the verifier is given (`customProviderHeaders`). */
export const TOKEN_PLACEHOLDER = 'Bearer ACCESS_TOKEN';

const mediaType = (contentType: string | null): string =>
  (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();

const parsed = (body: JournalBody | null): { json: unknown } | undefined => {
  if (body === null || body.text === null || body.truncated || !/json/i.test(body.contentType ?? '')) return undefined;
  try {
    return { json: JSON.parse(body.text) as unknown };
  } catch {
    return undefined;
  }
};

/** A path's parameters by name, as the document's template reads them. */
export function pathParams(template: string, path: string): Record<string, string> {
  const { names, expression } = letterOf(template);
  const match = expression.exec(path);
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]));
}

/** The path with each injected parameter as `${value}`, and a regex that any such path matches. */
function pathOf(
  template: string,
  path: string,
  injected: Reliance['injected'],
): { generator?: Generator; regex: string } {
  const { literals, names, expression } = letterOf(template);
  const values = expression.exec(path)?.slice(1) ?? [];
  // `/` is no metacharacter: left as it is, which every regex engine of Pact's reads alike
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const regex = `^${literals.map(escaped).join('[^/]+')}$`;
  if (!names.some((name) => injected.has(name))) return { regex };
  const expressionText = literals.map((literal, i) => {
    if (i === names.length) return literal;
    const value = injected.get(names[i]!);
    return `${literal}${value ? `\${${value}}` : values[i]}`;
  });
  return { generator: { type: 'ProviderState', expression: expressionText.join(''), dataType: 'STRING' }, regex };
}

/** Answers whose records this world decides (the catalog): the contract keeps only what the document promises. */
const WORLD_DECIDED = new Set(['getShareClass']);

/** One exchange as a contract's interaction, with the states it relied on. */
export function interactionOf(document: ApiDocument, exchange: Exchange, reliance: Reliance): PactInteraction {
  const { method, template, operationId, status, code } = exchange;
  const path = pathOf(template, exchange.path, reliance.injected);
  const queryEntries = Object.entries(exchange.query);
  const request: PactInteraction['request'] = {
    method,
    path: exchange.path,
    ...(queryEntries.length > 0 && { query: Object.fromEntries(queryEntries.map(([name, value]) => [name, [value]])) }),
    headers: {},
    matchingRules: { path: rule({ match: 'regex', regex: path.regex }) },
  };
  if (exchange.bearer) {
    request.headers.Authorization = [TOKEN_PLACEHOLDER];
    request.matchingRules.header = { Authorization: rule({ match: 'regex', regex: BEARER_PATTERN }) };
  }
  const sent = parsed(exchange.request);
  if (sent) {
    request.headers['Content-Type'] = [mediaType(exchange.request!.contentType)];
    request.body = { content: sent.json, contentType: mediaType(exchange.request!.contentType), encoded: false };
    const rules = bodyRules(sent.json, { byType: false });
    if (Object.keys(rules).length > 0) request.matchingRules.body = rules;
  }
  const generators: NonNullable<PactInteraction['request']['generators']> = {};
  if (path.generator) generators.path = path.generator;
  const queried = reliance.injected.get('?account_id');
  if (queried && exchange.query.account_id !== undefined) {
    generators.query = { account_id: { type: 'ProviderState', expression: `\${${queried}}`, dataType: 'STRING' } };
    request.matchingRules.query = { account_id: rule({ match: 'regex', regex: UUID_PATTERN }) };
  }
  if (Object.keys(generators).length > 0) request.generators = generators;

  const response: PactInteraction['response'] = { status };
  const comments: string[] = [];
  const answered = parsed(exchange.response);
  if (answered) {
    const type = mediaType(exchange.response!.contentType);
    const schema = responseContentOf(document, operationId, status)?.[type]?.schema;
    const content = contractExample(document, answered.json, schema, WORLD_DECIDED.has(operationId));
    const equal = [
      ...(code ? ['$.code'] : []),
      ...(operationId === 'cancelOrder' && status === 200 ? ['$.status'] : []),
    ];
    response.headers = { 'Content-Type': [type] };
    response.body = { content, contentType: type, encoded: false };
    response.matchingRules = { body: bodyRules(content, { byType: true, equal }) };
  } else if (exchange.response?.truncated) {
    comments.push('The answer was cut by the journal: its status only is asserted.');
  }
  const states = reliance.states;
  return {
    type: 'Synchronous/HTTP',
    description: `${method} ${template} answers ${status}${code ? ` ${code}` : ''}`,
    ...(states.length > 0 && { providerStates: states }),
    pending: false,
    request,
    response,
    ...(comments.length > 0 && { comments: { text: comments } }),
  };
}
