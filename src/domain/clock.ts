import { DomainError } from '../api/errors.js';
import type { Schemas } from '../api/types.js';

// The range an ISO 8601 timestamp with a four-digit year can show.
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * A tenant's clock: real time shifted by an offset, so it keeps running after it is set. Everything
 * time-dependent (token issue and expiry, `created`, document link expiry) reads it.
 */
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** `now()` in ms, without a Date. */
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  nowSeconds(): number {
    return Math.floor(this.now().getTime() / 1000);
  }

  set(to: Date): void {
    this.offsetMs = Clock.checked(to.getTime()) - Date.now();
  }

  advance(seconds: number): void {
    this.offsetMs = Clock.checked(this.now().getTime() + seconds * 1000) - Date.now();
  }

  reset(): void {
    this.offsetMs = 0;
  }

  /** How far the clock runs from real time, in ms: what a restart must keep (STATE_DIR). */
  get offset(): number {
    return this.offsetMs;
  }

  restoreOffset(ms: number): void {
    this.offsetMs = Clock.checked(Date.now() + ms) - Date.now();
  }

  private static checked(ms: number): number {
    if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms > LATEST_MS) {
      throw new DomainError(422, 'invalid_clock', 'The clock must stay between 1970-01-01 and 9999-12-31.');
    }
    return ms;
  }
}

/** A control-plane clock change: to a time, or by a number of seconds (the document allows exactly one). */
export function changeClock(clock: Clock, change: Schemas['ClockChange']): Schemas['Clock'] {
  if (change.now !== undefined) clock.set(new Date(change.now));
  else if (change.advance_seconds !== undefined) clock.advance(change.advance_seconds);
  return { now: clock.now().toISOString() };
}
