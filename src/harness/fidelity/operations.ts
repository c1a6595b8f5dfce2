import { letterOf, operationsOf, type ApiDocument } from '../../api/document.js';
import type { OperationId } from '../../api/types.js';

export interface MatchedOperation {
  operationId: OperationId;
  /** The document's path (`/v1/accounts/{account_id}`). */
  template: string;
  pathParams: Record<string, string>;
}

/**
 * The public operation a forwarded request names, by the document's paths to the letter, as the fake routes them
 * (case and every slash count: `api/document.ts` `letterOf`). The control plane's operations are never forwarded, so
 * they are left out.
 */
export function operationMatcher(document: ApiDocument): (method: string, path: string) => MatchedOperation | undefined {
  const routes = operationsOf(document)
    .filter(({ path }) => !path.startsWith('/__control'))
    .map(({ operationId, method, path }) => {
      const { names, expression } = letterOf(path);
      return { operationId: operationId as OperationId, method: method.toUpperCase(), template: path, names, regexp: expression };
    });
  return (method, path) => {
    for (const route of routes) {
      if (route.method !== method.toUpperCase()) continue;
      const match = route.regexp.exec(path);
      if (!match) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, i) => {
        try {
          pathParams[name] = decodeURIComponent(match[i + 1]!);
        } catch {
          pathParams[name] = match[i + 1]!;
        }
      });
      return { operationId: route.operationId, template: route.template, pathParams };
    }
    return undefined;
  };
}
