import { createRequire } from 'node:module';

interface SchemaValidatorOptions {
  version: string;
  validateApiSpec: boolean;
}
interface SchemaValidator {
  validate(document: unknown): { errors: unknown[] };
}
type SchemaValidatorClass = (new (options: SchemaValidatorOptions) => SchemaValidator) & { shimmed?: true; original?: SchemaValidatorClass };

/**
 * express-openapi-validator compiles the OpenAPI meta-schema for every validator it makes, whether it checks the
 * document or not (framework/openapi.schema.validator.js: `validateApiSpec: false` only turns off Ajv's own schema
 * check; the meta-schema is compiled all the same): ~110 ms of a fresh process's first request and ~10 MB, profiled.
 * The shim makes it lazy and once per process: unchecked documents never compile it, checked ones (tests) share one
 * compiled meta-schema per OpenAPI version. The framework looks the class up on its module at each use, so replacing
 * it there is enough; what it answers is unchanged (test/unit/meta-schema-shim.test.ts).
 */
export function skipMetaSchemaUnlessChecked(): void {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = fromValidator('./framework/openapi.schema.validator') as { OpenAPISchemaValidator: SchemaValidatorClass };
  const Original = module.OpenAPISchemaValidator;
  if (Original.shimmed) return;
  const compiledByVersion = new Map<string, SchemaValidator>();
  class LazyOpenAPISchemaValidator implements SchemaValidator {
    static shimmed = true as const;
    /** The validator's own class (tests compare the two). */
    static original = Original;
    constructor(private readonly options: SchemaValidatorOptions) {}
    validate(document: unknown): { errors: unknown[] } {
      if (!this.options.validateApiSpec) return { errors: [] };
      let validator = compiledByVersion.get(this.options.version);
      if (!validator) {
        validator = new Original(this.options);
        compiledByVersion.set(this.options.version, validator);
      }
      return validator.validate(document);
    }
  }
  module.OpenAPISchemaValidator = LazyOpenAPISchemaValidator;
}
