/**
 * The one writer of the files the fake writes for someone to run or send (CONTRACT 16, "Generated code runs only what
 * the fake wrote"): the vitest files (`vitest-export/`) and the `.http` file (`export.ts`). A value that came from
 * outside the generator (a path, a query, a body, an upstream's answer, a reason, a client id) reaches a file only
 * through a function for its position, as a compiler's emitter or `JSON.stringify` writes it: it cannot end its
 * string, comment or line, nor become code. The generator's own code is `Code`. Nothing is pasted, and no pass runs
 * over a written file: a TypeScript writer is handed the redaction, which it applies to each value before writing it.
 */

/**
 * Code the generator wrote itself (a variable it declares, `expect.anything()`): written as it is. `reads`: the names
 * of the file it reads (a helper, a variable), by default its text.
 */
export class Code {
  constructor(
    readonly text: string,
    readonly reads: readonly string[] = [text],
  ) {}
}

/** A value to write: JSON, with the generator's code where it stood (an identifier read from an earlier answer). */
export type Written =
  | Code
  | string
  | number
  | boolean
  | null
  | readonly Written[]
  | { readonly [key: string]: Written };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A variable of the generated file: a name the generator made, checked to be an identifier and nothing more. */
export function variable(name: string): Code {
  if (!IDENTIFIER.test(name)) throw new TypeError(`not an identifier: ${JSON.stringify(name)}`);
  return new Code(name);
}

const hex4 = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Characters a string literal holds as escapes although JSON would write them as they are: ECMAScript's two line
 * terminators beyond CR and LF (TypeScript ends a string at them), C1 controls, and the bidirectional overrides a
 * reader's editor would obey (a line that reads otherwise than it runs). The escape is the same value.
 */
const UNSEEN = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What a template literal's text escapes: its delimiters, `${`, lone surrogates, and every control or line break. */
const TEMPLATE_SPECIAL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it escapes
  /[\\`]|\$(?=\{)|[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What a comment cannot hold as it is: a line break of any kind, another control, a bidirectional override. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it escapes
const COMMENT_SPECIAL = /\r\n?|[\n\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapedInComment = (c: string): string => (c === '\n' || c === '\r\n' ? '\\n' : c === '\r' ? '\\r' : hex4(c));

/**
 * The writer of one TypeScript file: a function per position for outside values, each redacting the value first
 * (`redact`: the file's secrets replaced, `secrets.ts`), and the names of the generator's code the file read, so that
 * it declares only what it uses (the file is clean under `noUnusedLocals`).
 */
export class TypeScriptWriter {
  private readonly scopes: Set<string>[] = [new Set()];

  constructor(private readonly redact: (text: string) => string = (text) => text) {}

  /** A string literal holding `text`. */
  string(text: string): string {
    return JSON.stringify(this.redact(text)).replace(UNSEEN, hex4);
  }

  /** A template literal's text (between its backquotes, outside `${…}`) that reads as `text`. */
  templateText(text: string): string {
    return this.redact(text).replace(TEMPLATE_SPECIAL, (c) =>
      c === '\\' || c === '`' || c === '$' ? `\\${c}` : c === '\n' ? '\\n' : c === '\r' ? '\\r' : hex4(c),
    );
  }

  /**
   * `text` as the text of a comment, on the comment's one line: line breaks (CR, LF, U+2028, U+2029) and other
   * controls written as escapes, `*\/` broken (a block comment would end there).
   */
  comment(text: string): string {
    return this.redact(text).replace(COMMENT_SPECIAL, escapedInComment).replace(/\*\//g, '*\\/');
  }

  /** An object literal's key for the member `name`: `__proto__` computed, so the object has that member and keeps its prototype. */
  key(name: string): string {
    const shown = this.redact(name);
    if (shown === '__proto__') return '["__proto__"]';
    return IDENTIFIER.test(shown) ? shown : this.string(shown);
  }

  /** The generator's own code where a value stood, counted as read. */
  code(code: Code): string {
    this.uses(...code.reads);
    return code.text;
  }

  /** Records that the code being written reads these names of the file (helpers, variables, imports). */
  uses(...names: string[]): void {
    for (const scope of this.scopes) for (const name of names) scope.add(name);
  }

  /** Whether the file read a name so far. */
  read(name: string): boolean {
    return this.scopes[0]!.has(name);
  }

  /** Runs `write` and answers what it wrote with the names it read (a test's `STEP`, say). */
  reading<T>(write: () => T): { written: T; names: ReadonlySet<string> } {
    const names = new Set<string>();
    this.scopes.push(names);
    try {
      return { written: write(), names };
    } finally {
      this.scopes.pop();
    }
  }

  /** Strings and code joined (a path with identifiers in it): a template literal, or a string literal when it holds no code. */
  joined(parts: readonly (string | Code)[]): string {
    if (parts.every((part) => typeof part === 'string')) return this.string(parts.join(''));
    return `\`${parts.map((part) => (typeof part === 'string' ? this.templateText(part) : `\${${this.code(part)}}`)).join('')}\``;
  }

  /** A value as a TypeScript expression, indented by `indent` spaces after its first line. */
  literal(value: Written, indent = 0): string {
    const out: string[] = [];
    this.write(value, indent, out);
    return out.join('');
  }

  private write(value: Written, indent: number, out: string[]): void {
    if (value instanceof Code) out.push(this.code(value));
    else if (typeof value === 'string') out.push(this.string(value));
    else if (value === null || typeof value !== 'object')
      out.push(Number.isFinite(value) || typeof value === 'boolean' ? String(value) : 'null');
    else {
      const entries: [string | undefined, Written][] = isList(value)
        ? value.map((item) => [undefined, item])
        : Object.entries(value);
      if (entries.length === 0) return void out.push(isList(value) ? '[]' : '{}');
      const pad = ' '.repeat(indent + 2);
      out.push(isList(value) ? '[\n' : '{\n');
      for (const [key, item] of entries) {
        out.push(pad, key === undefined ? '' : `${this.key(key)}: `);
        this.write(item, indent + 2, out);
        out.push(',\n');
      }
      out.push(' '.repeat(indent), isList(value) ? ']' : '}');
    }
  }
}

const isList = (value: object): value is readonly Written[] => Array.isArray(value);

/**
 * The positions of a `.http` file (the REST clients of VS Code and JetBrains). A client reads a request line, header
 * lines, a body up to the next `###` line, and `{{…}}` anywhere (`{{$processEnv …}}`); JetBrains also `< file` and
 * `> {% handler %}` lines in a body. Each function writes one part of one line that cannot end that line nor reach a
 * variable, a file or a handler; a body is written so none of its lines can begin another block.
 */
export const httpFile = {
  /**
   * A request line: the method, `{{base}}`, then the path and query as sent, with every character a client would read
   * as something else (a space, a control, `{`, `#`, a non-ASCII character) percent-encoded as the bytes it was.
   */
  requestLine(method: string, path: string, query: string): string {
    return `${method.replace(/[^!#$%&'*+.^_`|~\w-]/g, '_')} {{base}}${urlPart(path, false)}${query === '' ? '' : `?${urlPart(query, true)}`}`;
  },

  /** A header line, its value on one line (controls and line breaks as spaces). */
  header(name: string, value: string): string {
    return `${name}: ${oneLine(value)}`;
  },

  /** A file variable (`@name = value`) on one line. */
  variable(name: string, value: string): string {
    return `@${name} = ${oneLine(value)}`;
  },

  /** A `#` comment line holding `text`: line breaks and other controls as escapes. */
  comment(text: string): string {
    return `# ${inert(text.replace(COMMENT_SPECIAL, escapedInComment))}`;
  },

  /** The `###` line that begins a request's block, its title holding `text` as a comment does. */
  separator(text: string): string {
    return `### ${inert(text.replace(COMMENT_SPECIAL, escapedInComment))}`;
  },

  /**
   * A JSON body as it was sent (a JSON text breaks lines only between its tokens, so none of its lines starts with
   * `###`, `<` or `>`), its `{` of `{{` and line breaks beyond CR and LF escaped inside strings: the same value.
   */
  json(text: string): string {
    return text.replace(/\{\{/g, '{\\u007b').replace(/[\u0085\u2028\u2029]/g, hex4);
  },

  /** A form body, percent-encoded field by field (the same fields); `variableOf` names a field written as `{{variable}}`. */
  form(fields: readonly [string, string][], variableOf: (name: string, value: string) => string | undefined): string {
    return fields
      .map(([name, value]) => {
        const field = new URLSearchParams([[name, value]]).toString();
        const variable = variableOf(name, value);
        return variable === undefined ? field : `${field.slice(0, field.indexOf('='))}={{${variable}}}`;
      })
      .join('&');
  },
};

/**
 * A URL's path or query as a `.http` request line holds it: RFC 3986's unreserved and sub-delims, `:@/%` (and `?` in a
 * query) as they are; anything else as the percent-encoded bytes it was (one byte up to U+00FF, as Node reads a
 * request's URL byte by byte; UTF-8 above).
 */
function urlPart(text: string, query: boolean): string {
  const special = query
    ? /[\ud800-\udbff][\udc00-\udfff]|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g
    : /[\ud800-\udbff][\udc00-\udfff]|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g;
  return text.replace(special, (c) => {
    const bytes = c.length === 1 && c.charCodeAt(0) <= 0xff ? [c.charCodeAt(0)] : [...Buffer.from(c, 'utf8')];
    return bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
}

/** Text a `.http` file may hold on a line of its own without a client reading anything in it: `{{` neutralized. */
const inert = (text: string): string => text.replace(/\{\{/g, '{%7B');

// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it blanks
const oneLine = (text: string): string => inert(text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' '));
