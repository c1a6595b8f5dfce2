/**
 * The identifiers the upstream issued in one session, as the twin's (learned from the answers to creates, and from
 * lists the session owns), and the translation of a request into the twin's terms before it is replayed. Pure
 * functions over a map: what the session learned is the only state.
 */
export class IdentifierMap {
  private readonly toTwin = new Map<string, string>();
  /** `external_id`s the session gave accounts it created: a list filtered by one is the session's own. */
  private readonly externalIds = new Set<string>();
  /** Upstream ids of records the session changed (not created): their answers' values are compared too. */
  private readonly changedIds = new Set<string>();

  constructor(private readonly limit = 100_000) {}

  translate = (upstreamId: string): string | undefined => this.toTwin.get(upstreamId);

  learn(upstreamId: string, twinId: string): void {
    if (this.toTwin.has(upstreamId) || this.toTwin.size >= this.limit) return;
    this.toTwin.set(upstreamId, twinId);
  }

  learnExternalId(externalId: string): void {
    if (this.externalIds.size < this.limit) this.externalIds.add(externalId);
  }

  ownsExternalId = (externalId: string): boolean => this.externalIds.has(externalId);

  markChanged(upstreamId: string): void {
    if (this.changedIds.size < this.limit) this.changedIds.add(upstreamId);
  }

  /** The session created or changed the record: its answers are compared value by value. */
  isSessions = (upstreamId: string): boolean => this.toTwin.has(upstreamId) || this.changedIds.has(upstreamId);
}

export interface TranslatedRequest {
  path: string;
  rawQuery: string;
  body: Buffer;
  /** Path parameters the map did not know (a record of the upstream's own world, or of the fixtures). */
  untranslated: string[];
}

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

function translateJson(value: unknown, translate: (id: string) => string | undefined): unknown {
  if (typeof value === 'string') return translate(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => translateJson(item, translate));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, translateJson(v, translate)]));
  return value;
}

/**
 * A request in the twin's terms: each path segment, query value and JSON string the upstream issued in this session
 * replaced by the twin's. `pathParams` names the segments that are parameters (the others are the document's words).
 */
export function translateRequest(
  request: { path: string; rawQuery: string; body: Buffer; json: boolean; pathParams: readonly string[] },
  map: IdentifierMap,
): TranslatedRequest {
  const untranslated: string[] = [];
  const params = new Set(request.pathParams);
  const path = request.path
    .split('/')
    .map((segment) => {
      const value = decoded(segment);
      const twin = map.translate(value);
      if (twin !== undefined) return encodeURIComponent(twin);
      if (params.has(value)) untranslated.push(value);
      return segment;
    })
    .join('/');
  const query = new URLSearchParams(request.rawQuery);
  const translatedQuery = new URLSearchParams();
  for (const [name, value] of query) translatedQuery.append(name, map.translate(value) ?? value);
  let body = request.body;
  if (request.json && body.length > 0) {
    try {
      body = Buffer.from(JSON.stringify(translateJson(JSON.parse(body.toString('utf8')), map.translate)));
    } catch {
      // not JSON: sent as it came, for the twin to refuse as the upstream did
    }
  }
  return { path, rawQuery: request.rawQuery === '' ? '' : translatedQuery.toString(), body, untranslated };
}

const idOf = (value: unknown): string | undefined => {
  const id =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
};

/**
 * What a successful exchange teaches the map: a create's answer pairs the upstream's new id with the twin's; a list
 * the session owns (filtered by its own `external_id`, or under a record it created) pairs its items in order, both
 * sides listing in creation order; a change (PATCH, DELETE) marks its record as the session's.
 */
export function learnFromExchange(
  exchange: {
    method: string;
    rawQuery: string;
    pathParams: readonly string[];
    requestBody: unknown;
    upstream: unknown;
    fake: unknown;
  },
  map: IdentifierMap,
): void {
  const { method, upstream, fake } = exchange;
  if (method === 'POST') {
    const [theirs, ours] = [idOf(upstream), idOf(fake)];
    if (theirs !== undefined && ours !== undefined) map.learn(theirs, ours);
    const externalId = (exchange.requestBody as { external_id?: unknown } | undefined)?.external_id;
    if (typeof externalId === 'string') map.learnExternalId(externalId);
  } else if (method === 'PATCH' || method === 'DELETE') {
    const target = exchange.pathParams[exchange.pathParams.length - 1];
    if (target !== undefined) map.markChanged(target);
  }
  const theirList = (upstream as { data?: unknown } | undefined)?.data;
  const ourList = (fake as { data?: unknown } | undefined)?.data;
  if (method !== 'GET' || !Array.isArray(theirList) || !Array.isArray(ourList)) return;
  const externalId = new URLSearchParams(exchange.rawQuery).get('external_id');
  const owned =
    (externalId !== null && map.ownsExternalId(externalId)) ||
    exchange.pathParams.some((p) => map.translate(p) !== undefined);
  if (!owned || theirList.length !== ourList.length) return;
  theirList.forEach((item, i) => {
    const [theirs, ours] = [idOf(item), idOf(ourList[i])];
    if (theirs !== undefined && ours !== undefined) map.learn(theirs, ours);
  });
}

/** One side's answer, as far as the decision below reads it. */
export interface AnswerSeen {
  status: number;
  body: unknown;
}

/** A 404 saying the record is not there (`not_found`, or no code), not a path the document lacks (`route_not_found`) */
const noSuchRecord = ({ status, body }: AnswerSeen): boolean => {
  if (status !== 404) return false;
  const code = body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  return code === undefined || code === 'not_found';
};

/** An answer that found the record: a success, or a refusal about its state (409, as a cancel of a filled order). */
const foundRecord = ({ status }: AnswerSeen): boolean => status < 400 || status === 409;

const named = (ids: readonly string[]): string => ids.map((id) => `"${id.slice(0, 100)}"`).join(', ');

/**
 * Why the twin's answer cannot be held against the upstream's, if it cannot: the request names a record only one of
 * the two worlds holds, shown by evidence, never guessed. `untranslated`: the path's identifiers the upstream did
 * not issue in this session's answers (so neither side's record is the session's); `twinHolds`: whether the twin's
 * world has one, read when it answered. Either the upstream found the record and the twin answered 404 (a record of
 * the upstream's own world), or the upstream answered 404 `not_found` while the twin's world holds it and the twin
 * found it (a record of the twin's seed: a cancel of a fixture order, 404 against 409). Never a difference.
 */
export function whyNotComparable(
  upstream: AnswerSeen,
  fake: AnswerSeen,
  untranslated: readonly string[],
  twinHolds: (id: string) => boolean = () => false,
): string | undefined {
  if (untranslated.length === 0 || upstream.status === fake.status) return undefined;
  if (foundRecord(upstream) && noSuchRecord(fake)) {
    return `the request names ${named(untranslated)}, which this session did not create and the twin does not hold (a record of the upstream's own world): upstream ${upstream.status}, fake 404`;
  }
  const held = untranslated.filter(twinHolds);
  if (noSuchRecord(upstream) && foundRecord(fake) && held.length > 0) {
    return `the request names ${named(held)}, which the upstream did not issue in this session and does not hold (404), while the twin's own world (its seed) does: upstream 404, fake ${fake.status}`;
  }
  return undefined;
}
