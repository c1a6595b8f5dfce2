import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { buildApp, type AppParts } from './app.js';
import type { FakeOptions } from './config.js';
import { createContext, logStartWarnings, type FakeContext } from './context.js';
import { openState } from './persistence/keeping.js';
import { proofHandlers } from './control/proof-handlers.js';
import { startDemoPartner } from './demo/start-partner.js';
import type { Satellite, Started } from './http/satellite.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { fidelityHandlers } from './shadow/fidelity-handlers.js';
import { shadowMode } from './shadow/shadow-mode.js';

/**
 * The seam: everything that attaches to the core from outside it, in one list (SATELLITES.md, "The seam").
 * The core (`buildApp`, src/app.ts) imports none of them; the product is the core with these.
 */
export const SATELLITES: readonly Satellite[] = [
  // STATE_DIR (and SIGNING_KEY_FILE): tenants and the signing key kept across restarts (src/persistence/)
  { name: 'persistence', openState },
  // the readiness report, verify and the exports, read from the journal the core keeps (src/proof/)
  { name: 'proof', handlers: proofHandlers },
  {
    // --upstream: the token request and /v1 go to the upstream, journaled as any request (src/shadow/)
    name: 'shadow',
    steps({ ctx, app, route }) {
      if (ctx.options.upstream === undefined) return {};
      const shadow = shadowMode(ctx, app, ctx.options.upstream, route);
      ctx.shadow = shadow;
      return { 'shadow mode': shadow.step };
    },
    handlers: fidelityHandlers,
  },
  // the control plane as MCP tools at /__control/mcp (src/mcp/)
  { name: 'mcp', steps: ({ ctx, app }) => ({ mcp: mcpEndpoint(ctx, app) }) },
  // --demo: a partner's session against the listening fake (src/demo/)
  { name: 'demo', listening: startDemoPartner },
];

/** An instance of the product: what its satellites kept, opened. */
export const productContext = (options: FakeOptions = {}): FakeContext =>
  createContext(options, SATELLITES.find((satellite) => satellite.openState)?.openState);

/** The pipeline of the product: the core with every satellite. */
export const productApp = (ctx: FakeContext, parts: Omit<AppParts, 'satellites'> = {}): Express =>
  buildApp(ctx, { ...parts, satellites: SATELLITES });

/** What the satellites start once an instance listens, by satellite: `stop()` closes each (`closeStarted`). */
export const startSatellites = (ctx: FakeContext, address: AddressInfo): Record<string, Started> =>
  Object.fromEntries(
    SATELLITES.flatMap((satellite) => {
      const started = satellite.listening?.(ctx, address);
      return started ? [[satellite.name, started]] : [];
    }),
  );

export const closeStarted = async (started: Record<string, Started>): Promise<void> => {
  await Promise.all(Object.values(started).map((each) => each.close()));
};

/** The Express app of a fresh instance, for supertest or mounting; it never listens. */
export function createApp(options: FakeOptions = {}): Express {
  const ctx = productContext(options);
  logStartWarnings(ctx);
  return productApp(ctx);
}
