import { DomainError } from '../api/errors.js';
import type { Schemas } from '../api/types.js';

// The range an ISO 8601 timestamp with a four-digit year can show.
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
/**
 * The latest instant a clock may be set or advanced to: a year below the last one a date can show, so a running
 * clock set there keeps a year of real time before it reaches that bound, and a tenant persisted with it loads
 * (restore takes a running clock up to LATEST_MS, and puts one that ran beyond it back there).
 */
const LATEST_SETTABLE_MS = Date.UTC(9998, 11, 31, 23, 59, 59);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * A tenant's clock: real time shifted by an offset, so it keeps running after it is set; or frozen at an instant,
 * so it moves only when told (a test that wants the same answers every run). Everything time-dependent (token issue
 * and expiry, `created`, document link expiry, order progression) reads it.
 */
export class Clock {
  private offsetMs = 0;
  private frozenAtMs: number | undefined;

  now(): Date {
    return new Date(this.frozenAtMs ?? Date.now() + this.offsetMs);
  }

  /** `now()` in ms, without a Date. */
  nowMs(): number {
    return this.frozenAtMs ?? Date.now() + this.offsetMs;
  }

  nowSeconds(): number {
    return Math.floor(this.now().getTime() / 1000);
  }

  get frozen(): boolean {
    return this.frozenAtMs !== undefined;
  }

  set(to: Date): void {
    this.moveTo(Clock.checked(to.getTime()));
  }

  advance(seconds: number): void {
    this.moveTo(Clock.checked(this.now().getTime() + seconds * 1000));
  }

  /** Stops the clock at the instant it shows. */
  freeze(): void {
    this.frozenAtMs = this.now().getTime();
  }

  /** Lets it run on from the instant it shows. */
  unfreeze(): void {
    if (this.frozenAtMs !== undefined) this.offsetMs = this.frozenAtMs - Date.now();
    this.frozenAtMs = undefined;
  }

  reset(): void {
    this.offsetMs = 0;
    this.frozenAtMs = undefined;
  }

  /** What a restart must keep (STATE_DIR): how far it runs from real time in ms, or the instant it is frozen at. */
  get offset(): number {
    return this.frozenAtMs === undefined ? this.offsetMs : this.frozenAtMs - Date.now();
  }

  get frozenAt(): number | undefined {
    return this.frozenAtMs;
  }

  /**
   * A kept clock. An offset no clock change could have made (the latest instant, set at the earliest) is refused. A
   * running clock has run on while the process was down: one that ran past the last instant a date can show is put
   * back there, never refused for having run (a year's margin makes that rare: LATEST_SETTABLE_MS).
   */
  restore(offsetMs: number, frozenAtMs?: number): void {
    if (!(offsetMs <= LATEST_SETTABLE_MS - EARLIEST_MS)) Clock.checked(Number.NaN);
    const now = Date.now();
    this.offsetMs = Math.min(Clock.checked(now + offsetMs, Number.POSITIVE_INFINITY), LATEST_MS) - now;
    this.frozenAtMs = frozenAtMs === undefined ? undefined : Clock.checked(frozenAtMs, LATEST_MS);
  }

  private moveTo(ms: number): void {
    if (this.frozenAtMs === undefined) this.offsetMs = ms - Date.now();
    else this.frozenAtMs = ms;
  }

  private static checked(ms: number, latest = LATEST_SETTABLE_MS): number {
    if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms > latest) {
      throw new DomainError(
        422,
        'invalid_clock',
        `The clock must stay between ${iso(EARLIEST_MS)} and ${iso(Math.min(latest, LATEST_MS))} (a year below the last instant a date can show, so a running clock kept in STATE_DIR always loads).`,
      );
    }
    return ms;
  }
}

/** The clock as the control plane shows it. */
export const clockView = (clock: Clock): Schemas['Clock'] => ({ now: clock.now().toISOString(), frozen: clock.frozen });

/**
 * A control-plane clock change: to a time or by a number of seconds (the document allows one of the two), and/or
 * frozen or running. Frozen first, so a clock frozen and set shows exactly the time set.
 */
export function changeClock(clock: Clock, change: Schemas['ClockChange']): Schemas['Clock'] {
  if (change.frozen === true) clock.freeze();
  if (change.now !== undefined) clock.set(new Date(change.now));
  else if (change.advance_seconds !== undefined) clock.advance(change.advance_seconds);
  if (change.frozen === false) clock.unfreeze();
  return clockView(clock);
}
