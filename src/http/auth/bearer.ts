import type { Request } from 'express';
import type { FakeContext } from '../../context.js';
import { DomainError } from '../../api/errors.js';
import { audiencesOf, baseUrlOf } from '../request-context.js';
import { missingToken, VerifiedTokens } from '../../auth/jwt.js';

/**
 * The validator's handler of the `oauth2` security scheme: verifies the bearer token and the operation's scopes,
 * then records the token's tenant for the handler. Its own error is kept on the response, because the validator
 * re-wraps thrown errors and would lose the problem's code and headers.
 */
export function bearerSecurityHandler(ctx: FakeContext) {
  const tokens = new VerifiedTokens(ctx.keys);
  return (req: Request, scopes: string[]): true => {
    const locals = req.res!.locals;
    try {
      const match = /^Bearer +([^\s]+) *$/i.exec(req.get('authorization') ?? '');
      if (!match) throw missingToken();
      const baseUrl = baseUrlOf(req, ctx);
      const claims = tokens.verify(match[1]!, {
        issuer: baseUrl,
        audiences: audiencesOf(baseUrl),
        nowOf: (clientId) => ctx.tenants.find(clientId)?.clock.nowSeconds(),
      });
      const granted = new Set(claims.scope.split(' '));
      const missing = scopes.filter((s) => !granted.has(s));
      if (missing.length > 0) {
        throw new DomainError(403, 'insufficient_scope', `This operation needs the scope ${missing.join(' ')}, which the token does not carry.`, undefined, {
          'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${missing.join(' ')}"`,
        });
      }
      locals.tenant = ctx.tenants.get(claims.sub);
      return true;
    } catch (error) {
      locals.authError = error;
      throw error;
    }
  };
}
