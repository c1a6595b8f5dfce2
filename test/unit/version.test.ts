import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/package-info.js';
import { banner } from '../../src/banner.js';
import { startServer } from '../../src/index.js';
import { loadApiDocument } from '../../src/api/document.js';

// One version string wherever the fake names itself: the package's. The OpenAPI document keeps the API's own.
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };

describe('the fake names itself by the package version', () => {
  it('packageVersion() reads package.json', () => {
    expect(packageVersion()).toBe(pkg.version);
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(?:-[\w.]+)?$/);
  });

  it('the image is labelled with it when built without a VERSION (a local build)', () => {
    const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
    expect(dockerfile).toContain(`ARG VERSION=${pkg.version}\n`);
    expect(dockerfile).toContain('org.opencontainers.image.version="${VERSION}"');
  });

  it('the HAR export names it as its creator; the document keeps the API version', async () => {
    const fake = await startServer();
    try {
      const har = JSON.parse(await fake.control.exportRequests('har')) as {
        log: { creator: { name: string; version: string } };
      };
      expect(har.log.creator).toEqual({ name: 'investment-api-fake', version: pkg.version });
      const served = (await (await fetch(`${fake.url}/openapi.json`)).json()) as { info: { version: string } };
      expect(served.info.version).toBe(
        (loadApiDocument().document as unknown as { info: { version: string } }).info.version,
      );
      expect(served.info.version).not.toBe('');
    } finally {
      await fake.stop();
    }
  });

  it('the banner says it', () => {
    const text = banner({
      version: packageVersion(),
      address: { address: '127.0.0.1', port: 8080, family: 'IPv4' },
      options: {},
      defaultClient: { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      clientCount: 1,
    } as never);
    expect(text).toContain(`investment-api-fake ${pkg.version} `);
  });
});
