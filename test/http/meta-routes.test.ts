import { describe, expect, it } from 'vitest';
import { http, testApp } from '../support/harness.js';

// The fake's own pages are matched as the app-level routes they were: the document in any case, no trailing slash,
// GET and HEAD only; everything else goes on through the pipeline to its 404.
describe('the document and the fake’s own pages', () => {
  const app = testApp();

  it('GET and HEAD /openapi.json and /openapi.yaml answer the document, in any case', async () => {
    const json = await http(app).get('/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect((await http(app).get('/OpenAPI.JSON')).status).toBe(200);
    expect((await http(app).head('/openapi.yaml')).status).toBe(200);
    expect((await http(app).get('/openapi.yaml')).headers['content-type']).toMatch(/^application\/yaml/);
  });

  it('another method, a trailing slash or OPTIONS is no operation: 404 route_not_found', async () => {
    for (const response of [await http(app).post('/openapi.json'), await http(app).get('/openapi.json/'), await http(app).options('/openapi.yaml')]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('route_not_found');
    }
  });

  it('the docs still answer OPTIONS with what they allow, as their own router always did', async () => {
    const response = await http(app).options('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.allow).toContain('GET');
  });
});
