import type { FakeContext } from '../context.js';
import type { FaultCreate } from '../harness/faults.js';
import { compilePathPattern } from '../harness/path-pattern.js';
import { readinessFindings } from '../harness/readiness-report.js';
import { param, queryOf, type OperationHandlers } from '../http/operation-handlers.js';
import { controlTenant, namedClientId } from './tenant.js';

type HarnessOperations = 'listFaults' | 'addFault' | 'clearFaults' | 'removeFault' | 'listRequests' | 'getReadinessReport';

/** The partner test harness: injected faults, the request journal and the readiness report built on it. */
export function harnessHandlers(ctx: FakeContext): Pick<OperationHandlers, HarnessOperations> {
  return {
    listFaults: (req, res) => {
      res.json({ data: controlTenant(req, ctx).faults.list() });
    },
    addFault: (req, res) => {
      res.status(201).json(controlTenant(req, ctx).faults.add(req.body as FaultCreate));
    },
    clearFaults: (req, res) => {
      controlTenant(req, ctx).faults.clear();
      res.status(204).end();
    },
    removeFault: (req, res) => {
      controlTenant(req, ctx).faults.remove(param(req, 'fault_id'));
      res.status(204).end();
    },
    listRequests: (req, res) => {
      const { method, path } = queryOf<{ method?: string; path?: string }>(req);
      const clientId = namedClientId(req);
      const matchesPath = path === undefined ? () => true : compilePathPattern(path);
      const records = ctx.journal.records(
        ({ entry }) =>
          (method === undefined || entry.method === method.toUpperCase()) &&
          matchesPath(entry.path) &&
          (clientId === undefined || entry.client_id === clientId),
      );
      res.json({ data: records.map((r) => r.entry) });
    },
    getReadinessReport: (req, res) => {
      const clientId = controlTenant(req, ctx).client.client_id;
      const records = ctx.journal.records((r) => r.clientId === clientId);
      res.json({ client_id: clientId, findings: readinessFindings(records, ctx.options.tokenTtlSeconds) });
    },
  };
}
