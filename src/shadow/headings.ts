import type { Finding, ProblemSide } from './compare.js';
import { jsonType, type JsonType } from './normalize.js';

/**
 * A difference as a sentence, the one wording of it: the report's `heading`, which the JUnit form's failure message
 * and the console's cards show as they are. Names, pointers and values stand in backticks.
 */

const A_TYPE: Record<JsonType, string> = {
  null: 'null',
  boolean: 'a boolean',
  number: 'a number',
  string: 'a string',
  array: 'an array',
  object: 'an object',
};

/** A value as a heading quotes it: its JSON, cut (the card and the failure's text show it whole). */
const quoted = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'null';
  return `\`${text.length > 60 ? `${text.slice(0, 59)}…` : text}\``;
};

const where = (pointer: string): string => (pointer === '' ? 'the body' : `field \`${pointer}\``);

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `422 (invalid_request)`, or the status alone. */
const answered = (status: unknown, problem: ProblemSide | undefined): string =>
  problem?.code ? `${String(status)} (${problem.code})` : String(status);

/** `a string`, `a string or a number`: the types seen (list items: every item's), else the shown value's. */
const typeWords = (types: readonly JsonType[] | undefined, value: unknown): string =>
  (types && types.length > 0 ? types : [jsonType(value)]).map((t) => A_TYPE[t]).join(' or ');

export function headingOf(finding: Finding): string {
  const { kind, pointer, upstream, fake, problems } = finding;
  switch (kind) {
    case 'status':
      return `The upstream answered ${answered(upstream, problems?.upstream)} where the fake answered ${answered(fake, problems?.fake)}`;
    case 'error_code': {
      const status = problems?.upstream?.status;
      const both = status !== undefined && status === problems?.fake?.status ? `Both answered ${status}, but ` : '';
      const field = pointer === '/error' ? 'OAuth error' : 'problem code';
      const code = (value: unknown): string =>
        value === null ? 'missing' : typeof value === 'string' && value.length <= 60 ? `\`${value}\`` : quoted(value);
      return `${both}${both ? 'the' : 'The'} upstream's ${field} is ${code(upstream)} where the fake's is ${code(fake)}`;
    }
    case 'missing_field':
      return `${capitalized(where(pointer))} is in the upstream's answer (${quoted(upstream)}) but not in the fake's`;
    case 'extra_field':
      return `${capitalized(where(pointer))} is in the fake's answer (${quoted(fake)}) but not in the upstream's`;
    case 'type':
      return `${capitalized(where(pointer))} is ${typeWords(finding.types?.upstream, upstream)} upstream, ${typeWords(finding.types?.fake, fake)} in the fake`;
    case 'enum_value': {
      const out = (side: 'upstream' | 'fake'): string =>
        finding.outside?.includes(side) ? ", outside the document's enum" : '';
      return `${capitalized(where(pointer))} is ${quoted(upstream)} upstream${out('upstream')}, ${quoted(fake)} in the fake${out('fake')}`;
    }
    case 'value':
      return `${capitalized(where(pointer))} is ${quoted(upstream)} upstream, ${quoted(fake)} in the fake`;
  }
}
