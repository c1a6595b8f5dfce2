/**
 * Values written as TypeScript: JSON-like literals in which a variable of the replay (an identifier the session
 * issued, read from a replayed answer) stands where the session had its value.
 */

/** A variable of the generated file, written as its name. */
export class Variable {
  constructor(readonly name: string) {}
}

/** A value to write: JSON, with variables where identifiers stood. */
export type Written = Variable | string | number | boolean | null | Written[] | { [key: string]: Written };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A string as a template literal's text: its backquotes, backslashes and `${` escaped. */
const templateText = (text: string): string => text.replace(/[\\`]/g, (c) => `\\${c}`).replace(/\$\{/g, '\\${');

/** A literal of strings and variables joined (a path with identifiers in it): a plain string when it holds none. */
export function joined(parts: readonly (string | Variable)[]): string {
  if (parts.every((part) => typeof part === 'string')) return JSON.stringify(parts.join(''));
  return `\`${parts.map((part) => (typeof part === 'string' ? templateText(part) : `\${${part.name}}`)).join('')}\``;
}

/** A value as a TypeScript expression, indented by `indent` spaces after its first line. */
export function literal(value: Written, indent = 0): string {
  if (value instanceof Variable) return value.name;
  // U+2028 and U+2029 are line breaks inside a source file's string literal for older parsers: escaped
  if (typeof value === 'string') return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const pad = ' '.repeat(indent + 2);
  const end = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${pad}${literal(item, indent + 2)},`).join('\n')}\n${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${pad}${IDENTIFIER.test(key) ? key : JSON.stringify(key)}: ${literal(item, indent + 2)},`).join('\n')}\n${end}}`;
}
