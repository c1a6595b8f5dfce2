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
export type ClientSettings = Required<Schemas['ClientSettings']>;

/** Query parameters of an operation, as the validator hands them over (coerced, defaults applied). */
export type QueryOf<Op extends OperationId> = operations[Op] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;
