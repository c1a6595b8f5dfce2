import type { Schemas } from '../../api/types.js';
import { REDACTED } from '../../records/secrets.js';
import { literal } from './code.js';
import type { IssuedIdentifiers } from './identifiers.js';

type Difference = Schemas['FidelityDifference'];

/** Shadow mode's findings for the exchanges of a session, by journal request id. */
export interface FidelityFindings {
  upstream: string;
  differences: ReadonlyMap<string, readonly Difference[]>;
  notComparable: ReadonlyMap<string, string>;
}

const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * What the upstream answered where the fake differed, as assertions on the replayed answer: a member the upstream has
 * (`missing_field`), one it has not (`extra_field`), its JSON type, or its value (`enum_value`, `value`). A pointer
 * through a list (`/data/*‍/status`) is checked on every item. The status and problem code are asserted already.
 */
export function differenceAssertions(differences: readonly Difference[], ids: IssuedIdentifiers): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const difference of differences) {
    const { kind, pointer, upstream } = difference;
    if (kind === 'status' || kind === 'error_code') continue;
    const key = `${kind} ${pointer}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const at = `valuesAt(answer.body, ${literal(pointer)})`;
    const why = literal(`${kind} at ${pointer}`);
    if (kind === 'missing_field') lines.push(`for (const value of ${at}) expect(value, \`\${STEP}: \${${why}}\`).toBeDefined();`);
    else if (kind === 'extra_field') lines.push(`for (const value of ${at}) expect(value, \`\${STEP}: \${${why}}\`).toBeUndefined();`);
    else if (kind === 'type') lines.push(`for (const value of ${at}) expect(jsonType(value), \`\${STEP}: \${${why}}\`).toBe(${literal(jsonType(upstream))});`);
    else if (JSON.stringify(upstream ?? null).includes(REDACTED)) lines.push(`// ${kind} at ${pointer}: the upstream's value is a secret, not exported`);
    else lines.push(`for (const value of ${at}) expect(value, \`\${STEP}: \${${why}}\`).toEqual(${literal(ids.written(upstream ?? null))});`);
  }
  return lines;
}

/** The helpers a fidelity file adds: values at a pointer (`*` for every item of a list), a value's JSON type. */
export const FIDELITY_HELPERS = `
/** The values at a JSON pointer; \`*\` stands for every item of a list. */
function valuesAt(body: unknown, pointer: string): unknown[] {
  let values: unknown[] = [body];
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    values = values.flatMap((value) =>
      key === '*' ? (Array.isArray(value) ? value : []) : value !== null && typeof value === 'object' ? [(value as Record<string, unknown>)[key]] : [undefined],
    );
  }
  return values;
}

const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
`;
