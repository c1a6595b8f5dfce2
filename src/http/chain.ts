import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Steps run in order as one Express middleware, with Express's own rules: a step calls `next()` to go on or
 * `next(error)` to stop; a thrown error or a rejected promise is `next(error)`; after the last step, `done()`. One
 * layer instead of one per step: Express matches each layer's path and wraps each call.
 */
export function chain(steps: readonly RequestHandler[]): (req: Request, res: Response, done: NextFunction) => void {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const step = steps[index++];
      if (step === undefined) {
        done();
        return;
      }
      try {
        const result = step(req, res, next) as unknown;
        if (result instanceof Promise)
          result.then(undefined, (rejection: unknown) => done(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
