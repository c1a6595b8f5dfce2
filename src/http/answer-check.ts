import type { RequestHandler } from 'express';
import { AnswerCheck, type AnswerRule } from '../api/answer-check.js';
import { operationsById, type AnswerMismatch, type ApiDocument } from '../api/document.js';
import { runNow } from '../util/slices.js';
import { stateOf } from './request-state.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * The fake's own answers: it sets each Content-Type itself, so the media type must be the documented one; an error
 * no operation lists (a refusal of the pipeline's, an injected fault) is still a Problem.
 */
const FAKE_ANSWERS: AnswerRule = { undocumentedErrors: 'problem', mediaType: 'exact' };

/**
 * Checks each answer of an operation against the document once it has been sent (`validateResponses`, on in the
 * tests): the answer is the one the pipeline made, and a mismatch is reported, never answered instead. A mismatch is
 * a JSON answer whose body breaks the schema the operation documents for its status and media type, a success
 * status it does not document, or an undocumented error's problem+json that is not a Problem (`api/answer-check.ts`).
 */
export function answerCheck(document: ApiDocument, report: (mismatch: AnswerMismatch) => void): RequestHandler {
  const check = new AnswerCheck(document, FAKE_ANSWERS);
  let operations: ReturnType<typeof operationsById> | undefined;
  return (req, res, next) => {
    res.once('finish', () => {
      const { operationId, sentBody } = stateOf(req);
      const type = String(res.getHeader('content-type') ?? '');
      if (operationId === undefined || sentBody === undefined || !JSON_TYPE.test(type)) return;
      const operation = (operations ??= operationsById(document)).get(operationId);
      if (!operation) return;
      let problems: string[];
      try {
        const answer = {
          status: res.statusCode,
          body: JSON.parse(sentBody.toString()) as unknown,
          mediaType: type.split(';')[0]!.trim().toLowerCase(),
        };
        problems = runNow(check.checking(operation, answer)).map((v) => `${v.pointer || '/'}: ${v.message}`);
      } catch (error) {
        problems = [`/: not JSON (${(error as Error).message})`];
      }
      if (problems.length > 0)
        report({ operationId, method: req.method, path: req.path, status: res.statusCode, problems });
    });
    next();
  };
}
