import type { RequestHandler } from 'express';
import { documentValidators, responseContentOf, rootedRefs, type AnswerMismatch, type ApiDocument } from '../api/document.js';
import { stateOf } from './request-state.js';

const PROBLEM = { $ref: '#/components/schemas/Problem' };
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * Checks each answer of an operation against the document once it has been sent (`validateResponses`, on in the
 * tests): the answer is the one the pipeline made, and a mismatch is reported, never answered instead. A mismatch is
 * a JSON answer whose body breaks the schema the operation documents for its status, a success status it does not
 * document, or an undocumented error's problem+json that is not a Problem.
 */
export function answerCheck(document: ApiDocument, report: (mismatch: AnswerMismatch) => void): RequestHandler {
  let compile: ReturnType<typeof documentValidators> | undefined;
  const checks = new Map<string, (value: unknown) => string[]>();
  const checkOf = (operationId: string, status: number, mediaType: string): ((value: unknown) => string[]) => {
    const key = `${operationId} ${status} ${mediaType}`;
    let check = checks.get(key);
    if (!check) {
      const content = responseContentOf(document, operationId, status);
      let schema = content?.[mediaType]?.schema ?? (mediaType === 'application/problem+json' ? content?.['application/json']?.schema : undefined);
      // an error the operation does not list (an injected fault, a refusal of the pipeline's) is still a Problem
      if (content === undefined && status >= 400 && mediaType === 'application/problem+json') schema = PROBLEM;
      if (content === undefined && schema === undefined) check = status >= 400 ? () => [] : () => [`/: status ${status} is not an answer the document gives`];
      else if (schema === undefined) check = () => [`/: ${mediaType} is not a media type the document gives for status ${status}`];
      else {
        const validate = (compile ??= documentValidators(document))(rootedRefs(schema) as object);
        check = (value) => validate(value).map((error) => `${error.path}: ${error.message}`);
      }
      checks.set(key, check);
    }
    return check;
  };
  return (req, res, next) => {
    res.once('finish', () => {
      const { operationId, sentBody } = stateOf(req);
      const type = String(res.getHeader('content-type') ?? '');
      if (operationId === undefined || sentBody === undefined || !JSON_TYPE.test(type)) return;
      let problems: string[];
      try {
        problems = checkOf(operationId, res.statusCode, type.split(';')[0]!.trim().toLowerCase())(JSON.parse(sentBody.toString()));
      } catch (error) {
        problems = [`/: not JSON (${(error as Error).message})`];
      }
      if (problems.length > 0) report({ operationId, method: req.method, path: req.path, status: res.statusCode, problems });
    });
    next();
  };
}
