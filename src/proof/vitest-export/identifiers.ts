import { variable, type Code, type Written } from '../code-writer.js';

const camel = (text: string): string =>
  text.replace(/[-_\s]+(\w)/g, (_, c: string) => c.toUpperCase()).replace(/[^\w$]/g, '');

/** `accounts` → `account`, `payment-method-details` → `paymentMethodDetails`: a variable's stem. */
export function stemOf(name: string): string {
  const word = camel(name.toLowerCase());
  const singular = /ies$/.test(word) ? word.replace(/ies$/, 'y') : /[^s]s$/.test(word) ? word.slice(0, -1) : word;
  return /^[A-Za-z_$]/.test(singular) ? singular : `id${singular}`;
}

/**
 * The identifiers a session issued (accounts, wallets, orders, faults it created), each read into a variable of the
 * replay (`account1`, `order2`): later steps name the variable, never the value, since another run or version may
 * issue others. Identifiers of the starting world are not here: they are written as they are.
 */
export class IssuedIdentifiers {
  private readonly byValue = new Map<string, Code>();
  private readonly counts = new Map<string, number>();
  /** The identifiers of the world the span began from (and of snapshots it loaded): written as they are. */
  private readonly starting = new Set<string>();

  /** The variables declared so far, in their order. */
  readonly variables: Code[] = [];

  add(value: string, stem: string): Code {
    const known = this.byValue.get(value);
    if (known) return known;
    // a stem is made of an outside name (`stemOf`): whatever it holds, the variable is an identifier and nothing more,
    // lower case first (the file's own names are words without digits or upper case: `SNAPSHOT_1` stays the
    // snapshot's), and one ending in a digit set apart (`account1_1` is never `account` 11)
    const identifier = /^[A-Za-z_$][\w$]*$/.test(stem) ? `${stem[0]!.toLowerCase()}${stem.slice(1)}` : 'id';
    const name = /\d$/.test(identifier) ? `${identifier}_` : identifier;
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    const made = variable(`${name}${n}`);
    this.byValue.set(value, made);
    this.variables.push(made);
    return made;
  }

  /** Identifiers of a world the span began from or loaded: never taken for issued ones. */
  addStarting(world: unknown): void {
    if (world === null || typeof world !== 'object') return;
    for (const collection of Object.values(world)) {
      if (Array.isArray(collection))
        for (const item of collection)
          if (typeof (item as { id?: unknown })?.id === 'string') this.starting.add((item as { id: string }).id);
    }
  }

  isStarting(value: string): boolean {
    return this.starting.has(value);
  }

  variableOf(value: string): Code | undefined {
    return this.byValue.get(value);
  }

  /** Whether a text holds an issued identifier inside it (a link, a message): such a text cannot be compared. */
  holdsOne(text: string): boolean {
    for (const value of this.byValue.keys()) if (value !== text && text.includes(value)) return true;
    return false;
  }

  /** A JSON value with every issued identifier (a whole string) replaced by its variable. */
  written(value: unknown): Written {
    if (typeof value === 'string') return this.byValue.get(value) ?? value;
    if (Array.isArray(value)) return value.map((item) => this.written(item));
    if (value === null || typeof value !== 'object') return value as Written;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.written(item)]));
  }

  /** A path's segments, an issued identifier standing as its variable. */
  pathParts(path: string): (string | Code)[] {
    const parts: (string | Code)[] = [];
    for (const [i, segment] of path.split('/').entries()) {
      if (i > 0) parts.push('/');
      parts.push(this.byValue.get(decodeSegment(segment)) ?? segment);
    }
    return parts;
  }
}

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * The identifiers an answer shows first that the span issued: the string `id` members at any depth of a successful
 * answer that `named` does not know (the request's own, the starting world's, those read already). A record made
 * inside another (an account's first wallet) is seen first in a list: read from it there. Each with its pointer and a
 * stem named after what holds it (the path's last word at the top and for a list's items, the member's name below).
 */
export function issuedIn(
  answer: unknown,
  topStem: string,
  named: (value: string) => boolean,
): { value: string; pointer: string; stem: string }[] {
  const out: { value: string; pointer: string; stem: string }[] = [];
  const visit = (value: unknown, pointer: string, stem: string, depth: number): void => {
    if (depth > 8 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, `${pointer}/${i}`, stem, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key === 'id' && typeof item === 'string' && item !== '' && !named(item))
        out.push({ value: item, pointer: at, stem });
      // a list's items are what its path names (`/v1/accounts/{id}/wallets` → `wallet`)
      else visit(item, at, key === 'data' ? stem : stemOf(key), depth + 1);
    }
  };
  visit(answer, '', topStem, 0);
  return out;
}
