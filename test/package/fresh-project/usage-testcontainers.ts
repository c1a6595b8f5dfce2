// A partner's strict usage of `investment-api-fake/testcontainers`, with `testcontainers` installed beside the
// package. Type-checked (not run) by test/package/pack-install.test.ts, with strict on and skipLibCheck off.
import type { StartedTestContainer } from 'testcontainers';
import {
  InvestmentApiFakeContainer,
  type ClientCredentials,
  type StartedInvestmentApiFakeContainer,
} from 'investment-api-fake/testcontainers';
import type { ControlClient, World } from 'investment-api-fake';

export async function typedContainer(): Promise<void> {
  const container = new InvestmentApiFakeContainer('ghcr.io/investment-platform/investment-api-fake:0.1.0')
    .withSeed(7)
    .withClients([{ client_id: 'acme', client_secret: 's3cret', token_endpoint_auth_method: 'client_secret_basic' }])
    .withControlToken('ci-control-token')
    .withDemo()
    .withStateDir('/tmp/fake-state')
    .withEnvironment({ LOG_LEVEL: 'debug' });
  await using fake: StartedInvestmentApiFakeContainer = await container.start();
  const started: StartedTestContainer = fake;
  const credentials: ClientCredentials = fake.getClientCredentials('acme');
  const token: string = await fake.token('acme', { fresh: true });
  const control: ControlClient = fake.control;
  const world: World = await control.snapshot();
  await control.restore(world);
  console.log(started.getId(), credentials.audience, token, fake.getBaseUrl(), fake.getTokenUrl());
  // @ts-expect-error a seed is a number
  container.withSeed('7');
  await fake.stop();
}
