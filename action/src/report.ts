/**
 * The `report` step (`investment-platform/investment-api-fake/report`): what `post` does, at this point of the job,
 * so that a later step (`actions/upload-artifact`) finds the files; `post` then has nothing left to do.
 */
import * as core from '@actions/core';
import { finish } from './finish.js';
import { exportedState, markFinished, STATE_FILE_VARIABLE } from './state.js';

async function report(): Promise<void> {
  const state = exportedState();
  if (!state)
    throw new Error(
      `No fake to report on (${STATE_FILE_VARIABLE} is not set): use investment-platform/investment-api-fake in an earlier step of this job.`,
    );
  if (state.finished) return core.info('The reports are written and the fake is stopped already.');
  try {
    await finish(state);
  } finally {
    markFinished(state);
  }
}

report().catch((error: Error) => core.setFailed(error.message));
