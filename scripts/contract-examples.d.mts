// Types of contract-examples.mjs, for the tests that import it.

export interface Given {
  token?: 'invalid' | 'without_scope';
  fault?: number;
  state_dir?: 'refusing_writes';
  padded?: { member: string; length: number };
  content_type?: string;
  max_tenant_bytes?: number;
}

export interface ExampleRequest {
  path: string;
  query: Record<string, string>;
  /** An external example's own `Authorization` header (`token: invalid`'s). */
  authorization?: string;
  contentType: string | undefined;
  body: unknown;
  named: string[];
}

export interface DocumentedExample {
  operationId: string;
  method: string;
  path: string;
  name: string;
  status: number;
  mediaType: string;
  summary: string | undefined;
  answer: unknown;
  given: Given;
  /** The external example's file name (under EXAMPLES_DIR); absent for an example of the document. */
  file?: string;
  request: ExampleRequest;
}

/** An external example file as Specmatic reads it. */
export interface ExampleFile {
  file: string;
  summary?: string;
  'x-given'?: Given;
  'http-request': {
    method: string;
    path: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: unknown;
  };
  'http-response': { status: number; headers?: Record<string, string>; body?: unknown };
}

export interface ExampledOperation {
  path: string;
  method: string;
  item: Record<string, unknown>;
  operation: { operationId: string; responses: Record<string, unknown> } & Record<string, unknown>;
}

/** A schema and the one `example` held to it (undefined: none). */
export interface SingularExample {
  schema: object;
  example: unknown;
}

/** A control operation's examples (the singular `example`, documentation only) and the request they make. */
export interface ControlExample {
  operationId: string;
  method: string;
  path: string;
  /** Every status the operation documents. */
  statuses: number[];
  parameters: (SingularExample & { name: string; in: string })[];
  body: (SingularExample & { mediaType: string }) | undefined;
  answers: (SingularExample & { status: number; mediaType: string })[];
  /** Where the operation has named `examples` instead: a parameter's name, `body`, `<status> <media type>`. */
  named: string[];
  request: {
    path: string;
    query: Record<string, string>;
    headers: Record<string, string>;
    contentType: string | undefined;
    body: unknown;
  };
}

export const DOCUMENT_FILE: URL;
export const EXAMPLES_DIR: URL;
export const INVALID_TOKEN: string;
export function readDocument(file?: URL | string): unknown;
export function exampledOperations(document: unknown): ExampledOperation[];
export function controlExamples(document: unknown): ControlExample[];
export function inlineExamples(document: unknown): DocumentedExample[];
export function readExampleFiles(dir?: URL): ExampleFile[];
export function externalExamples(document: unknown, files?: readonly ExampleFile[]): DocumentedExample[];
export function documentedExamples(document: unknown, files?: readonly ExampleFile[]): DocumentedExample[];
export function maxTenantBytesOf(examples: readonly DocumentedExample[]): number | undefined;
export function resolved(document: unknown, node: unknown): unknown;
export function answerCode(answer: unknown): string | undefined;
export function bodyText(request: { body: unknown; contentType: string | undefined }): string | undefined;
