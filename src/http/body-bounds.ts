import type { RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';
import type { ApiDocument } from '../api/document.js';
import { pointerOf } from '../api/json-pointer.js';
import { stateOf } from './request-state.js';
import { bodyRequired } from './body-required.js';

/**
 * What a body may cost its validator, counted as the field errors it could produce: each JSON value (an array's item,
 * an object's member, at every level) one, each object one more per required field a schema may ask of it (the most
 * any schema of the document requires, 18). A public request (an account with its wallets and payment methods, an
 * order, a patch) costs tens to hundreds; the control plane's world (`PUT /__control/state`) is the big body: the
 * default world costs ~4,600 for 42 KB, so a 1 MiB world of that kind ~115,000.
 */
export const MAX_BODY_COST = 10_000;
export const MAX_CONTROL_BODY_COST = 150_000;

/** A body costing `max` needs at least this many bytes of JSON (one digit and a comma a value): smaller ones are not walked. */
const smallestOver = (max: number, objectCost: number): number =>
  Math.min(2 * max, Math.floor((3 * max) / (1 + objectCost)));

export interface OverBudget {
  /** JSON pointer of the array or object whose members passed the budget. */
  path: string;
  kind: 'array' | 'object';
  members: number;
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * The array or object whose members take the cost of a body past `max` (each value one, each object `objectCost` more),
 * counted depth first without recursion (the walk stops there: a body of 500,000 items costs one pass over them, and
 * no path is built for a scalar).
 */
export function overBudget(value: unknown, max: number, objectCost = 0): OverBudget | undefined {
  let total = isContainer(value) && !Array.isArray(value) ? objectCost : 0;
  const stack: { value: object; path: string }[] = isContainer(value) ? [{ value, path: '' }] : [];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    const array = Array.isArray(current);
    const keys = array ? undefined : Object.keys(current);
    const members = array ? (current as unknown[]).length : keys!.length;
    total += members;
    for (let i = members - 1; i >= 0; i--) {
      const member: unknown = array ? (current as unknown[])[i] : (current as Record<string, unknown>)[keys![i]!];
      if (!isContainer(member)) continue;
      if (!Array.isArray(member)) total += objectCost;
      stack.push({ value: member, path: pointerOf(path, array ? i : keys![i]!) });
    }
    if (total > max) return { path, kind: array ? 'array' : 'object', members };
  }
  return undefined;
}

/** The most required fields a schema of the document asks of one object (an order's 13). */
export function mostRequired(document: ApiDocument): number {
  const schemas = Object.values(
    (document.components as { schemas?: Record<string, { required?: unknown[] }> }).schemas ?? {},
  );
  return Math.max(0, ...schemas.map((schema) => schema.required?.length ?? 0));
}

/**
 * Before validation: a body that may cost its validator more than any request takes is refused, naming the array or
 * object that passed the budget, without checking what it holds. The validator lists every failing field before the
 * answer keeps 50: half a million wrong items cost hundreds of MB and seconds each (bench/invalid-bodies.mjs). This costs one walk
 * of the parsed body, and only of bodies big enough to pass the budget.
 */
export function boundedBody(document: ApiDocument): RequestHandler {
  const objectCost = mostRequired(document);
  const present = bodyRequired(document);
  return (req, _res, next) => {
    present(req);
    const raw = stateOf(req).rawBody;
    const max = req.path.startsWith('/__control/') ? MAX_CONTROL_BODY_COST : MAX_BODY_COST;
    if (raw === undefined || raw.length < smallestOver(max, objectCost)) return next();
    const over = overBudget(req.body, max, objectCost);
    if (!over) return next();
    const { path, kind, members } = over;
    const noun = kind === 'array' ? 'items' : 'properties';
    const pointer = path === '' ? '/' : path;
    throw new DomainError(
      422,
      'validation_error',
      `The request is not valid: body ${pointer} holds ${members} ${noun}, more than a request body may hold (at most ${max} values, an object counting ${1 + objectCost}); nothing in it was checked further.`,
      [{ location: 'body', path: pointer, message: `holds ${members} ${noun}, more than a request body may hold` }],
    );
  };
}
