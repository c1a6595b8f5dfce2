import { shadowOfDeviatingUpstream } from './deviating-upstream.js';

/** What a path tries to run where a file pasted it into code: write a file named `RAN` in the working directory. */
export const PAYLOAD = 'process.getBuiltinModule("fs").writeFileSync("RAN","1")//';

/** A line break of each kind a comment ends at (LF, U+2028, CR), percent-encoded in a path before the payload. */
const BREAKS = ['%0A', '%E2%80%A8', '%0D'];

/**
 * Shadow mode's vitest file after a partner requested share classes whose identifiers read as code behind a line break
 * (`X%0Aprocess.getBuiltinModule("fs")…//`): the upstream found each (200), the twin did not (404), so each is an
 * exchange shadow mode could not compare, its reason naming the identifier decoded. An account created besides
 * differs (the upstream adds `nickname`), so the file exists. Answers the file; the three servers are stopped.
 */
export async function fidelityFileWithCodeInPaths(): Promise<string> {
  const { shadow, stop } = await shadowOfDeviatingUpstream(({ method, path }, answer) => {
    if (method === 'POST' && path === '/v1/accounts' && answer.status === 201)
      return { status: 201, body: { ...(answer.body as object), nickname: 'ada' } };
    if (method === 'GET' && path.startsWith('/v1/share-classes/'))
      return { status: 200, body: { id: 'X', name: 'a share class' } };
    return undefined;
  });
  try {
    const form = {
      grant_type: 'client_credentials',
      scope: 'read:accounts write:accounts read:assets',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: new URL(shadow.url).host,
    };
    const granted = await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams(form) });
    const token = ((await granted.json()) as { access_token: string }).access_token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const account = {
      type: 'individual',
      external_id: 'code-in-paths',
      first_name: 'Ada',
      last_name: 'Lovelace',
      country: 'GB',
      dob_day: 10,
      dob_month: 12,
      dob_year: 1985,
    };
    await fetch(`${shadow.url}/v1/accounts`, { method: 'POST', headers, body: JSON.stringify(account) });
    // the identifier is one segment: its quotes and its `//` encoded, as a client's URL encoder would write them
    for (const lineBreak of BREAKS)
      await fetch(`${shadow.url}/v1/share-classes/X${lineBreak}${encodeURIComponent(PAYLOAD)}`, { headers });
    return await shadow.control.fidelityVitest();
  } finally {
    await stop();
  }
}
