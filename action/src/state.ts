/**
 * What `main` leaves for the steps after it: the running fake (how to reach it and how to stop it) and where the
 * reports go. Saved with the runner's state for `post` (`STATE_fake`), and as a file whose path `main` exports
 * (`INVESTMENT_API_FAKE_STATE`) for the `report` step, which marks it finished so that `post` does nothing twice.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as core from '@actions/core';

const STATE_NAME = 'fake';
export const STATE_FILE_VARIABLE = 'INVESTMENT_API_FAKE_STATE';

export type Runner = { kind: 'container'; id: string } | { kind: 'process'; pid: number };

export interface FakeState {
  url: string;
  controlToken?: string;
  reportsDir: string;
  /** The fake's output, kept beside the reports. */
  logFile: string;
  stateFile: string;
  failOnFindings: boolean;
  /** Started with `upstream`: the fidelity report is read too. */
  shadow: boolean;
  runner: Runner;
  /** Set by the `report` step once it has written the reports and stopped the fake. */
  finished?: boolean;
}

export function saveFakeState(state: FakeState): void {
  writeFileSync(state.stateFile, JSON.stringify(state), { mode: 0o600 });
  core.saveState(STATE_NAME, JSON.stringify(state));
  core.exportVariable(STATE_FILE_VARIABLE, state.stateFile);
}

/** The state `main` saved for this action's `post`, as the state file has it now; `undefined` when main started nothing. */
export function postState(): FakeState | undefined {
  const saved = core.getState(STATE_NAME);
  if (!saved) return undefined;
  const state = JSON.parse(saved) as FakeState;
  return readStateFile(state.stateFile) ?? state;
}

/** The state of the fake the job's `main` started last (the `report` step's). */
export function exportedState(): FakeState | undefined {
  const file = process.env[STATE_FILE_VARIABLE];
  return file ? readStateFile(file) : undefined;
}

export const markFinished = (state: FakeState): void =>
  writeFileSync(state.stateFile, JSON.stringify({ ...state, finished: true }), { mode: 0o600 });

function readStateFile(file: string): FakeState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as FakeState;
  } catch {
    return undefined;
  }
}
