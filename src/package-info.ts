import { existsSync, readFileSync } from 'node:fs';

/** The package's name: what the fake calls itself (HAR creator, banner, logs). */
export const PACKAGE_NAME = 'investment-api-fake';

let version: string | undefined;

/**
 * The package's version, from its package.json: the one version string wherever the fake names itself (`--version`,
 * the banner, the HAR creator; the image's label is checked against it). The OpenAPI document keeps the API's own
 * version. Found by walking up from this module, which runs from src/ (tests), dist/src/ or dist/bundle/ (a chunk),
 * in a checkout or under node_modules; read once per process and never changed.
 */
export function packageVersion(): string {
  if (version !== undefined) return version;
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return (version = manifest.version);
    }
    if (new URL('../', dir).href === dir.href) return (version = '0.0.0-unknown');
  }
}

/**
 * The image this package publishes, as the Testcontainers module and the GitHub Action start it: its name at this
 * version, its port with a bridge network (`EXPOSE`), where it keeps `STATE_DIR` (owned by its `node` user, uid 1000).
 */
export const publishedImage = (): string => `ghcr.io/investment-platform/${PACKAGE_NAME}:${packageVersion()}`;
export const CONTAINER_PORT = 8080;
export const STATE_MOUNT = '/state';
