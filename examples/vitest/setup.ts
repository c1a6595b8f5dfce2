// Each test file's setup (vitest setupFiles): the fake's matchers, registered on expect and typed there by the import.
import 'investment-api-fake/vitest';
