import type { FieldError } from '../api/errors.js';
import type { Schemas } from '../api/types.js';

export type Problem = Schemas['Problem'];

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** A problem lists at most this many field errors, and counts the rest: its size is bounded whatever the request. */
export const MAX_FIELD_ERRORS = 50;
const MAX_TEXT = 500;

/** Partners' input can be arbitrarily long; a problem quotes at most a few hundred characters of it. */
export const clip = (text: string, max = MAX_TEXT): string => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** `total` counts field errors beyond those handed over, when the caller did not build them all. */
export function problem(
  status: number,
  code: string,
  detail: string,
  errors: readonly FieldError[] = [],
  total = errors.length,
): Problem {
  const listed = errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({ ...e, path: clip(e.path), message: clip(e.message) }));
  return {
    type: `urn:problem:investment-api-fake:${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: clip(detail, 2000),
    code,
    ...(listed.length > 0 && { errors: listed }),
    ...(total > listed.length && { errors_omitted: total - listed.length }),
  };
}
