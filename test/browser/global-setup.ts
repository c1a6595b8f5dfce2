// The browser suite needs Debian's Chromium (`apt-get install chromium`) and the built console. Without either it
// fails, naming the fix: a suite that skips itself would pass in CI while testing nothing (CI=true never skips).
import { accessSync, constants, existsSync } from 'node:fs';
import { CHROMIUM } from './support.js';

export default function checkBrowser(): void {
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    throw new Error(
      `No Chromium at ${CHROMIUM}${process.env.CI === 'true' ? ' (CI=true: the browser suite never skips)' : ''}. ` +
        "Install Debian's: apt-get update && apt-get install -y --no-install-recommends chromium (or set CHROMIUM_PATH). Never a browser download.",
    );
  }
  if (!existsSync(new URL('../../dist/console/index.html', import.meta.url))) {
    throw new Error(
      'The console is not built: run `npm run test:browser` (it builds it first) or `npm run build:console`.',
    );
  }
}
