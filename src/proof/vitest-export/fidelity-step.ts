import type { Schemas } from '../../api/types.js';
import { REDACTED } from '../../records/secrets.js';
import type { TypeScriptWriter } from '../code-writer.js';
import type { IssuedIdentifiers } from './identifiers.js';
import { statement, type Statement } from './statements.js';

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
export function differenceAssertions(
  differences: readonly Difference[],
  ids: IssuedIdentifiers,
  w: TypeScriptWriter,
): Statement[] {
  const out: Statement[] = [];
  const seen = new Set<string>();
  for (const difference of differences) {
    const { kind, pointer, upstream } = difference;
    if (kind === 'status' || kind === 'error_code') continue;
    const key = `${kind} ${pointer}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const check = (assertion: (why: string) => string): Statement =>
      statement(w, () => {
        w.uses('valuesAt', 'expect', 'answer', 'STEP');
        return `for (const value of valuesAt(answer.body, ${w.string(pointer)})) ${assertion(`\`\${STEP}: \${${w.string(`${kind} at ${pointer}`)}}\``)};`;
      });
    if (kind === 'missing_field') out.push(check((why) => `expect(value, ${why}).toBeDefined()`));
    else if (kind === 'extra_field') out.push(check((why) => `expect(value, ${why}).toBeUndefined()`));
    else if (kind === 'type')
      out.push(
        check((why) => (w.uses('jsonType'), `expect(jsonType(value), ${why}).toBe(${w.string(jsonType(upstream))})`)),
      );
    else if (JSON.stringify(upstream ?? null).includes(REDACTED))
      out.push(
        statement(w, () => `// ${w.comment(`${kind} at ${pointer}`)}: the upstream's value is a secret, not exported`),
      );
    else out.push(check((why) => `expect(value, ${why}).toEqual(${w.literal(ids.written(upstream ?? null))})`));
  }
  return out;
}

/** The helpers a fidelity file may add: values at a pointer (`*` for every item of a list), a value's JSON type. */
export const FIDELITY_HELPERS = {
  valuesAt: {
    reads: [],
    text: `
/** The values at a JSON pointer; \`*\` stands for every item of a list; a member only where it is the value's own. */
function valuesAt(body: unknown, pointer: string): unknown[] {
  let values: unknown[] = [body];
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    values = values.flatMap((value) =>
      key === '*' ? (Array.isArray(value) ? value : []) : value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key) ? [(value as Record<string, unknown>)[key]] : [undefined],
    );
  }
  return values;
}`,
  },
  jsonType: {
    reads: [],
    text: `
const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);`,
  },
} as const;
