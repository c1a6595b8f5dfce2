// A partner's client between the action's main and post: requests that make a readiness finding, and requests that
// make none. Shared by the action's runs against the package (test/e2e) and against the image (test/container).
import { fetchToken } from '../../src/index.js';

/** `GET /v1/acounts` three times with a valid token: the readiness rule `wrong_path` (docs/readiness.md). */
export async function misspeltPathThrice(url: string, clientId: string, clientSecret: string): Promise<void> {
  const token = await fetchToken(url, clientId, clientSecret);
  for (let i = 0; i < 3; i++) {
    const response = await fetch(`${url}/v1/acounts`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 404) throw new Error(`expected 404, got ${response.status}`);
  }
}

/** One token, one list read whole (fewer items than the limit): nothing for the readiness report to find. */
export async function carefulCalls(url: string, clientId: string, clientSecret: string): Promise<void> {
  const token = await fetchToken(url, clientId, clientSecret);
  const response = await fetch(`${url}/v1/share-classes?limit=100`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`);
}

/** Whether anything answers the fake's health check there. */
export const answers = (url: string): Promise<boolean> =>
  fetch(`${url}/__control/health`).then(
    (r) => r.ok,
    () => false,
  );
