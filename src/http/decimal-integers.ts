import type { Request, RequestHandler } from 'express';
import { integerParametersOf, type ApiDocument } from '../api/document.js';
import { stateOf } from './request-state.js';

/**
 * An integer parameter as the real service reads it: decimal digits, an optional leading `-` (docs/api.md). The
 * validator's Ajv coerces with `Number()`, which also reads `0x10`, `1e3`, `+5`, ` 5`, `5.0` and `0b1`.
 */
export const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** Why such a value is refused: the validator's words for a value that is no integer, and what an integer is. */
export const NOT_DECIMAL = 'must be integer (decimal digits, an optional leading -)';

/** Shaped as the validator's 400 (`status`, `errors`): the error writer renders both as one 422 validation_error. */
export class ParameterError extends Error {
  readonly status = 400;
  constructor(readonly errors: { path: string; message: string }[]) {
    super(errors.map((e) => `${e.path} ${e.message}`).join('; '));
  }
}

// An empty value is the validator's to refuse, in its own words ("Empty value found for query parameter").
const notDecimal = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.some(notDecimal)
    : typeof value === 'string' && value !== '' && !DECIMAL_INTEGER.test(value);

const valuesAt = (req: Request, where: 'query' | 'path' | 'header', name: string): unknown =>
  where === 'query'
    ? (req.query as Record<string, unknown>)[name]
    : where === 'path'
      ? stateOf(req).route?.pathParams[name]
      : req.get(name);

type Where = 'query' | 'path' | 'header';

/** The integer parameters among `integers` whose value (`valueAt`) is written other than in decimal digits, named. */
export function decimalIntegerErrors(
  integers: readonly { in: Where; name: string }[],
  valueAt: (where: Where, name: string) => unknown,
): { path: string; message: string }[] {
  return integers
    .filter(({ in: where, name }) => notDecimal(valueAt(where, name)))
    .map(({ in: where, name }) => ({
      path: `/${where === 'header' ? 'headers' : where}/${name}`,
      message: NOT_DECIMAL,
    }));
}

/**
 * The step before the validator's checks that refuses an integer parameter (query, path or header) written other
 * than in decimal digits, naming each: none for an operation without integer parameters. The parameter check
 * (src/http/parameter-check.ts) refuses such a value first too, so both answer alike.
 */
export function decimalIntegers(
  document: ApiDocument,
  operation: { method: string; path: string },
): RequestHandler | undefined {
  const integers = integerParametersOf(document, operation);
  if (integers.length === 0) return undefined;
  return (req, _res, next) => {
    const errors = decimalIntegerErrors(integers, (where, name) => valuesAt(req, where, name));
    if (errors.length > 0) throw new ParameterError(errors);
    next();
  };
}
