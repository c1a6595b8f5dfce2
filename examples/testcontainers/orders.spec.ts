// The fake's image started from a test with Testcontainers (https://node.testcontainers.org), the way most partner
// suites start their dependencies. Named *.spec.ts so that the plain `examples` project (Node alone) leaves it out:
// it needs a Docker engine and runs in `npm run test:container`.
//
// FAKE_IMAGE picks the image (default: the published one). FAKE_NETWORK=host is for engines without a bridge
// network, such as this repository's CI machine: the container shares the host's network on a free port, and the
// wait strategy is the image's own HEALTHCHECK (also on /__control/health), since there is no mapped port to poll.
import { createServer } from 'node:net';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createControlClient, fetchToken, type ControlClient } from 'investment-api-fake';

const IMAGE = process.env.FAKE_IMAGE ?? 'ghcr.io/investment-platform/investment-api-fake:latest';
const CONTROL_TOKEN = 'ci-control-token';

let container: StartedTestContainer;
let url: string;
let control: ControlClient;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  const fake = new GenericContainer(IMAGE).withEnvironment({ SEED: '1', CONTROL_TOKEN });
  if (process.env.FAKE_NETWORK === 'host') {
    const port = await freePort();
    container = await fake.withNetworkMode('host').withEnvironment({ PORT: String(port) }).withWaitStrategy(Wait.forHealthCheck()).start();
    url = `http://127.0.0.1:${port}`;
  } else {
    container = await fake.withExposedPorts(8080).withWaitStrategy(Wait.forHttp('/__control/health', 8080).forStatusCode(200)).start();
    url = `http://${container.getHost()}:${container.getMappedPort(8080)}`;
  }
  control = createControlClient({ url, controlToken: CONTROL_TOKEN });
}, 120_000);

afterAll(() => container?.stop());
beforeEach(() => control.reset());

it('reads the seeded catalog with a client-credentials token', async () => {
  const token = await fetchToken(url, 'sandbox-client', 'sandbox-secret');
  const response = await fetch(`${url}/v1/share-classes?limit=2`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(2);
});

it('answers an injected 503 the way production would under load', async () => {
  await control.addFault({ method: 'GET', path: '/v1/orders', status: 503, count: 1 });
  const token = await fetchToken(url, 'sandbox-client', 'sandbox-secret');
  const first = await fetch(`${url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
  expect(first.status).toBe(503);
  expect(first.headers.get('retry-after')).toBe('1');
  expect((await fetch(`${url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
});
