import { operationAt, operationsById, refTarget, type ApiDocument } from '../api/document.js';
import { isSecretName } from './secrets.js';

/** Whether a schema (its `$ref`s followed) has a secret-named property, or describes a signed link, at any depth. */
function holdsSecret(document: ApiDocument, schema: unknown, seen: Set<unknown>): boolean {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string') return holdsSecret(document, refTarget(document, node.$ref), seen);
  if (typeof node.description === 'string' && node.description.includes('signature=')) return true;
  const properties = node.properties as Record<string, unknown> | undefined;
  if (properties && Object.keys(properties).some(isSecretName)) return true;
  return Object.values(node).some((child) => holdsSecret(document, child, seen));
}

/**
 * Whether an operation's answers can hold a secret (a token, a signed link), decided once per operation from the
 * document, on its first journaled request: the journal redacts those answers when read, and shows every other
 * answer as sent (the fake wrote it by the document).
 */
export function answersWithSecrets(document: ApiDocument): (operationId: string) => boolean {
  const decided = new Map<string, boolean>();
  let operations: ReturnType<typeof operationsById> | undefined;
  const responsesOf = (operationId: string): unknown => {
    const found = (operations ??= operationsById(document)).get(operationId);
    return found && operationAt(document, found)?.responses;
  };
  return (operationId) => {
    let secret = decided.get(operationId);
    if (secret === undefined)
      decided.set(operationId, (secret = holdsSecret(document, responsesOf(operationId), new Set())));
    return secret;
  };
}
