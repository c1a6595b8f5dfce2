import type { AnswerOf, BodyOf, OperationId, PathOf, QueryOf } from '../api/types.js';
import type { Tenant } from '../domain/tenants.js';

/** One call of an operation, as its handler sees it. */
export interface OperationCall<Op extends OperationId> {
  readonly path: PathOf<Op>;
  readonly query: QueryOf<Op>;
  readonly body: BodyOf<Op>;
  /** The public base URL of the request: `BASE_URL`, else its scheme and `Host`. */
  readonly baseUrl: string;
  /** The tenant of the verified access token; only operations secured by OAuth have one (others throw). */
  readonly tenant: Tenant;
  /** A control call by a partner's own token (scope `control`): the only tenant it may act on; absent for the operator. */
  readonly controlPartner: Tenant | undefined;
  header(name: string): string | undefined;
  /** The request proved to be this tenant's by other means than a token (a signed document link): journal it so. */
  attribute(tenant: Tenant): void;
}

export type OperationHandler<Op extends OperationId> = (
  call: OperationCall<Op>,
) => AnswerOf<Op> | Promise<AnswerOf<Op>>;

/** One handler per operationId of the document: a missing one is a compile error (and a startup error). */
export type OperationHandlers = { [Op in OperationId]: OperationHandler<Op> };

export const ok = <B>(body: B) => ({ status: 200 as const, body });
export const created = <B>(body: B) => ({ status: 201 as const, body });
export const noContent = () => ({ status: 204 as const, body: undefined });
