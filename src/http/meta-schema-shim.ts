import {
  loadInternal,
  loadValidatorInternal,
  replaceExport,
  type LoadValidatorInternal,
  type ShimOutcome,
} from './validator-internals.js';

interface SchemaValidatorOptions {
  version: string;
  validateApiSpec: boolean;
}
interface SchemaValidator {
  validate(document: unknown): { errors: unknown[] };
}
type SchemaValidatorClass = (new (
  options: SchemaValidatorOptions,
) => SchemaValidator) & { shimmed?: true; original?: SchemaValidatorClass };

const MODULE = './framework/openapi.schema.validator';

/** Why the module's class is not the one the shim knows (`new OpenAPISchemaValidator(options).validate(document)`), if it is not. */
function unexpectedClass(Original: unknown): ShimOutcome {
  if (typeof Original !== 'function') return `${MODULE} exports no OpenAPISchemaValidator class`;
  const validate = (Original.prototype as { validate?: unknown } | undefined)?.validate;
  if (typeof validate !== 'function') return 'OpenAPISchemaValidator has no validate method';
  if (Original.length !== 1 || validate.length !== 1) {
    return `OpenAPISchemaValidator takes ${Original.length} argument(s) and its validate ${validate.length}, not one options object and one document`;
  }
  return undefined;
}

/**
 * express-openapi-validator compiles the OpenAPI meta-schema for every validator it makes, whether it checks the
 * document or not (framework/openapi.schema.validator.js: `validateApiSpec: false` only turns off Ajv's own schema
 * check; the meta-schema is compiled all the same): a large part of a fresh process's first request and its memory.
 * The shim makes it lazy and once per process: unchecked documents never compile it, checked ones (tests) share one
 * compiled meta-schema per OpenAPI version. The framework looks the class up on its module at each use, so replacing
 * it there is enough; what it answers is unchanged (test/unit/meta-schema-shim.test.ts).
 *
 * The module is the library's internals: when it is not shaped as above (moved, renamed, another signature), the shim
 * steps aside, changes nothing and answers why (test/unit/validator-shims-fallback.test.ts).
 */
export function skipMetaSchemaUnlessChecked(load: LoadValidatorInternal = loadValidatorInternal): ShimOutcome {
  const loaded = loadInternal(load, MODULE);
  if ('missing' in loaded) return loaded.missing;
  const { module } = loaded;
  const found = module.OpenAPISchemaValidator as SchemaValidatorClass | undefined;
  if (found?.shimmed) return undefined;
  const unexpected = unexpectedClass(found);
  if (unexpected !== undefined) return unexpected;
  const Original = found!;
  const compiledByVersion = new Map<string, SchemaValidator>();
  class LazyOpenAPISchemaValidator implements SchemaValidator {
    static shimmed = true as const;
    /** The validator's own class (tests compare the two). */
    static original = Original;
    /** Options not of the known shape: the validator's own class, as is. */
    private readonly unknownOptions?: SchemaValidator;
    constructor(private readonly options: SchemaValidatorOptions) {
      if (typeof options?.version !== 'string' || typeof options.validateApiSpec !== 'boolean')
        this.unknownOptions = new Original(options);
    }
    validate(document: unknown): { errors: unknown[] } {
      if (this.unknownOptions) return this.unknownOptions.validate(document);
      if (!this.options.validateApiSpec) return { errors: [] };
      let validator = compiledByVersion.get(this.options.version);
      if (!validator) {
        validator = new Original(this.options);
        compiledByVersion.set(this.options.version, validator);
      }
      return validator.validate(document);
    }
  }
  return replaceExport(module, 'OpenAPISchemaValidator', LazyOpenAPISchemaValidator);
}
