import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { AnswerMismatch } from '../../src/api/document.js';
import type { World } from '../../src/api/types.js';
import { StartRefused } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { REQUEST_STEPS } from '../../src/http/pipeline.js';
import { SATELLITES } from '../../src/satellites.js';
import { architectureTable, codeIn, importGraph, SRC } from '../support/architecture.js';
import { bearer, http, tokenFor } from '../support/test-app.js';

/** SATELLITES.md's table of the seam: each one's name and the files or folders of its code. */
const TABLE = architectureTable('## The seam', 'SATELLITES.md').map(([name = '', code = '']) => ({
  name: codeIn(name)[0]!,
  code: codeIn(code).map((unit) => unit.replace(/\/$/, '')),
}));

const { graph } = importGraph();
/** Every file the core's two entries (`buildApp`, `createContext`) reach through their imports, type imports too. */
function coreFiles(): Set<string> {
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const target of graph.get(file) ?? []) visit(target);
  };
  for (const entry of ['app.ts', 'context.ts']) visit(join(SRC, entry));
  return reached;
}

const ofSatellite = (file: string): string | undefined => {
  const path = relative(SRC, file);
  return TABLE.find(({ code }) => code.some((unit) => path === unit || path.startsWith(`${unit}/`)))?.name;
};

describe('the satellites attach through one seam', () => {
  it('SATELLITES lists the satellites of SATELLITES.md, in its order, and each unit of their code exists', () => {
    expect(SATELLITES.map((satellite) => satellite.name)).toEqual(TABLE.map(({ name }) => name));
    expect(TABLE.flatMap(({ code }) => code).filter((unit) => !existsSync(join(SRC, unit)))).toEqual([]);
  });

  it("no file the core imports is a satellite's, nor the seam itself", () => {
    const reached = [...coreFiles()];
    expect(reached.length).toBeGreaterThan(50);
    expect(reached.filter((file) => ofSatellite(file) !== undefined).map((file) => relative(SRC, file))).toEqual([]);
    expect(reached.map((file) => relative(SRC, file))).not.toContain('satellites.ts');
  });

  it('every slot of the pipeline a satellite fills is filled by one of them, by name', () => {
    const slots = REQUEST_STEPS.filter((step) => 'satellite' in step).map((step) => step.name);
    expect(slots).toEqual(['shadow mode', 'mcp']);
    // the slots are filled by name: shadow mode's only with an upstream, MCP's always
    const ctx = createContext({ upstream: 'http://127.0.0.1:9', allowedHosts: ['.test'] });
    const filled = SATELLITES.flatMap((satellite) =>
      Object.keys(satellite.steps?.({ ctx, app: () => {}, route: () => ({}) as never }) ?? {}),
    );
    expect(filled.sort()).toEqual([...slots].sort());
  });
});

describe('the core alone (no satellite)', () => {
  const mismatches: AnswerMismatch[] = [];
  const core = (): Express =>
    buildApp(
      createContext({ allowedHosts: ['.test'], validateResponses: (mismatch) => void mismatches.push(mismatch) }),
      { partial: true },
    );

  it("serves a partner's session: a token, reads, an account, an order placed and cancelled, a reset", async () => {
    const app = core();
    const auth = bearer(await tokenFor(app));
    const accounts = await http(app).get('/v1/accounts').set(auth).expect(200);
    expect(accounts.body.data.length).toBeGreaterThan(0);
    await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send({ type: 'individual', external_id: 'core-alone-1' })
      .expect(201);
    await http(app).get('/v1/share-classes?limit=5').set(auth).expect(200);
    const world = (await http(app).get('/__control/state').expect(200)).body as World;
    const account = world.accounts.find(
      (a) =>
        world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    )!;
    const placed = await http(app)
      .post('/__control/orders')
      .send({
        account_id: account.id,
        isin: world.assets.find((a) => a.tradeable)!.isin,
        side: 'BUY',
        market: 'SECONDARY',
        amount_of_units: 1,
        value: 1000,
      })
      .expect(201);
    const cancelled = await http(app).delete(`/v1/orders/${placed.body.id}/`).set(auth).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    await http(app).post('/__control/reset').expect(204);
    await http(app).get('/__control/requests').expect(200);
    expect(mismatches).toEqual([]);
  });

  it("answers a satellite's operations and paths as paths the document does not have: 404, nothing else", async () => {
    const app = core();
    for (const path of ['/__control/export', '/__control/report', '/__control/fidelity', '/__control/mcp']) {
      const response = await http(app).get(path);
      expect(response.status, path).toBe(404);
      expect(response.body.code, path).toBe('route_not_found');
    }
    const verify = await http(app)
      .post('/__control/verify')
      .send({ request: { method: 'GET' } });
    expect([verify.status, verify.body.code]).toEqual([404, 'route_not_found']);
  });

  it('refuses STATE_DIR and SIGNING_KEY_FILE, naming the satellite they need', () => {
    expect(() => createContext({ stateDir: '/nonexistent' })).toThrow(StartRefused);
    expect(() => createContext({ stateDir: '/nonexistent' })).toThrow('STATE_DIR needs the persistence satellite');
    expect(() => createContext({ signingKeyFile: '/nonexistent' })).toThrow(
      'SIGNING_KEY_FILE needs the persistence satellite',
    );
  });

  it('refuses to start as the product when an operation has no handler: every satellite answers its own', () => {
    const ctx = createContext({ allowedHosts: ['.test'] });
    expect(() => buildApp(ctx)).toThrow(/^Operations without a handler: .*exportRequests/);
    expect(() => buildApp(ctx, { satellites: SATELLITES })).not.toThrow();
  });
});
