import { describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/api/document.js';
import { forwardedRoute } from '../../src/shadow/forwarding.js';
import { compileRoutes } from '../../src/http/route.js';

// Shadow mode names the operation of a forwarded exchange with the route step's own router: a path
// the document does not have, to the letter, is no operation, so its exchange is compared as no operation's.
describe("shadow mode's operation of a forwarded request", () => {
  const route = forwardedRoute(compileRoutes(loadApiDocument().document));
  const match = (method: string, path: string) => route({ method, path, originalUrl: path });
  const ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

  it('is the document’s operation for a path spelled as the document writes it', () => {
    expect(match('GET', '/v1/accounts')).toMatchObject({
      operation: { operationId: 'listAccounts' },
      openApiRoute: '/v1/accounts',
    });
    expect(match('DELETE', `/v1/orders/${ID}/`)).toMatchObject({
      operation: { operationId: 'cancelOrder' },
      pathParams: { order_id: ID },
    });
  });

  it('is none for another case, a doubled slash or a trailing slash the document does not have, or a method the path does not take', () => {
    for (const [method, path] of [
      ['GET', '/v1/Accounts'],
      ['POST', '/V1/accounts'],
      ['DELETE', `/v1/Orders/${ID}/`],
      ['DELETE', `/v1/orders/${ID}//`],
      ['DELETE', `/v1/orders/${ID}`],
      ['GET', '/v1//accounts'],
      ['GET', '/v1/accounts/'],
      ['POST', '/OAuth2/Token'],
      ['POST', '/oauth2/token/'],
      ['PUT', '/v1/accounts'],
    ]) {
      expect(match(method!, path!), `${method} ${path}`).toBeUndefined();
    }
  });
});
