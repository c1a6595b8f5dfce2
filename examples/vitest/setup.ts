// Each test file's setup (vitest setupFiles): the fake's matchers, typed on expect by the import.
import { expect } from 'vitest';
import { matchers } from 'investment-api-fake/vitest';

expect.extend(matchers);
