import { operationsById, type ApiDocument } from '../../api/document.js';
import type { JournalRecord } from '../../records/journal.js';
import { redactedValue, secretForms } from '../../records/secrets.js';
import type { Slices } from '../../util/slices.js';
import { interactionOf, pathParams, type Exchange, type PactInteraction } from './interaction.js';
import { Sightings, type RecordFields, type RecordKind } from './sightings.js';
import { relianceOf } from './states-of.js';

const PACT_PROVIDER = 'investment-platform';

export interface ContractContext {
  document: ApiDocument;
  consumer: string;
  creator: { name: string; version: string };
  /** A record of the tenant's world now, by id: where the span's answers never showed it. */
  worldRecord: (id: string) => { kind: RecordKind; fields: RecordFields } | undefined;
  /** The client's own credentials, searched for in every string of the file as a last guard (`secrets.ts`). */
  credentials: readonly string[];
}

/**
 * Why an exchange is no interaction: a contract asserts what the platform answers any consumer, so not what an
 * injected fault, a lost answer, a token (the verifier brings its own) or a cut request body decided.
 */
function leftOut(r: JournalRecord): string | undefined {
  const { entry } = r;
  if (!entry.path.startsWith('/v1/') || !entry.operation_id) return 'not a /v1 operation';
  if (entry.fault_id) return 'answered by an injected fault';
  if (entry.status === 0 || (entry.applied && (entry.status < 200 || entry.status >= 300)))
    return 'its answer was lost';
  if (entry.status === 401 || entry.status === 403 || entry.status === 429 || entry.status >= 500)
    return 'an answer of the credentials or of the moment';
  if (r.requestBody?.truncated) return 'its body was cut by the journal';
  return undefined;
}

/**
 * The span as a Pact V4 contract: one `Synchronous/HTTP` interaction per distinct `/v1` exchange, in the order
 * first made, each with the states it relied on. Built from the journal's redacted views; the client's credentials
 * are searched for in the written file too.
 */
export function* contractSteps(records: readonly JournalRecord[], context: ContractContext): Slices<Buffer> {
  const templates = operationsById(context.document);
  const sightings = new Sightings();
  const exchanges: { exchange: Exchange; at: number }[] = [];
  const skipped = new Map<string, number>();
  // the credentials the span's requests carried or were issued (a token pasted into a field shows in later answers)
  const credentials = new Set(context.credentials);
  for (const [at, r] of records.entries()) {
    yield;
    for (const credential of r.kept.credentials ?? []) credentials.add(credential);
    const response = r.responseBody;
    if (response?.text && !response.truncated && /json/i.test(response.contentType ?? '')) {
      try {
        sightings.add(at, JSON.parse(response.text));
      } catch {
        // not JSON after all: nothing seen
      }
    }
    const why = leftOut(r);
    if (why) {
      if (r.entry.path.startsWith('/v1/')) skipped.set(why, (skipped.get(why) ?? 0) + 1);
      continue;
    }
    const { entry } = r;
    const template = templates.get(entry.operation_id!)?.path ?? entry.path;
    exchanges.push({
      at,
      exchange: {
        method: entry.method,
        path: entry.path,
        template,
        operationId: entry.operation_id!,
        query: entry.query,
        bearer: r.kept.authorization === 'bearer',
        request: r.requestBody,
        response,
        status: entry.status,
        code: entry.code ?? null,
      },
    });
  }

  const interactions: PactInteraction[] = [];
  const written = new Set<string>();
  const descriptions = new Map<string, number>();
  for (const { exchange, at } of exchanges) {
    yield;
    const lookup = (id: string) => sightings.before(id, at) ?? context.worldRecord(id);
    const reliance = relianceOf(pathParams(exchange.template, exchange.path), exchange.query, lookup, {
      operationId: exchange.operationId,
      status: exchange.status,
    });
    const interaction = interactionOf(context.document, exchange, reliance);
    // identical exchanges are one interaction
    const { description: _description, ...compared } = interaction;
    const identity = JSON.stringify(compared);
    if (written.has(identity)) continue;
    written.add(identity);
    // a description names one interaction: a second of the same words is numbered
    const seen = (descriptions.get(interaction.description) ?? 0) + 1;
    descriptions.set(interaction.description, seen);
    if (seen > 1) interaction.description = `${interaction.description} (${seen})`;
    if (interaction.providerStates)
      interaction.providerStates = interaction.providerStates.map((s) => ({
        name: s.name,
        params: redactedValue(s.params) as Record<string, unknown>,
      }));
    interactions.push(interaction);
  }

  const contract = {
    consumer: { name: context.consumer },
    provider: { name: PACT_PROVIDER },
    interactions,
    metadata: {
      pactSpecification: { version: '4.0' },
      [context.creator.name]: {
        version: context.creator.version,
        span: "the tenant's requests since its last reset",
        leftOut: Object.fromEntries(skipped),
      },
    },
  };
  // the last guard walks the values: the contract's own member names stay, whatever a secret reads as
  return Buffer.from(JSON.stringify(redactedValue(contract, secretForms([...credentials]), { names: false }), null, 2));
}
