// What the console keeps for this browser tab only (sessionStorage): the CONTROL_TOKEN, the picked tenant, and the
// clients it knows (the control plane has no list of clients, and never answers secrets).
const KEY = 'investment-api-fake.console';

export interface Stored {
  controlToken?: string;
  clientId?: string;
  /** client_id → the secret, when this console created the client (or the user typed it). */
  secrets: Record<string, string>;
  clients: string[];
}

export function load(): Stored {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Partial<Stored>;
    return { secrets: {}, clients: [], ...parsed };
  } catch {
    return { secrets: {}, clients: [] };
  }
}

export function save(stored: Stored): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(stored));
  } catch {
    // storage refused (private mode): the console still works for this page
  }
}
