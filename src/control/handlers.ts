import type { FakeContext } from '../context.js';
import { createClient, resetTenants, updateClient, type ClientCreate, type ClientUpdate } from '../domain/clients.js';
import { DomainError } from '../api/errors.js';
import type { Schemas, World } from '../api/types.js';
import { checkWorld } from '../domain/world.js';
import { param, type OperationHandlers } from '../http/operation-handlers.js';
import { controlTenant } from './tenant.js';

type ControlOperations =
  | 'getHealth'
  | 'resetWorld'
  | 'getState'
  | 'replaceState'
  | 'createClient'
  | 'updateClient'
  | 'getClock'
  | 'setClock';

export function controlHandlers(ctx: FakeContext): Pick<OperationHandlers, ControlOperations> {
  return {
    getHealth: (_req, res) => {
      res.json({ status: 'ok' });
    },
    resetWorld: (req, res) => {
      const body = (req.body ?? {}) as Schemas['ResetRequest'];
      resetTenants(ctx.tenants, ctx.journal, body.client_id);
      res.status(204).end();
    },
    getState: (req, res) => {
      res.json(controlTenant(req, ctx).store.snapshot());
    },
    replaceState: (req, res) => {
      const tenant = controlTenant(req, ctx);
      const world = req.body as World;
      const errors = checkWorld(world);
      if (errors.length > 0) {
        throw new DomainError(422, 'invalid_world', `The snapshot breaks ${errors.length} rule(s) of a world; nothing was changed.`, errors);
      }
      tenant.replaceWorld(world);
      res.status(204).end();
    },
    createClient: (req, res) => {
      res.status(201).json(createClient(ctx.tenants, req.body as ClientCreate));
    },
    updateClient: (req, res) => {
      res.json(updateClient(ctx.tenants, param(req, 'client_id'), req.body as ClientUpdate));
    },
    getClock: (req, res) => {
      res.json({ now: controlTenant(req, ctx).clock.now().toISOString() });
    },
    setClock: (req, res) => {
      const { clock } = controlTenant(req, ctx);
      const change = req.body as Schemas['ClockChange'];
      if (change.now !== undefined) clock.set(new Date(change.now));
      else if (change.advance_seconds !== undefined) clock.advance(change.advance_seconds);
      res.json({ now: clock.now().toISOString() });
    },
  };
}
