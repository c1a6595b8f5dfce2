/** The library API of investment-api-fake. */
// First: starts the process's key pair on the thread pool while the modules below load.
import './auth/key-pair-early.js';
export { startServer, type FakeServer, type ProofOptions, type TokenOptions } from './server.js';
export { createApp } from './satellites.js';
export {
  createControlClient,
  fetchToken,
  ControlError,
  VerificationError,
  type ControlClient,
  type ControlClientOptions,
  type FetchTokenOptions,
  type RequestCount,
  type RequestPattern,
} from './control-client.js';
export type { FakeOptions } from './config.js';
export { DomainError } from './api/errors.js';
export type { ClientCreate, ClientView } from './domain/clients.js';
export type { World, Schemas, TokenEndpointAuthMethod } from './api/types.js';
export type { components, operations, paths } from './api/schema.js';
