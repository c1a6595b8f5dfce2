import { documentValidators, type ApiDocument } from '../api/document.js';
import type { FakeContext } from '../context.js';
import { changeProviderState, type ParamsCheck } from '../domain/provider-states.js';
import { ok, type OperationHandlers } from '../http/operation.js';
import { controlTenant } from './tenant.js';

/** Each document's checks of a state's params, compiled on the first state change (immutable once made). */
const checks = new WeakMap<ApiDocument, ParamsCheck>();

function paramsCheck(document: ApiDocument): ParamsCheck {
  let check = checks.get(document);
  if (!check) {
    const compile = documentValidators(document);
    const bySchema = new Map<string, ReturnType<ReturnType<typeof documentValidators>>>();
    check = (schema, value) => {
      let validate = bySchema.get(schema);
      if (!validate) bySchema.set(schema, (validate = compile({ $ref: `openapi#/components/schemas/${schema}` })));
      return validate(value);
    };
    checks.set(document, check);
  }
  return check;
}

/** Pact's state-change URL: the verifier's call before and after each interaction of an exported contract. */
export function pactHandlers(ctx: FakeContext) {
  return {
    changeProviderState: (call) => ok(changeProviderState(controlTenant(ctx, call), call.body, paramsCheck(ctx.api.document))),
  } satisfies Partial<OperationHandlers>;
}
