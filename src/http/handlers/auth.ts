import { randomUUID } from 'node:crypto';
import type { FakeContext } from '../../context.js';
import { BASE_SCOPES, API_SCOPES, CONTROL_SCOPE } from '../../domain/scopes.js';
import { basicCredentials } from '../../auth/basic-credentials.js';
import { grantClientCredentials } from '../../domain/token-request.js';
import { ok, type OperationHandlers } from '../operation.js';
import { audiencesOf } from '../request-context.js';

/** The document's `auth` tag: the token endpoint and what a client discovers of it. */
export function authHandlers(ctx: Pick<FakeContext, 'keys' | 'options' | 'tenants'>) {
  return {
    createToken: async ({ body, baseUrl, header }) => {
      const basic = basicCredentials(header('authorization'));
      const { tenant, audience, scope } = grantClientCredentials(ctx.tenants, body, audiencesOf(baseUrl), basic);
      // an instance answers before the process's key pair is made (src/cli.ts, startServer())
      await ctx.keys.ready();
      const iat = tenant.clock.nowSeconds();
      const ttl = ctx.options.tokenTtlSeconds;
      const clientId = tenant.client.client_id;
      // a control token's authority lasts its lifetime in real time too (control/guard.ts), whatever the clock says
      const controlUntil = scope.split(' ').includes(CONTROL_SCOPE)
        ? { control_until: Math.floor(Date.now() / 1000) + ttl }
        : {};
      const claims = {
        iss: baseUrl,
        aud: audience,
        sub: clientId,
        client_id: clientId,
        scope,
        iat,
        exp: iat + ttl,
        // a UUID; a registered client's begins with its registration (src/auth/jwt.ts refuses one that does not)
        jti: `${tenant.client.registration ?? ''}${randomUUID().slice(tenant.client.registration?.length ?? 0)}`,
        ...controlUntil,
      };
      const accessToken = ctx.keys.sign(claims);
      return {
        status: 200,
        body: { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, scope },
        headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      };
    },
    getJwks: async () => {
      await ctx.keys.ready();
      return ok(ctx.keys.jwks());
    },
    getOpenidConfiguration: ({ baseUrl }) =>
      ok({
        issuer: baseUrl,
        token_endpoint: `${baseUrl}/oauth2/token`,
        jwks_uri: `${baseUrl}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        scopes_supported: [...BASE_SCOPES, ...API_SCOPES, CONTROL_SCOPE],
        response_types_supported: ['token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        id_token_signing_alg_values_supported: ['RS256'],
        subject_types_supported: ['public'],
      }),
  } satisfies Partial<OperationHandlers>;
}
