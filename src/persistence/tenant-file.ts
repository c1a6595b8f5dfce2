import { compileDocumentValidator, componentRef as ref, type ApiDocument } from '../api/document.js';
import type { FieldError } from '../api/errors.js';
import type { World } from '../api/types.js';
import { CLIENT_RECORD_SCHEMA } from '../domain/clients.js';
import type { ClientRecord, Tenant } from '../domain/tenants.js';
import type { FaultBookState } from '../records/faults.js';
import type { ProgressionState } from '../domain/order-progression.js';
import type { ActivityState } from '../domain/investor-activity.js';

/** The version of a tenant file's shape: a file of another version is refused by name, never guessed at. */
export const TENANT_FILE_FORMAT = 'investment-api-fake/tenant@1';

/** One tenant as STATE_DIR keeps it: one file each, so a write touches one tenant. */
export interface TenantFile {
  format: typeof TENANT_FILE_FORMAT;
  /** Its place among the tenants (creation order), so a restart lists them as before. */
  sequence: number;
  /** The whole client record, whatever fields it has: a field added later is carried without this code knowing it. */
  client: ClientRecord;
  clock_offset_ms: number;
  /** The instant a frozen clock shows (absent: it runs). */
  clock_frozen_at_ms?: number;
  faults: FaultBookState;
  world: World;
  /** Orders' status histories and poll counts (absent in files written before progression: nothing recorded). */
  progression?: ProgressionState;
  /** Where investor activity has got to (absent in files written before it: it counts from the restart). */
  activity?: ActivityState;
}

/**
 * A tenant file's schema, its parts taken from the OpenAPI document (the world, faults, scopes and settings as the
 * API defines them). The client record may hold more than the document shows (fields kept for the domain only).
 */
const TENANT_FILE_SCHEMA = {
  type: 'object',
  required: ['format', 'sequence', 'client', 'clock_offset_ms', 'faults', 'world'],
  additionalProperties: false,
  properties: {
    format: { enum: [TENANT_FILE_FORMAT] },
    sequence: { type: 'integer', minimum: 0 },
    client: { ...CLIENT_RECORD_SCHEMA, required: ['client_id', 'client_secret', 'scopes', 'settings'] },
    clock_offset_ms: { type: 'number' },
    clock_frozen_at_ms: { type: 'number' },
    faults: {
      type: 'object',
      required: ['next_id', 'faults'],
      additionalProperties: false,
      properties: {
        next_id: { type: 'integer', minimum: 1 },
        faults: {
          type: 'array',
          items: {
            type: 'object',
            required: ['fault', 'draws'],
            additionalProperties: false,
            properties: { fault: ref('Fault'), draws: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    world: ref('World'),
    progression: {
      type: 'object',
      required: ['since', 'history', 'polls'],
      additionalProperties: false,
      properties: {
        since: { type: 'number' },
        history: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'array',
              minItems: 3,
              maxItems: 3,
              items: [ref('OrderStatus'), { type: 'number' }, ref('OrderStatusHistoryEntry/properties/by')],
            },
          },
        },
        polls: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
      },
    },
    activity: {
      type: 'object',
      required: ['since', 'drawn'],
      additionalProperties: false,
      properties: { since: { type: 'number' }, drawn: { type: 'integer', minimum: 0 } },
    },
  },
} as const;

/**
 * A file kept by an earlier release, brought to today's shape before it is checked: faults kept before they had a
 * phase struck before the operation, as every fault then did.
 */
export function upgradeTenantFile(parsed: unknown): unknown {
  const faults = (parsed as { faults?: { faults?: unknown } } | null)?.faults?.faults;
  if (Array.isArray(faults)) {
    for (const kept of faults) {
      const fault = (kept as { fault?: unknown } | null)?.fault;
      if (typeof fault === 'object' && fault !== null && !('phase' in fault))
        (fault as { phase: string }).phase = 'before';
    }
  }
  // status histories kept before they named who placed an order: their first entry said `placement`; which of the
  // control plane or the fixtures it was is not kept, so it reads `fixtures` (the world as it was when kept)
  const history = (parsed as { progression?: { history?: unknown } } | null)?.progression?.history;
  if (typeof history === 'object' && history !== null) {
    for (const entries of Object.values(history)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) if (Array.isArray(entry) && entry[2] === 'placement') entry[2] = 'fixtures';
    }
  }
  return parsed;
}

export const compileTenantFileValidator = (document: ApiDocument): ((value: unknown) => FieldError[]) =>
  compileDocumentValidator(document, TENANT_FILE_SCHEMA);

/** The tenant's file as text, read from the live tenant in one synchronous step (so it is one instant's state). */
export function tenantFileText(tenant: Tenant, sequence: number): string {
  return [...tenantFileParts(tenant, sequence)].join('');
}

/** Records per piece of a world's collection: ~1 ms of JSON.stringify each. */
const RECORDS_PER_PART = 500;

/**
 * The tenant's file as pieces of text, made one after the other as the caller asks (a generator): a writer may give
 * the event loop back between pieces, so that a large tenant's file is never one long block of serializing (a
 * 20 MB tenant: ~150 ms) that other tenants' requests wait behind. The pieces are one instant's state only if the
 * tenant did not change while they were made: the caller checks (persistence/state-writer.ts).
 */
export function* tenantFileParts(tenant: Tenant, sequence: number): Generator<string> {
  const { world, ...rest } = {
    format: TENANT_FILE_FORMAT,
    sequence,
    client: tenant.client,
    clock_offset_ms: tenant.clock.offset,
    ...(tenant.clock.frozen && { clock_frozen_at_ms: tenant.clock.frozenAt }),
    faults: tenant.faults.exportState(),
    world: tenant.store.snapshotView(),
    progression: tenant.progression.exportState(),
    activity: tenant.activity.exportState(),
  } satisfies TenantFile;
  yield `${JSON.stringify(rest).slice(0, -1)},"world":{`;
  let firstCollection = true;
  for (const [name, records] of Object.entries(world) as [string, unknown[]][]) {
    yield `${firstCollection ? '' : ','}${JSON.stringify(name)}:[`;
    firstCollection = false;
    for (let i = 0; i < records.length; i += RECORDS_PER_PART) {
      const part = JSON.stringify(records.slice(i, i + RECORDS_PER_PART));
      yield `${i === 0 ? '' : ','}${part.slice(1, -1)}`;
    }
    yield ']';
  }
  yield '}}';
}

/** A client id as a file name: any id, even "..", stays one plain file inside the tenants folder. */
export const tenantFileName = (clientId: string): string => `${encodeURIComponent(clientId)}.json`;
