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
  request: ExampleRequest;
}

export interface ExampledOperation {
  path: string;
  method: string;
  item: Record<string, unknown>;
  operation: { operationId: string; responses: Record<string, unknown> } & Record<string, unknown>;
}

export const DOCUMENT_FILE: URL;
export const INVALID_TOKEN: string;
export function readDocument(file?: URL | string): unknown;
export function exampledOperations(document: unknown): ExampledOperation[];
export function documentedExamples(document: unknown): DocumentedExample[];
export function maxTenantBytesOf(examples: readonly DocumentedExample[]): number | undefined;
export function resolved(document: unknown, node: unknown): unknown;
export function answerCode(answer: unknown): string | undefined;
export function bodyText(request: { body: unknown; contentType: string | undefined }): string | undefined;
