import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { skipMetaSchemaUnlessChecked } from '../../src/http/meta-schema-shim.js';

interface SchemaValidator {
  validate(document: unknown): { errors: unknown[] };
}
type SchemaValidatorClass = (new (options: {
  version: string;
  validateApiSpec: boolean;
}) => SchemaValidator) & { original?: SchemaValidatorClass };

const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const module = (): { OpenAPISchemaValidator: SchemaValidatorClass } =>
  fromValidator('./framework/openapi.schema.validator');
const BROKEN = { openapi: '3.0.3', info: { title: 'x' }, paths: { '/a': { get: { responses: 'none' } } } };
const FINE = { openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: {} };

it('the validator’s meta-schema check answers as before when the document is checked, and is skipped when not', () => {
  // test files share their worker's modules: another one may have installed the shim already
  const current = module().OpenAPISchemaValidator;
  const Original = current.original ?? current;
  const before = new Original({ version: '3.0.3', validateApiSpec: true }).validate(BROKEN).errors;
  expect(before.length).toBeGreaterThan(0);

  skipMetaSchemaUnlessChecked();
  skipMetaSchemaUnlessChecked(); // idempotent
  const Shimmed = module().OpenAPISchemaValidator;
  expect(Shimmed).not.toBe(Original);
  expect(Shimmed.original).toBe(Original);
  expect(new Shimmed({ version: '3.0.3', validateApiSpec: true }).validate(BROKEN).errors).toEqual(before);
  expect(new Shimmed({ version: '3.0.3', validateApiSpec: true }).validate(FINE).errors).toEqual([]);
  // unchecked: nothing compiled, nothing reported (the framework never asks, but the answer is the neutral one)
  expect(new Shimmed({ version: '3.0.3', validateApiSpec: false }).validate(BROKEN).errors).toEqual([]);
});
