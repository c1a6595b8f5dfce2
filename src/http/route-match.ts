import type { DocumentOperation } from '../api/document.js';
import type { OperationId } from '../api/types.js';

/** A routed operation and what the steps after the route read of it, read from the document once per operation. */
export interface RoutedOperation extends DocumentOperation {
  operationId: OperationId;
  /** The OAuth scopes it needs; undefined when OAuth does not secure it (the token endpoint, the fake's own paths). */
  scopes: readonly string[] | undefined;
  /** The media types its request body may have (a 415 names them); none when it takes no body. */
  bodyTypes: readonly string[];
}

/**
 * What the route step found, once per request, and every later step reads (http/request-state.ts): the operation,
 * its path as the document writes it, its path parameters (decoded).
 */
export interface RouteMatch {
  operation: RoutedOperation;
  openApiRoute: string;
  pathParams: Record<string, string>;
}
