import { componentRef, documentValidators, type ApiDocument } from '../api/document.js';
import type { FakeContext } from '../context.js';
import { changeProviderState, type ParamsCheck } from '../domain/provider-states.js';
import type { Tenant } from '../domain/tenants.js';
import { ok, type OperationCall, type OperationHandlers } from '../http/operation.js';
import { bearerTokenOf } from '../auth/jwt.js';
import { verifyOnTenantClock } from '../http/request-context.js';
import { controlTenant, namedClientId } from './tenant.js';
import { journalControl } from './control-journal.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'api' | 'journal' | 'linkSigner' | 'options' | 'tenants' | 'tokens'>;

/** Each document's checks of a state's params, compiled on the first state change (immutable once made). */
const checks = new WeakMap<ApiDocument, ParamsCheck>();

function paramsCheck(document: ApiDocument): ParamsCheck {
  let check = checks.get(document);
  if (!check) {
    const compile = documentValidators(document);
    const bySchema = new Map<string, ReturnType<ReturnType<typeof documentValidators>>>();
    check = (schema, value) => {
      let validate = bySchema.get(schema);
      if (!validate) bySchema.set(schema, (validate = compile(componentRef(schema))));
      return validate(value);
    };
    checks.set(document, check);
  }
  return check;
}

/**
 * The tenant a state is made in: as on every control call, but for one case: the verifier sends its custom headers
 * here too, so on an open plane (where the guard lets an API token through as the operator) a call that names no
 * tenant is made in the tenant of the API token it carries, where the verifier's requests go. No authority is added:
 * an open plane acts on any tenant anyway, and a guarded one has already confined a partner to its own.
 */
function stateTenant(ctx: InstanceParts, call: OperationCall<'changeProviderState'>): Tenant {
  if (call.controlPartner || namedClientId(call) !== undefined) return controlTenant(ctx, call);
  const bearer = bearerTokenOf(call.header('authorization'));
  const verdict = bearer?.includes('.') ? verifyOnTenantClock(ctx, bearer, call.baseUrl) : undefined;
  const tenant = verdict?.claims ? ctx.tenants.find(verdict.signedFor) : undefined;
  return tenant ?? controlTenant(ctx, call);
}

/** Pact's state-change URL: the verifier's call before and after each interaction of an exported contract. */
export function pactHandlers(ctx: InstanceParts) {
  return {
    changeProviderState: (call) => {
      const tenant = stateTenant(ctx, call);
      const made = changeProviderState(tenant, call.body, paramsCheck(ctx.api.document));
      if (!made) return ok({});
      // a state set up changes the world a replay of the session must start its next steps from: the journal keeps
      // what the state used (the rest of the params, however large, made nothing), counted in its budgets
      journalControl(ctx, tenant, {
        kind: 'provider_state',
        change: { state: call.body.state, params: made.used, action: 'setup' },
        answer: made.values,
      });
      return ok(made.values);
    },
  } satisfies Partial<OperationHandlers>;
}
