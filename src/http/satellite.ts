import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeContext, OpenState } from '../context.js';
import type { OperationHandlers } from './operation.js';
import type { MadeStep, SatelliteSlot } from './pipeline.js';
import type { RoutableRequest } from './route.js';
import type { RouteMatch } from './route-match.js';

/** What the core hands a satellite's steps: the instance, the app they are mounted in, the route step's router. */
export interface SatelliteAttachment {
  readonly ctx: FakeContext;
  readonly app: RequestListener;
  readonly route: (req: RoutableRequest) => RouteMatch;
}

/** What a satellite starts beside a listening instance, which `stop()` closes before the server drains. */
export interface Started {
  close(): Promise<void>;
}

/**
 * What attaches to the core from outside it (proof, shadow mode, MCP, persistence, the demo): what it keeps across
 * starts (`createContext`'s `openState`), the request steps it fills (the slots http/pipeline.ts marks as a
 * satellite's), the control operations it answers, and what it starts once the instance listens. `buildApp` composes
 * the ones it is given; given none, the core serves what it has.
 */
export interface Satellite {
  readonly name: string;
  readonly openState?: OpenState;
  steps?(attachment: SatelliteAttachment): Partial<Record<SatelliteSlot, MadeStep>>;
  handlers?(ctx: FakeContext): Partial<OperationHandlers>;
  listening?(ctx: FakeContext, address: AddressInfo): Started | undefined;
}
