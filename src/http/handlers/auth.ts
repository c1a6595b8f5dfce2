import { randomUUID } from 'node:crypto';
import type { FakeContext } from '../../context.js';
import { BASE_SCOPES, API_SCOPES } from '../../domain/scopes.js';
import { grantClientCredentials, type TokenRequest } from '../../domain/token-request.js';
import { basicCredentials } from '../../auth/basic-credentials.js';
import type { OperationHandlers } from '../operation-handlers.js';
import { audiencesOf, baseUrlOf } from '../request-context.js';

export function authHandlers(ctx: FakeContext): Pick<OperationHandlers, 'createToken' | 'getJwks' | 'getOpenidConfiguration'> {
  return {
    createToken: (req, res) => {
      const baseUrl = baseUrlOf(req, ctx);
      const basic = basicCredentials(req.get('authorization'));
      const { tenant, audience, scope } = grantClientCredentials(ctx.tenants, req.body as TokenRequest, audiencesOf(baseUrl), basic);
      const iat = tenant.clock.nowSeconds();
      const ttl = ctx.options.tokenTtlSeconds;
      const clientId = tenant.client.client_id;
      const accessToken = ctx.keys.sign({
        iss: baseUrl,
        aud: audience,
        sub: clientId,
        client_id: clientId,
        scope,
        iat,
        exp: iat + ttl,
        jti: randomUUID(),
      });
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
      res.json({ access_token: accessToken, token_type: 'Bearer', expires_in: ttl, scope });
    },
    getJwks: (_req, res) => {
      res.json(ctx.keys.jwks());
    },
    getOpenidConfiguration: (req, res) => {
      const baseUrl = baseUrlOf(req, ctx);
      res.json({
        issuer: baseUrl,
        token_endpoint: `${baseUrl}/oauth2/token`,
        jwks_uri: `${baseUrl}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        scopes_supported: [...BASE_SCOPES, ...API_SCOPES],
        response_types_supported: ['token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        id_token_signing_alg_values_supported: ['RS256'],
        subject_types_supported: ['public'],
      });
    },
  };
}
