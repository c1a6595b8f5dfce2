/** `post` (always, even when the job failed): the reports, the job summary, the fake stopped; fails on findings when asked. */
import * as core from '@actions/core';
import { finish } from './finish.js';
import { postState } from './state.js';

async function post(): Promise<void> {
  const state = postState();
  if (!state) return core.info('main started no fake: nothing to report or stop.');
  if (state.finished) return core.info('The report step has written the reports and stopped the fake already.');
  await finish(state);
}

post().catch((error: Error) => core.setFailed(error.message));
