import type { FieldErrors } from './field-errors.js';

export interface DateOfBirth {
  dob_day: number;
  dob_month: number;
  dob_year: number;
}

const DOB_FIELDS = ['dob_day', 'dob_month', 'dob_year'] as const;

/** A real calendar date (no 30 February), strictly before `today` (the tenant's clock), with a four-digit year. */
export function checkDateOfBirth(
  dob: DateOfBirth,
  today: Date,
  errors: FieldErrors,
  path: (field: keyof DateOfBirth) => string,
): void {
  const { dob_day: day, dob_month: month, dob_year: year } = dob;
  const wholeNumbers = DOB_FIELDS.filter((f) => !Number.isInteger(dob[f]));
  for (const field of wholeNumbers) errors.add('invalid_date_of_birth', path(field), `${field} must be a whole number`);
  if (wholeNumbers.length > 0) return;
  if (year < 1000 || year > 9999) {
    errors.add('invalid_date_of_birth', path('dob_year'), 'dob_year must have four digits');
    return;
  }
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year); // Date.UTC maps years 0–99 to 19xx
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    errors.add('invalid_date_of_birth', path('dob_day'), `${year}-${pad(month)}-${pad(day)} is not a calendar date`);
    return;
  }
  const startOfToday = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  if (date.getTime() >= startOfToday)
    errors.add('invalid_date_of_birth', path('dob_year'), 'the date of birth must be in the past');
}

/** `dob_day`, `dob_month` and `dob_year` come together or not at all. */
export function checkDobComplete(fields: Partial<Record<keyof DateOfBirth, unknown>>, errors: FieldErrors): boolean {
  const present = DOB_FIELDS.filter((f) => fields[f] !== undefined);
  if (present.length === 0 || present.length === 3) return present.length === 3;
  for (const missing of DOB_FIELDS.filter((f) => fields[f] === undefined)) {
    errors.add(
      'invalid_date_of_birth',
      `/${missing}`,
      'dob_day, dob_month and dob_year come together: this one is missing',
    );
  }
  return false;
}

/** `birthdate` (`YYYY-MM-DD`) of the update body as the three fields. The schema has checked the format. */
export function parseBirthdate(birthdate: string): DateOfBirth {
  const [year, month, day] = birthdate.split('-').map(Number);
  return { dob_year: year!, dob_month: month!, dob_day: day! };
}

const pad = (n: number): string => String(n).padStart(2, '0');
