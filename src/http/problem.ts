import type { Response } from 'express';
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
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problem(status: number, code: string, detail: string, errors?: FieldError[]): Problem {
  return {
    type: `urn:problem:investment-api-fake:${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 && { errors }),
  };
}

export function sendProblem(res: Response, body: Problem, headers: Record<string, string> = {}): void {
  res.locals.problemCode = body.code;
  // res.json, so that response validation (on in tests) checks problems against the document too.
  res.status(body.status).set(headers).type('application/problem+json').json(body);
}
