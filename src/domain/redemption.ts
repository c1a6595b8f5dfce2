import type { ShareClassRecord } from '../api/types.js';

/** How often a share class redeems; `redemption_cycle` names most, `redemption_window` words name one more. */
type Cadence = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'semi-annually' | 'annually';

const CADENCES: Record<string, Cadence | 'none'> = {
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  quarterly: 'quarterly',
  'semi-annually': 'semi-annually',
  'semi-annual': 'semi-annually',
  'half-yearly': 'semi-annually',
  annually: 'annually',
  annual: 'annually',
  yearly: 'annually',
  none: 'none',
};

/**
 * The window word of the list representation decides, the cycle of the get-by-ISIN one when the word is not one
 * we know: so both representations describe one schedule. `none` (closed) and unknown words have no date.
 */
function cadenceOf(record: Pick<ShareClassRecord, 'redemption_window' | 'redemption_cycle'>): Cadence | undefined {
  const cadence =
    CADENCES[record.redemption_window.trim().toLowerCase()] ??
    (record.redemption_cycle ? CADENCES[record.redemption_cycle] : undefined);
  return cadence === 'none' ? undefined : cadence;
}

const DAY_MS = 86_400_000;

/**
 * The first redemption date strictly after `now` (the tenant's clock), at 00:00 UTC: tomorrow, next Monday, the
 * first day of the next month, quarter, half-year or year. Never in the past of that clock, and it moves with it.
 */
export function nextRedemptionDate(
  record: Pick<ShareClassRecord, 'redemption_window' | 'redemption_cycle'>,
  now: Date,
): string | null {
  const cadence = cadenceOf(record);
  if (!cadence) return null;
  const [year, month, day] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  const firstOfMonth = (monthsPerPeriod: number) =>
    Date.UTC(year, month - (month % monthsPerPeriod) + monthsPerPeriod, 1);
  const next = {
    daily: () => Date.UTC(year, month, day) + DAY_MS,
    weekly: () => Date.UTC(year, month, day) + ((8 - now.getUTCDay()) % 7 || 7) * DAY_MS,
    monthly: () => firstOfMonth(1),
    quarterly: () => firstOfMonth(3),
    'semi-annually': () => firstOfMonth(6),
    annually: () => firstOfMonth(12),
  }[cadence]();
  return new Date(next).toISOString();
}
