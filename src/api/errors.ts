import type { Schemas } from './types.js';

export type FieldError = Schemas['FieldError'];

/** The one error type of the domain: the error middleware renders it as application/problem+json. */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Members of the problem beyond RFC 9457's (`near_misses` of a failed verification). */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string): DomainError => new DomainError(404, 'not_found', `${what} was not found.`);

export type OAuthErrorCode = Schemas['OAuthError']['error'];

/** An RFC 6749 §5.2 error of the token endpoint: JSON `{error, error_description}`, not a problem. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly headers?: Record<string, string>,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}
