import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { HOST, http, type SignedIn, signedIn, testApp, tokenFor } from '../support/test-app.js';

let app: Express;
let world: World;
let get: SignedIn['get'];
/** The part of a link after the host, for supertest. */
const local = (url: string) => url.replace(`http://${HOST}`, '');

beforeAll(async () => {
  ({ app, world, get } = await signedIn());
});

describe('fund documents', () => {
  it('lists a feeder fund’s documents with signed links valid for 15 minutes', async () => {
    const fund = world.feeder_funds[0]!;
    const response = await get(`/v1/funds/${fund.abbreviation}/documents`);
    expect(response.status).toBe(200);
    const expected = world.documents.filter((d) => d.feeder_fund_id === fund.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(response.body.data.map((d: { id: string }) => d.id)).toEqual(expected.map((d) => d.id));
    for (const document of response.body.data) {
      expect(document.type).toBe('FEEDER_FUND');
      const url = new URL(document.url);
      expect(url.origin + url.pathname).toBe(`http://${HOST}/files/sandbox-client/${document.id}.pdf`);
      expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
      const lifetime = Number(url.searchParams.get('expires')) - Date.now() / 1000;
      expect(lifetime).toBeGreaterThan(890);
      expect(lifetime).toBeLessThanOrEqual(900);
    }
  });

  it('answers 404 for an unknown abbreviation', async () => {
    const response = await get('/v1/funds/NOPE-NOPE/documents');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('puts links under DOCS_URL when configured', async () => {
    const custom = testApp({ docsUrl: 'https://cdn.example.com/docs' });
    const token = await tokenFor(custom);
    const response = await http(custom)
      .get(`/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`)
      .set('Authorization', `Bearer ${token}`);
    expect(response.body.data[0].url).toMatch(
      /^https:\/\/cdn\.example\.com\/docs\/sandbox-client\/[^/]+\.pdf\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
  });
});

describe('custom offering documents', () => {
  it('lists an offering’s documents under its own asset', async () => {
    const offering = world.custom_offerings[0]!;
    const asset = world.assets.find((a) => a.id === offering.asset_id)!;
    const response = await get(`/v1/assets/${asset.isin}/custom-offerings/${offering.id}/documents`);
    expect(response.status).toBe(200);
    const expected = world.documents.filter((d) => d.custom_offering_id === offering.id).map((d) => d.id);
    expect(response.body.data.map((d: { id: string }) => d.id)).toEqual(expected);
    expect(response.body.data.every((d: { type: string }) => d.type === 'CUSTOM_OFFERING')).toBe(true);
  });

  it('answers 404 when the offering is not the asset’s', async () => {
    const offering = world.custom_offerings[0]!;
    const other = world.assets.find((a) => a.id !== offering.asset_id)!;
    const response = await get(`/v1/assets/${other.isin}/custom-offerings/${offering.id}/documents`);
    expect(response.status).toBe(404);
  });

  it('answers 404 for an unknown ISIN or offering', async () => {
    const offering = world.custom_offerings[0]!;
    expect((await get(`/v1/assets/XS0000000000/custom-offerings/${offering.id}/documents`)).status).toBe(404);
    const asset = world.assets.find((a) => a.id === offering.asset_id)!;
    expect(
      (await get(`/v1/assets/${asset.isin}/custom-offerings/3fa85f64-5717-4562-b3fc-2c963f66afa6/documents`)).status,
    ).toBe(404);
  });
});

describe('signed links', () => {
  const firstLink = async () => {
    const response = await get(`/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`);
    return response.body.data[0].url as string;
  };

  it('serve a real PDF without a bearer token', async () => {
    const response = await http(app)
      .get(local(await firstLink()))
      .responseType('blob');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    const pdf = response.body as Buffer;
    expect(pdf.subarray(0, 8).toString()).toBe('%PDF-1.4');
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    // the xref offsets point at the objects: a reader can open it
    const text = pdf.toString('latin1');
    const xrefAt = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xrefAt, xrefAt + 4)).toBe('xref');
    const firstObject = Number(/xref\n0 \d+\n0000000000 65535 f \n(\d{10})/.exec(text)![1]);
    expect(text.slice(firstObject, firstObject + 7)).toBe('1 0 obj');
  });

  it('answer 403 invalid_signature when tampered', async () => {
    const url = new URL(await firstLink());
    const signature = url.searchParams.get('signature')!;
    url.searchParams.set('signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
    const response = await http(app).get(local(url.toString()));
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('invalid_signature');
  });

  it('answer 403 when expires is pushed later', async () => {
    const url = new URL(await firstLink());
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await http(app).get(local(url.toString()))).status).toBe(403);
  });

  it('answer 422 naming `expires` when it is not a Unix time (the document types it an integer)', async () => {
    for (const expires of ['soon', '-1', '1e9', '1700000000.5']) {
      const url = new URL(await firstLink());
      url.searchParams.set('expires', expires);
      const response = await http(app).get(local(url.toString()));
      expect(`${expires}: ${response.status} ${response.body.code}`).toBe(`${expires}: 422 validation_error`);
      expect(response.body.errors[0]).toMatchObject({ location: 'query', path: '/expires' });
    }
  });

  it('answer 403 when the link names another document or another client', async () => {
    const url = await firstLink();
    const otherDocument = world.documents.at(-1)!.id;
    const swapped = url.replace(/sandbox-client\/[^/?]+\.pdf/, `sandbox-client/${otherDocument}.pdf`);
    expect((await http(app).get(local(swapped))).status).toBe(403);
    expect((await http(app).get(local(url.replace('/sandbox-client/', '/other-client/')))).status).toBe(404);
  });

  it('answer 403 without a signature', async () => {
    const url = new URL(await firstLink());
    url.searchParams.delete('signature');
    expect((await http(app).get(local(url.toString()))).status).toBe(403);
  });

  it('answer 403 link_expired after 15 minutes of the tenant’s clock', async () => {
    const fresh = testApp();
    const token = await tokenFor(fresh);
    const list = await http(fresh)
      .get(`/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`)
      .set('Authorization', `Bearer ${token}`);
    const link = local(list.body.data[0].url);
    expect((await http(fresh).get(link)).status).toBe(200);
    await http(fresh).post('/__control/clock').send({ advance_seconds: 901 }).expect(200);
    const response = await http(fresh).get(link);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('link_expired');
  });
});

describe('the control plane’s document links (GET /__control/documents)', () => {
  it('lists every document of the tenant, in the world’s order, with its title, owner and a link that downloads it', async () => {
    const response = await http(app).get('/__control/documents');
    expect(response.status).toBe(200);
    const listed = response.body.data as {
      id: string;
      title: string;
      type: string;
      feeder_fund_id: string | null;
      custom_offering_id: string | null;
      url: string;
    }[];
    expect(listed.map(({ url: _url, ...record }) => record)).toEqual(world.documents);
    for (const document of listed) {
      expect(document.url).toMatch(
        new RegExp(
          `^http://${HOST.replace('.', '\\.')}/files/sandbox-client/${document.id}\\.pdf\\?expires=\\d+&signature=[0-9a-f]{64}$`,
        ),
      );
    }
    const pdf = await http(app)
      .get(local(listed.at(-1)!.url))
      .responseType('blob');
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect((pdf.body as Buffer).toString('latin1')).toContain(listed.at(-1)!.title);
  });

  it('signs links for the tenant X-Client-Id names, which only that tenant’s path accepts', async () => {
    const fresh = testApp();
    await http(fresh)
      .post('/__control/clients')
      .send({ client_id: 'other-client', client_secret: 'other-secret' })
      .expect(201);
    const response = await http(fresh).get('/__control/documents').set('X-Client-Id', 'other-client');
    expect(response.status).toBe(200);
    const link = local(response.body.data[0].url as string);
    expect(link).toMatch(/^\/files\/other-client\//);
    expect((await http(fresh).get(link)).status).toBe(200);
    expect((await http(fresh).get(link.replace('/other-client/', '/sandbox-client/'))).status).toBe(403);
  });

  it('gives links that expire after 15 minutes of the tenant’s clock', async () => {
    const fresh = testApp();
    const link = local((await http(fresh).get('/__control/documents')).body.data[0].url as string);
    await http(fresh).post('/__control/clock').send({ advance_seconds: 901 }).expect(200);
    const response = await http(fresh).get(link);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('link_expired');
  });

  it('answers 404 for an unknown tenant, and 401 without the CONTROL_TOKEN when one is set', async () => {
    const unknown = await http(app).get('/__control/documents').set('X-Client-Id', 'nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('client_not_found');
    const guarded = testApp({ controlToken: 'ctl-secret' });
    expect((await http(guarded).get('/__control/documents')).status).toBe(401);
    expect((await http(guarded).get('/__control/documents').set('Authorization', 'Bearer ctl-secret')).status).toBe(
      200,
    );
  });
});
