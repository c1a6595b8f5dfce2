import type { Request, Response } from 'express';
import type { OperationId } from '../api/types.js';

export type OperationHandler = (req: Request, res: Response) => void | Promise<void>;

/** One handler per operationId of the document: a missing one is a compile error (and a startup error). */
export type OperationHandlers = { [Op in OperationId]: OperationHandler };

/** Path parameters as the validator decoded them. */
export const param = (req: Request, name: string): string => String(req.params[name]);

/** Query parameters as the validator coerced them (defaults applied), typed from the document. */
export const queryOf = <Q>(req: Request): Q => req.query as Q;
