import type { RequestHandler } from 'express';
import type { OperationId } from '../api/types.js';
import type { FakeContext } from '../context.js';
import { authenticateBearer, authenticateTokenRequest } from './authenticate.js';
import { bodyParsers, receiveBody } from './body.js';
import { boundedBody } from './body-bounds.js';
import { chain } from './chain.js';
import { dispatch } from './dispatch.js';
import { compileParameterCheck } from './parameter-check.js';
import type { OperationHandlers } from './operation.js';
import { inOrder, OPERATION_STEPS, type MadeStep, type OperationStepName } from './pipeline.js';
import { stateOf } from './request-state.js';
import type { RoutedOperation } from './route-match.js';
import { loadValidatorInternal, type LoadValidatorInternal } from './validator-internals.js';
import {
  metadataOnce,
  operationValidator,
  requestAsksNothing,
  takesNothing,
  type OperationValidator,
} from './validator.js';

/** Parts of the pipeline a test or a benchmark may leave out or change, to compare (the defaults: all on, as shipped). */
export interface PipelineOptions {
  /**
   * Who checks the parameters of an operation without a body: `compiled`, the one check made of the validator's own
   * parts (src/http/parameter-check.ts, as shipped); `validator`, express-openapi-validator's middleware, which a
   * test compares it with. An operation with a body is the validator's either way.
   */
  parameters?: 'compiled' | 'validator';
  /** Where the validator shims find the library's internals (a test gives them changed ones). */
  validatorInternals?: LoadValidatorInternal;
}

/** `make`, run on the first call only; every call answers what it made. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * Each operation's own steps, OPERATION_STEPS in their order, made on its first request and kept for the instance.
 * Each part is made when a request first needs it: the validator library loads with the first validator, not with
 * the app. An operation without a body has one parameter check (src/http/parameter-check.ts) and no validator;
 * one with a body, the validator for both. Nothing checks a request that asks nothing of an operation that takes
 * nothing (the health check).
 */
export function operationSteps(
  ctx: Pick<FakeContext, 'api' | 'linkSigner' | 'logger' | 'options' | 'tenants' | 'tokens'>,
  handlers: OperationHandlers,
  pipeline: PipelineOptions,
): (operation: RoutedOperation) => RequestHandler {
  const { validatorInternals = loadValidatorInternal, parameters = 'compiled' } = pipeline;
  const body = bodyParsers();
  const shared = {
    'bearer token': authenticateBearer(ctx, receiveBody(body)),
    body,
    'body bounds': boundedBody(ctx.api.document),
    'token request': authenticateTokenRequest(ctx),
    dispatch: dispatch(ctx, handlers),
  } satisfies Partial<Record<OperationStepName, MadeStep>>;
  const saidOnce = new Set<string>();
  const debugOnce = (shim: string, reason: string, message: string): void => {
    if (saidOnce.has(shim)) return;
    saidOnce.add(shim);
    ctx.logger.debug({ shim, reason }, message);
  };
  const stepAside = (reason: string): void =>
    debugOnce(
      'parameter-check',
      reason,
      `parameter check stepped aside: ${reason}; express-openapi-validator checks the parameters of every operation`,
    );
  const newValidator = (operation: RoutedOperation): OperationValidator => {
    const validator = operationValidator(ctx.api.document, operation, {
      checkDocument: Boolean(ctx.options.validateResponses),
      logger: ctx.logger,
      internals: validatorInternals,
    });
    if (validator.unknownSteps)
      debugOnce(
        'validator-steps',
        validator.unknownSteps,
        `validator steps run as the library chains them: ${validator.unknownSteps}`,
      );
    return validator;
  };

  const stepsOf = (operation: RoutedOperation): RequestHandler => {
    const nothingToTake = takesNothing(ctx.api.document, operation);
    // made on the first request that gives it something to check: the health check loads no Ajv
    const check = once(() =>
      parameters === 'compiled'
        ? compileParameterCheck(ctx.api.document, operation, validatorInternals, stepAside)
        : undefined,
    );
    // an operation without a body: its parameters checked and coerced here, the validator never made for it
    const checkParameters: RequestHandler = (req, _res, next) => {
      if (nothingToTake && requestAsksNothing(req)) return next();
      const compiled = check();
      if (compiled) {
        const state = stateOf(req);
        state.query = compiled({
          url: req.originalUrl,
          pathParams: state.route?.pathParams ?? {},
          headers: req.headers,
        });
      }
      next();
    };
    const validator = once(() => newValidator(operation));
    const validated = once(() => {
      const metadata = metadataOnce(validator().metadata);
      return chain([
        (req, res, next) => metadata(req, res, next, stateOf(req).route?.pathParams ?? {}),
        ...validator().validate,
      ]);
    });
    const validate: RequestHandler = (req, res, next) => {
      if (stateOf(req).query !== undefined || (nothingToTake && requestAsksNothing(req))) return next();
      validated()(req, res, next);
    };
    return chain(inOrder(OPERATION_STEPS, { ...shared, parameters: checkParameters, validate }));
  };

  const made = new Map<OperationId, RequestHandler>();
  return (operation) => {
    let steps = made.get(operation.operationId);
    if (!steps) made.set(operation.operationId, (steps = stepsOf(operation)));
    return steps;
  };
}
