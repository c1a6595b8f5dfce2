import { describe, expect, it } from 'vitest';
import { http, testApp } from '../support/test-app.js';

// The fake's own pages are matched as written, as every path is: case counts, no trailing slash, GET
// and HEAD only for the document; everything else goes on through the pipeline to its 404.
describe('the document and the fake’s own pages', () => {
  const app = testApp();

  it('GET and HEAD /openapi.json and /openapi.yaml answer the document', async () => {
    const json = await http(app).get('/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect((await http(app).head('/openapi.yaml')).status).toBe(200);
    expect((await http(app).get('/openapi.yaml')).headers['content-type']).toMatch(/^application\/yaml/);
  });

  it('another method, another case, a trailing slash or OPTIONS is no operation: 404 route_not_found', async () => {
    const paths = [
      '/OpenAPI.JSON',
      '/openapi.JSON',
      '/Docs',
      '/docs/Init.js',
      '/Console/',
      '/openapi.json/',
      '/docs//init.js',
    ];
    for (const response of [
      await http(app).post('/openapi.json'),
      ...(await Promise.all(paths.map((p) => http(app).get(p)))),
      await http(app).options('/openapi.yaml'),
    ]) {
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
