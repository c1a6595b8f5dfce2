import { DomainError, type FieldError } from '../api/errors.js';

/**
 * Collects every broken business rule of one request, so the answer names all of them at once. The problem's
 * `code` is the rule's when one rule failed (`invalid_iban`), `validation_error` when several did.
 */
export class FieldErrors {
  private readonly errors: (FieldError & { code: string })[] = [];

  add(code: string, path: string, message: string): void {
    this.errors.push({ location: 'body', path, message, code });
  }

  throwIfAny(): void {
    if (this.errors.length === 0) return;
    const codes = new Set(this.errors.map((e) => e.code));
    const code = codes.size === 1 ? this.errors[0]!.code : 'validation_error';
    const summary = this.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
    throw new DomainError(
      422,
      code,
      `The request breaks ${this.errors.length === 1 ? 'a rule' : `${this.errors.length} rules`}: ${summary}.`,
      this.errors,
    );
  }
}

/** A value a rule can require: present and not just blanks. */
export const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
