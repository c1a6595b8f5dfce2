import { REDACTED } from '../../records/secrets.js';
import { Code, type Written } from '../code-writer.js';
import type { IssuedIdentifiers } from './identifiers.js';

/** An item of a list the replay does not compare (an instant, a link…), kept so the list keeps its length. */
const ANYTHING = new Code('expect.anything()', ['expect']);

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const LINK = /^[a-z][\w+.-]*:\/\//i;

/**
 * What of a successful answer the replay asserts (`toMatchObject`): every member as the session's answer had it,
 * issued identifiers as their variables, but not what differs from run to run by design: instants (the replay's
 * clock matches the session's to the millisecond at arrival, not while the request ran), links (the replay's own
 * address), texts holding an issued identifier, and whatever the journal redacted. `fresh`: identifiers this very
 * answer issues, read after it (`issued()` checks them).
 */
export function expectedOf(answer: unknown, ids: IssuedIdentifiers, fresh: ReadonlySet<string>): Written | undefined {
  if (typeof answer === 'string') {
    if (
      fresh.has(answer) ||
      answer.includes(REDACTED) ||
      INSTANT.test(answer) ||
      LINK.test(answer) ||
      ids.holdsOne(answer)
    )
      return undefined;
    return ids.variableOf(answer) ?? answer;
  }
  if (Array.isArray(answer)) return answer.map((item) => expectedOf(item, ids, fresh) ?? ANYTHING);
  if (answer === null || typeof answer !== 'object') return answer as Written;
  // entries, not assignments: a member named `__proto__` stays a member
  const out: [string, Written][] = [];
  for (const [key, value] of Object.entries(answer)) {
    const kept = expectedOf(value, ids, fresh);
    if (kept !== undefined) out.push([key, kept]);
  }
  return Object.fromEntries(out);
}
