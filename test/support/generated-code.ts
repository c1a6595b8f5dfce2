import { runInNewContext } from 'node:vm';
import ts from 'typescript';

/**
 * A generated vitest file as TypeScript's own parser reads it (CONTRACT 16, "Generated code runs only what the fake
 * wrote"): its syntax errors, its top-level statements, and every name it uses as code (not a member's key, which is
 * data). What the generator writes is known, so a file is checked against it: any other statement or name came from
 * outside.
 */
export interface CodeShape {
  errors: string[];
  /** Each top-level statement as `import vitest`, `const CLIENT_ID`, `function send`, `interface Answer`, `call describe`… */
  statements: string[];
  /** Names used as code: identifiers that are no key of an object literal and no member after a dot. */
  names: Set<string>;
  /** Names after a dot (`answer.status`, `control.setClock`). */
  members: Set<string>;
  /** The values of every string literal, in order (the data the file holds). */
  strings: string[];
}

export function codeShape(text: string): CodeShape {
  const file = ts.createSourceFile('export.test.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  const errors = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const statements = file.statements.map(statementShape);
  const names = new Set<string>();
  const members = new Set<string>();
  const strings: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.push(node.text);
    if (ts.isTemplateExpression(node))
      strings.push(node.head.text, ...node.templateSpans.map((span) => span.literal.text));
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      const parent = node.parent;
      const isKey =
        (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)) &&
        parent.name === node;
      const isMember =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isQualifiedName(parent) && parent.right === node);
      if (isMember) members.add(node.text);
      else if (!isKey) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { errors, statements, names, members, strings };
}

function statementShape(statement: ts.Statement): string {
  if (ts.isImportDeclaration(statement)) return `import ${(statement.moduleSpecifier as ts.StringLiteral).text}`;
  if (ts.isVariableStatement(statement)) {
    const kind = statement.declarationList.flags & ts.NodeFlags.Const ? 'const' : 'let';
    return `${kind} ${statement.declarationList.declarations.map((d) => d.name.getText()).join(', ')}`;
  }
  if (ts.isFunctionDeclaration(statement)) return `function ${statement.name?.text}`;
  if (ts.isInterfaceDeclaration(statement)) return `interface ${statement.name.text}`;
  if (ts.isExpressionStatement(statement) && ts.isCallExpression(statement.expression))
    return `call ${statement.expression.expression.getText()}`;
  return `${ts.SyntaxKind[statement.kind]} ${statement.getText().slice(0, 80)}`;
}

/** The top-level statements a vitest export may hold: its imports, constants, variables, helpers and one `describe` (or `it`). */
const GENERATED_STATEMENT =
  /^(import (vitest|investment-api-fake|node:http)|const (CLIENT_ID|CLIENT_SECRET|WRONG_SECRET|STARTED_AT|FIXTURES|SNAPSHOT_\d+|basic|jsonType)|let (fake|control|token|clock|[a-z_$][\w$]*\d+(, [a-z_$][\w$]*\d+)*)|function (clockAt|send|issued|issuedToken|valuesAt)|interface Answer|call (describe|describe\.skip|it))$/;

/** Every name the generator's own code uses: its variables, helpers, vitest's and the package's, and the globals its helpers call. */
const GENERATED_NAMES = new Set([
  ...['afterAll', 'beforeAll', 'describe', 'expect', 'it', 'startServer', 'FakeServer', 'World'],
  ...[
    'CLIENT_ID',
    'CLIENT_SECRET',
    'WRONG_SECRET',
    'STARTED_AT',
    'FIXTURES',
    'STEP',
    'fake',
    'control',
    'token',
    'clock',
    'answer',
  ],
  ...['clockAt', 'send', 'issued', 'issuedToken', 'basic', 'valuesAt', 'jsonType', 'Answer'],
  ...[
    'instant',
    'how',
    'ms',
    'method',
    'path',
    'request',
    'url',
    'name',
    'value',
    'headers',
    'body',
    'response',
    'text',
    'pointer',
    'step',
    'key',
    'raw',
    'values',
    'id',
    'secret',
    'target',
    'hostname',
    'port',
    'sent',
    'chunks',
    'chunk',
    'status',
    'resolve',
    'reject',
    'httpRequest',
  ],
  ...[
    'Date',
    'Object',
    'Array',
    'JSON',
    'URL',
    'URLSearchParams',
    'fetch',
    'crypto',
    'btoa',
    'encodeURIComponent',
    'Buffer',
    'Promise',
    'Record',
    'ReturnType',
    'undefined',
  ],
]);

/** Names after a dot that the generator writes. */
const GENERATED_MEMBERS = new Set([
  ...['skip', 'anything', 'rejects', 'toThrow', 'toBe', 'toEqual', 'toMatchObject', 'toBeDefined', 'toBeUndefined'],
  ...['control', 'forClient', 'setClock', 'advanceClock', 'now', 'token', 'stop', 'url', 'host', 'hostname', 'id'],
  ...[
    'placeOrder',
    'advanceOrder',
    'setOrderStatus',
    'addFault',
    'removeFault',
    'clearFaults',
    'addPaymentMethodDetails',
    'providerState',
    'updateClient',
    'restore',
  ],
  ...[
    'status',
    'body',
    'code',
    'error',
    'query',
    'json',
    'form',
    'text',
    'contentType',
    'authorization',
    'on',
    'end',
    'statusCode',
    'concat',
    'push',
  ],
  ...[
    'parse',
    'stringify',
    'entries',
    'prototype',
    'hasOwnProperty',
    'call',
    'split',
    'slice',
    'replace',
    'toString',
    'randomUUID',
    'isArray',
    'flatMap',
  ],
]);

const SNAPSHOT = /^SNAPSHOT_\d+$/;

/** An identifier the session issued, as the generator names it (`account1`, `paymentMethod2`, `record1_1`). */
const ISSUED_VARIABLE = /^[a-z_$][\w$]*\d+$/;

/**
 * What of a generated file is not the generator's: syntax errors, a top-level statement it does not write, a name or
 * a member it never uses. Empty for a file that holds only the generator's code.
 */
export function foreignCode(text: string): string[] {
  const shape = codeShape(text);
  return [
    ...shape.errors.map((error) => `syntax: ${error}`),
    ...shape.statements.filter((s) => !GENERATED_STATEMENT.test(s)).map((s) => `statement: ${s}`),
    ...[...shape.names]
      .filter((name) => !GENERATED_NAMES.has(name) && !ISSUED_VARIABLE.test(name) && !SNAPSHOT.test(name))
      .map((name) => `name: ${name}`),
    ...[...shape.members].filter((name) => !GENERATED_MEMBERS.has(name)).map((name) => `member: ${name}`),
  ];
}

/**
 * The values of the object literals a generated file writes as a member named `member` (`json`, `query`, `form`: what
 * a step sends), in order, as the replay evaluates them: each literal alone in a fresh context, where nothing of this
 * process is reachable. A literal naming a variable of the file (an issued identifier) is skipped.
 */
export function literalsOf(text: string, member: string): unknown[] {
  const file = ts.createSourceFile('export.test.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: unknown[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === member &&
      ts.isObjectLiteralExpression(node.initializer)
    ) {
      try {
        found.push(
          runInNewContext(`(${node.initializer.getText()})`, Object.create(null) as object, { timeout: 1000 }),
        );
      } catch (error) {
        // an error of the other context is no Error of this one
        if ((error as { name?: unknown }).name !== 'ReferenceError') throw error;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The targets (path and query) a generated file's `send` calls name as written strings, in order: a target holding a
 * variable of the file (an issued identifier) is skipped.
 */
export function targetsOf(text: string): string[] {
  const file = ts.createSourceFile('export.test.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'send') {
      const target = node.arguments[1];
      if (target && (ts.isStringLiteral(target) || ts.isNoSubstitutionTemplateLiteral(target))) found.push(target.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The lines a `.http` file's client reads, split at every kind of line break an editor or a client may take for one. */
const HTTP_LINES = /\r\n|[\n\r\u2028\u2029\u0085]/;
const REQUEST_LINE = /^[!#$%&'*+.^_`|~\w-]+ \{\{base\}\}[\x21-\x7e]*$/;
const HEADER_LINE = /^(Authorization|Content-Type): /;
const VARIABLE_USE = /\{\{(base|token|basic_credentials|[A-Za-z_]\w*)\}\}/g;

/**
 * What of a `.http` file a client would read otherwise than the fake wrote it: a block per request (`blocks`), each a
 * `###` line, one request line, its headers, then a body none of whose lines begins another block or reads a file or
 * a handler, and `{{…}}` only where the fake put a variable. Empty for a file the writer wrote.
 */
export function httpProblems(text: string, blocks: number): string[] {
  const problems: string[] = [];
  const lines = text.split(HTTP_LINES);
  const separators = lines.filter((line) => line.startsWith('###'));
  if (separators.length !== blocks) problems.push(`${separators.length} blocks for ${blocks} requests`);
  let at: 'head' | 'request' | 'headers' | 'body' = 'head';
  for (const line of lines) {
    const shown = JSON.stringify(line.slice(0, 120));
    const variables = line.replace(VARIABLE_USE, '');
    if (variables.includes('{{')) problems.push(`a variable of the client's: ${shown}`);
    if (line.startsWith('###')) at = 'request';
    else if (at === 'request') {
      if (!line.startsWith('# ')) {
        if (!REQUEST_LINE.test(line)) problems.push(`request line: ${shown}`);
        at = 'headers';
      }
    } else if (at === 'headers') {
      if (line === '') at = 'body';
      else if (!HEADER_LINE.test(line)) problems.push(`header: ${shown}`);
    } else if (at === 'body' && /^\s*[<>]/.test(line)) problems.push(`a file or a handler: ${shown}`);
    else if (at === 'head' && line !== '' && !/^(# |@\w+ = )/.test(line)) problems.push(`head: ${shown}`);
  }
  return problems;
}
