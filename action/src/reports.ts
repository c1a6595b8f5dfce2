/**
 * Reads what the run proved from the fake's control plane, through the package's own typed client, and writes it into
 * the reports folder: each client's readiness report as JUnit; for a client with findings, its session as HAR and as
 * a vitest file; in shadow mode, the fidelity report (JSON and JUnit) and, for a client whose exchanges differed, the
 * vitest file asserting the upstream's answers. What could not be read is said, never thrown: the fake is stopped
 * after this whatever happened.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createControlClient, type ControlClient } from '../../src/control-client.js';
import type { Schemas } from '../../src/api/types.js';
import { fileStems } from './file-names.js';

export interface ClientReports {
  clientId: string;
  /** Absent when it could not be read (`problem` says why). */
  readiness?: Schemas['ReadinessReport'];
  /** Shadow mode's differences in this client's exchanges. */
  differences: Schemas['FidelityDifference'][];
  /** Names of its files in the reports folder. */
  files: string[];
  problem?: string;
}

export interface RunReports {
  clients: ClientReports[];
  /** Shadow mode only. */
  fidelity?: {
    report?: Schemas['FidelityReport'];
    files: string[];
    unattributed: Schemas['FidelityDifference'][];
    problem?: string;
  };
  /** What kept the reports from being read at all. */
  problem?: string;
}

export async function collectReports({
  url,
  controlToken,
  reportsDir,
  shadow,
}: {
  url: string;
  controlToken?: string;
  reportsDir: string;
  shadow: boolean;
}): Promise<RunReports> {
  const control = createControlClient({ url, ...(controlToken !== undefined && { controlToken }) });
  let clientIds: string[];
  try {
    clientIds = (await control.clients()).map((c) => c.client_id);
  } catch (error) {
    return { clients: [], problem: `The fake's clients could not be read: ${messageOf(error)}` };
  }
  const stems = fileStems(clientIds);
  const write = (name: string, text: string) => writeFileSync(join(reportsDir, name), text);
  const clients: ClientReports[] = [];
  for (const clientId of clientIds)
    clients.push(await readinessOf(control.forClient(clientId), clientId, stems.get(clientId)!, write));
  if (!shadow) return { clients };
  return { clients, fidelity: await fidelityOf(control, clients, stems, write) };
}

async function readinessOf(
  control: ControlClient,
  clientId: string,
  stem: string,
  write: (name: string, text: string) => void,
): Promise<ClientReports> {
  const reports: ClientReports = { clientId, differences: [], files: [] };
  const keep = (name: string, text: string) => {
    write(name, text);
    reports.files.push(name);
  };
  try {
    reports.readiness = await control.report();
    keep(`${stem}.junit.xml`, await control.reportJunit());
    if (reports.readiness.findings.length > 0) {
      keep(`${stem}.har`, await control.exportRequests('har'));
      keep(`${stem}.session.test.ts`, await control.exportRequests('vitest'));
    }
  } catch (error) {
    reports.problem = `Its reports could not all be read: ${messageOf(error)}`;
  }
  return reports;
}

async function fidelityOf(
  control: ControlClient,
  clients: ClientReports[],
  stems: Map<string, string>,
  write: (name: string, text: string) => void,
): Promise<NonNullable<RunReports['fidelity']>> {
  const fidelity: NonNullable<RunReports['fidelity']> = { files: [], unattributed: [] };
  try {
    const report = (fidelity.report = await control.fidelity());
    write('fidelity.json', `${JSON.stringify(report, null, 2)}\n`);
    write('fidelity.junit.xml', await control.fidelityJunit());
    fidelity.files.push('fidelity.json', 'fidelity.junit.xml');
    // a difference names its exchange's journal entry; the entry is in the journal of the client that sent it
    const owner = new Map<string, ClientReports>();
    for (const client of clients) {
      for (const entry of await control.forClient(client.clientId).requests({ since: 'start' }))
        owner.set(entry.id, client);
    }
    for (const difference of report.differences) {
      const client = owner.get(difference.request_id);
      if (client) client.differences.push(difference);
      else fidelity.unattributed.push(difference);
    }
    for (const client of clients.filter((c) => c.differences.length > 0)) {
      const name = `${stems.get(client.clientId)!}.fidelity.test.ts`;
      write(name, await control.forClient(client.clientId).fidelityVitest());
      client.files.push(name);
    }
  } catch (error) {
    fidelity.problem = `Shadow mode's report could not all be read: ${messageOf(error)}`;
  }
  return fidelity;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
