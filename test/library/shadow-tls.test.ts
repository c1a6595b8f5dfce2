import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { trustedCertificates } from '../../src/shadow/trust.js';

const CERT = fileURLToPath(new URL('../support/tls/upstream-cert.pem', import.meta.url));
const KEY = fileURLToPath(new URL('../support/tls/upstream-key.pem', import.meta.url));

let upstream: https.Server;
let url: string;
const started: FakeServer[] = [];
const before = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  // an upstream behind TLS with a certificate no public authority signed (a company's own CA, say)
  upstream = https.createServer({ cert: readFileSync(CERT), key: readFileSync(KEY) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterEach(async () => {
  if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = before;
  for (const fake of started.splice(0)) await fake.stop();
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      upstream.closeAllConnections();
      upstream.close(() => resolve());
    }),
);

it('trusts an HTTPS upstream signed by a CA named in NODE_EXTRA_CA_CERTS', async () => {
  process.env.NODE_EXTRA_CA_CERTS = CERT;
  const fake = await startServer({ upstream: url });
  started.push(fake);
  const answer = await fetch(`${fake.url}/v1/assets`);
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe('{"data":[]}');
});

it('refuses it otherwise: 502 upstream_unreachable naming the certificate problem', async () => {
  delete process.env.NODE_EXTRA_CA_CERTS;
  const fake = await startServer({ upstream: url });
  started.push(fake);
  const answer = await fetch(`${fake.url}/v1/assets`);
  expect(answer.status).toBe(502);
  expect(((await answer.json()) as { detail: string }).detail).toMatch(
    /cannot be reached \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/,
  );
});

it("adds the system's trust store and NODE_EXTRA_CA_CERTS to Node's own roots", () => {
  const own = trustedCertificates({});
  expect(own.length).toBeGreaterThan(100);
  const withExtra = trustedCertificates({ NODE_EXTRA_CA_CERTS: CERT });
  expect(withExtra).toContain(readFileSync(CERT, 'utf8').trim());
  expect(withExtra.length).toBe(own.length + 1);
});
