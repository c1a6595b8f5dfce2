/**
 * `is_primary` is exclusive per account: `true` makes the item the one primary and clears the flag on its siblings
 * in the same step; `false` clears it; `null` or absent changes nothing (docs/api.md).
 */
export function applyPrimaryFlag<T extends { id: string; is_primary: boolean }>(
  siblings: readonly T[],
  item: T,
  flag: boolean | null | undefined,
): void {
  if (flag === true) {
    for (const sibling of siblings) sibling.is_primary = sibling.id === item.id;
    item.is_primary = true;
  } else if (flag === false) {
    item.is_primary = false;
  }
}
