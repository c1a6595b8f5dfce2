import type { RequestHandler } from 'express';
import type { RequestListener } from 'node:http';
import { DEFAULTS } from '../config.js';
import type { FakeContext, ShadowModeState } from '../context.js';
import type { RoutableRequest } from '../http/route.js';
import type { RouteMatch } from '../http/route-match.js';
import { upstreamUrl } from '../settings-checks.js';
import { FidelityLog } from './log.js';
import { forwardingStep } from './forwarding.js';
import { Twin } from './twin.js';
import { upstreamClient } from './upstream-client.js';

/** Shadow mode as this module makes it: what the instance holds, with its report. */
export interface ShadowMode extends ShadowModeState {
  fidelity: FidelityLog;
}

/** The instance's shadow mode, or undefined outside it: `ctx.shadow` is only ever made by `shadowMode` below. */
export const shadowModeOf = (ctx: FakeContext): ShadowMode | undefined => ctx.shadow as ShadowMode | undefined;

/**
 * Shadow mode of one server (`--upstream`, docs/shadow-mode.md): the forwarding step for the pipeline, and what the
 * control plane reads (the fidelity log) and `stop()` closes (the upstream's kept-alive sockets, the twin's loopback).
 * Its forwarding step is handed the pipeline's own route step (one router): `route` names its operation.
 */
export function shadowMode(
  ctx: FakeContext,
  app: RequestListener,
  upstream: string,
  route: (req: RoutableRequest) => RouteMatch,
): ShadowMode & { step: RequestHandler } {
  const base = upstreamUrl('upstream', upstream);
  // each twin's findings, and those of exchanges no twin owns
  const fidelity = new FidelityLog(base, { clients: (ctx.options.maxTwins ?? DEFAULTS.maxTwins) + 1 });
  const client = upstreamClient(base, { timeoutMs: ctx.options.upstreamTimeoutMs ?? DEFAULTS.upstreamTimeoutMs });
  const twin = new Twin(ctx, app, fidelity);
  let closed: Promise<void> | undefined;
  return {
    step: forwardingStep(ctx, client, twin, route),
    fidelity,
    close: () =>
      (closed ??= (async () => {
        client.close();
        await twin.close();
      })()),
  };
}
