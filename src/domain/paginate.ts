export interface Page {
  skip?: number;
  limit?: number;
}

const DEFAULT_LIMIT = 100;

/**
 * Keeps the items that pass every filter, then cuts the page: `skip` then at most `limit` items. Without a filter
 * the page is a slice, however deep the skip.
 */
export function paginate<T>(items: readonly T[], page: Page, keep?: (item: T) => boolean): T[] {
  const skip = page.skip ?? 0;
  const limit = page.limit ?? DEFAULT_LIMIT;
  if (!keep) return items.slice(skip, skip + limit);
  const out: T[] = [];
  let seen = 0;
  for (const item of items) {
    if (!keep(item)) continue;
    if (seen++ < skip) continue;
    out.push(item);
    if (out.length === limit) break;
  }
  return out;
}
