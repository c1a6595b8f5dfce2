/**
 * The end of the fake's run, for `post` and for the `report` step alike: the reports read and written, the job
 * summary, the fake stopped (whatever happened before), and the verdict of `fail-on-findings`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@actions/core';
import { packageVersion } from '../../src/package-info.js';
import { collectReports } from './reports.js';
import type { FakeState } from './state.js';
import { stopFake } from './stop.js';
import { findingsOf, renderSummary } from './summary.js';

/** The docs of this version, where a finding's `docs` (`docs/readiness.md#<rule>`) is read. */
const DOCS_BASE = `https://github.com/investment-platform/investment-api-fake/blob/v${packageVersion()}/`;

export async function finish(state: FakeState): Promise<void> {
  let failure: string | undefined;
  try {
    const run = await collectReports(state);
    const markdown = renderSummary(run, {
      reportsDir: state.reportsDir,
      failOnFindings: state.failOnFindings,
      docsBase: DOCS_BASE,
    });
    writeFileSync(join(state.reportsDir, 'summary.md'), markdown);
    await core.summary
      .addRaw(markdown)
      .write()
      .catch((error: Error) => core.warning(`The job summary could not be written: ${error.message}`));
    const { findings, differences } = findingsOf(run);
    const said = [
      findings > 0 ? `${findings} readiness finding(s)` : '',
      differences > 0 ? `${differences} difference(s) from the upstream` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    if (said) core.info(`${said}: see the job summary; the files are in ${state.reportsDir}.`);
    else core.info(`No findings; the reports are in ${state.reportsDir}.`);
    if (state.failOnFindings && said) failure = `${said}, and fail-on-findings is true.`;
    const problem = run.problem ?? run.fidelity?.problem ?? run.clients.find((c) => c.problem)?.problem;
    if (problem) {
      core.warning(problem);
      if (state.failOnFindings)
        failure ??= `${problem} (fail-on-findings is true: a report that was not read proves nothing).`;
    }
  } finally {
    await stopFake(state.runner, state.logFile).then(
      () => core.info('The fake is stopped.'),
      (error: Error) => core.warning(`The fake could not be stopped: ${error.message}`),
    );
  }
  if (failure) core.setFailed(failure);
}
