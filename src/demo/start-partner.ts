// Starting the demo partner beside a listening fake (the CLI's and `startServer`'s): its client and tenant, then its
// session over HTTP. The client's secret is drawn here and stays in the process (the control plane lists it, as it
// lists every client's).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DEFAULTS } from '../config.js';
import type { FakeContext } from '../context.js';
import { DEMO_SETTINGS, toClientRecord, type ClientCreate } from '../domain/clients.js';
import { API_SCOPES, CONTROL_SCOPE } from '../domain/scopes.js';
import { DomainError } from '../api/errors.js';
import { DemoPartner } from './partner.js';

const DEMO_PARTNER_ID = 'demo-partner';

/** Whether these options run a demo partner: under `demo`, unless `demoPartner: false` or in shadow mode (the API is the upstream's there). */
export const runsDemoPartner = (options: FakeContext['options']): boolean =>
  options.demo === true && options.demoPartner !== false && options.upstream === undefined;

const ALL_INTERFACES: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1', '::0': '::1' };

/** The URL this process reaches the server at: a loopback address when it listens on all interfaces. */
function localUrlOf(address: AddressInfo): string {
  const host = ALL_INTERFACES[address.address] ?? address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * The demo partner of a listening fake, started, or undefined when the options run none (or MAX_TENANTS leaves it no
 * room: a warning says so). A `demo-partner` client the fake already has (kept in STATE_DIR, or configured) is used as
 * it is; otherwise it is added with every API scope and `control` (its test rig resets its own tenant and places its
 * investors' orders), and the demo's moving world.
 */
export function startDemoPartner(ctx: FakeContext, address: AddressInfo): DemoPartner | undefined {
  if (!runsDemoPartner(ctx.options)) return undefined;
  if (!ctx.tenants.find(DEMO_PARTNER_ID)) {
    const client: ClientCreate = {
      client_id: DEMO_PARTNER_ID,
      client_secret: randomBytes(18).toString('base64url'),
      scopes: [...API_SCOPES, CONTROL_SCOPE],
      settings: DEMO_SETTINGS,
    };
    try {
      ctx.tenants.add(toClientRecord(client));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      ctx.logger.warn(`no demo partner: ${error.message}`);
      return undefined;
    }
  }
  ctx.tenants.demoPartnerId = DEMO_PARTNER_ID;
  const local = localUrlOf(address);
  let warned = false;
  return new DemoPartner({
    baseUrl: local,
    audience: new URL(ctx.options.baseUrl ?? local).host,
    credentials: () => {
      const { client } = ctx.tenants.get(DEMO_PARTNER_ID);
      return {
        clientId: client.client_id,
        clientSecret: client.client_secret,
        authMethod: client.token_endpoint_auth_method,
      };
    },
    seed: `${ctx.options.seed ?? DEFAULTS.seed}:${DEMO_PARTNER_ID}`,
    ...(ctx.options.demoPartnerIntervalMs !== undefined && { intervalMs: ctx.options.demoPartnerIntervalMs }),
    // said once: a round fails again and again when, say, a fault injected on its tenant answers 500
    onError: (error) => {
      const message = `the demo partner's round failed: ${error instanceof Error ? error.message : String(error)}`;
      if (warned) ctx.logger.debug(message);
      else ctx.logger.warn(`${message} (said once; later ones at debug)`);
      warned = true;
    },
  }).start();
}
