/**
 * A file name for each client, from its id: a client id is anything a CLIENTS entry or a control call gave it (`/`,
 * `..`, spaces), so only letters, digits, `.`, `_` and `-` are kept, and two ids that read the same get `-2`, `-3`.
 */
export function fileStems(clientIds: readonly string[]): Map<string, string> {
  const stems = new Map<string, string>();
  const taken = new Set<string>(['fidelity', 'summary', 'fake']);
  for (const id of clientIds) {
    const base =
      id
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .replace(/^[.-]+/, '_')
        .slice(0, 100) || '_';
    let stem = base;
    for (let n = 2; taken.has(stem.toLowerCase()); n++) stem = `${base}-${n}`;
    taken.add(stem.toLowerCase());
    stems.set(id, stem);
  }
  return stems;
}
