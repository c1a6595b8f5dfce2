// Every resource type comes from the OpenAPI document (src/api/schema.d.ts, generated); none is written by hand.
import type { components, operations } from './schema.js';

export type Schemas = components['schemas'];
export type OperationId = keyof operations;

export type World = Schemas['World'];
export type FeederFund = Schemas['FeederFund'];
export type ShareClassRecord = Schemas['ShareClassRecord'];
export type ShareClassListItem = Schemas['ShareClassListItem'];
export type ShareClass = Schemas['ShareClass'];
export type AssetRecord = Schemas['AssetRecord'];
export type Asset = Schemas['Asset'];
export type CustomOfferingRecord = Schemas['CustomOfferingRecord'];
export type DocumentRecord = Schemas['DocumentRecord'];
export type Document = Schemas['Document'];
export type DocumentLink = Schemas['DocumentLink'];
export type Account = Schemas['Account'];
export type AccountType = Schemas['AccountType'];
export type Wallet = Schemas['Wallet'];
export type PaymentMethodDetails = Schemas['PaymentMethodDetails'];
export type OrderRecord = Schemas['OrderDetails'];
export type Order = Schemas['Order'];
export type OrderStatus = Schemas['OrderStatus'];
export type OrderSide = Schemas['OrderSide'];
export type OrderMarket = Schemas['OrderMarket'];
export type OrderPaymentMethodDetails = NonNullable<Schemas['OrderPaymentMethodDetails']>;
export type ApiScope = Schemas['ApiScope'];
/** What `GET /__control/export` answers: HAR, a `.http` file, a Pact contract or a vitest file. */
export type ExportFormat = NonNullable<NonNullable<operations['exportRequests']['parameters']['query']>['format']>;
/** A client's settings as the domain holds them: every one set (defaults filled in), every step's seconds too. */
export type ClientSettings = Required<Omit<Schemas['ClientSettings'], 'order_step_seconds'>> & {
  order_step_seconds: Required<NonNullable<Schemas['ClientSettings']['order_step_seconds']>>;
};
export type TokenEndpointAuthMethod = Schemas['TokenEndpointAuthMethod'];

// Every operation's input and answer, typed from the document: a handler never casts what it reads.

type Parameters<Op extends OperationId> = operations[Op]['parameters'];
type Present<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

export type PathOf<Op extends OperationId> = Present<Parameters<Op>['path']>;
/** Query parameters of an operation, as the validator hands them over (coerced, defaults applied). */
export type QueryOf<Op extends OperationId> = Present<Parameters<Op>['query']>;

export type BodyOf<Op extends OperationId> = operations[Op] extends { requestBody: { content: infer C } }
  ? C[keyof C]
  : operations[Op] extends { requestBody?: { content: infer C } }
    ? C[keyof C] | undefined
    : undefined;

type Responses<Op extends OperationId> = operations[Op]['responses'];
type SuccessStatus<Op extends OperationId> = Extract<keyof Responses<Op>, 200 | 201 | 202 | 204>;
// JSON is the answer's value; any other media type (a PDF, JUnit XML, a .http file) is bytes.
type ContentOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer J }
    ? J | (Exclude<keyof C, 'application/json'> extends never ? never : Buffer)
    : Buffer
  : undefined;

/** What an operation answers when it succeeds: one of its success statuses with that status's body. */
export type AnswerOf<Op extends OperationId> = {
  [S in SuccessStatus<Op>]: {
    status: S;
    body: ContentOf<Responses<Op>[S]>;
    headers?: Record<string, string>;
    /** For bodies other than JSON. */
    contentType?: string;
  };
}[SuccessStatus<Op>];
