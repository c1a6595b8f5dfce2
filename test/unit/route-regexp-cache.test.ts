import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';

it('once an app exists, the validator’s route expressions are compiled once, and still match as before', () => {
  createApp();
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const { pathToRegexp } = fromValidator('path-to-regexp') as { pathToRegexp: (p: string, o?: object) => { regexp: RegExp } };
  const first = pathToRegexp('/v1/orders/:order_id/', { strict: true, sensitive: false });
  expect(pathToRegexp('/v1/orders/:order_id/', { strict: true, sensitive: false })).toBe(first);
  expect(first.regexp.exec('/v1/orders/abc/')).not.toBeNull();
  expect(first.regexp.exec('/v1/orders/abc')).toBeNull();
  expect(pathToRegexp('/v1/orders/:order_id/', { strict: false, sensitive: false })).not.toBe(first);
});
