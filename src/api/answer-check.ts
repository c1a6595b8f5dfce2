import {
  componentPointer,
  documentedResponse,
  operationAt,
  type ApiDocument,
  type DocumentOperation,
} from './document.js';
import { SchemaCheck, type Pieces, type Violation } from './schema-check.js';

const PROBLEM = { $ref: componentPointer('Problem') };
const PROBLEM_TYPE = 'application/problem+json';

/**
 * Where the two checks of answers differ, each said once (the fake's own in tests, `http/answer-check.ts`; an
 * upstream's in shadow mode, `shadow/document-check.ts`).
 */
export interface AnswerRule {
  /**
   * An error status the operation does not document. `problem`: held to the Problem schema when it says it is one
   * (problem+json), else let be: the fake's own refusals (a route, a token, a body, an injected fault) come before any
   * operation could list them. `flagged`: a violation, as any undocumented status is.
   */
  undocumentedErrors: 'problem' | 'flagged';
  /**
   * The schema the body is held to. `exact`: the one documented for the answer's own media type (a Problem's
   * `application/json` schema serving `application/problem+json` too), an undocumented media type a violation.
   * `firstJson`: the first JSON media type documented for the status, whatever the answer's Content-Type.
   */
  mediaType: 'exact' | 'firstJson';
}

/** An answer as the check reads it: status, parsed JSON body (undefined: none), media type (lower case, bare). */
export interface CheckedAnswer {
  status: number;
  body: unknown;
  mediaType?: string;
}

/**
 * The one check of an answer against the document: its status documented for the operation (the status, its class
 * such as `4XX`, or `default`: `documentedResponse`), its body the schema documented for that status, a long list a
 * few items at a time (`SchemaCheck`). Where the two users differ is their `AnswerRule`.
 */
export class AnswerCheck {
  private readonly schemas: SchemaCheck;

  constructor(
    private readonly document: ApiDocument,
    private readonly rule: AnswerRule,
  ) {
    this.schemas = new SchemaCheck(document);
  }

  /** What breaks the document in an answer of `operation` (none for an operation the document does not have). */
  *checking(operation: Pick<DocumentOperation, 'method' | 'path'>, answer: CheckedAnswer): Pieces<Violation[]> {
    const documented = operationAt(this.document, operation);
    if (!documented) return [];
    const { method, path } = operation;
    const { status, body, mediaType } = answer;
    const response = documentedResponse(this.document, path, method, status);
    if (!response) {
      if (this.rule.undocumentedErrors === 'problem' && status >= 400) {
        return mediaType === PROBLEM_TYPE && body !== undefined
          ? yield* this.schemas.checking('Problem', PROBLEM, body, '')
          : [];
      }
      return [
        {
          pointer: '',
          message: `status ${status} is not documented for this operation (${Object.keys(documented.responses ?? {}).join(', ')})`,
          isEnum: false,
        },
      ];
    }
    const { content } = response;
    let type: string | undefined;
    if (this.rule.mediaType === 'firstJson') type = Object.keys(content).find((t) => t.includes('json'));
    else {
      type = [mediaType, ...(mediaType === PROBLEM_TYPE ? ['application/json'] : [])].find(
        (t) => t !== undefined && content[t]?.schema !== undefined,
      );
      if (type === undefined)
        return [
          {
            pointer: '',
            message: `${mediaType ?? 'an answer without a media type'} is not a media type the document gives for status ${status}`,
            isEnum: false,
          },
        ];
    }
    const schema = type === undefined ? undefined : content[type]!.schema;
    if (schema === undefined || body === undefined) return [];
    return yield* this.schemas.checking(`${method.toLowerCase()} ${path} ${response.key} ${type}`, schema, body, '');
  }
}
