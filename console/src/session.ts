// What the console keeps for this browser tab only (sessionStorage): the CONTROL_TOKEN and the picked tenant. The
// clients and their secrets are the control plane's (GET /__control/clients), read fresh, never stored here.
const KEY = 'investment-api-fake.console';

export interface Stored {
  controlToken?: string;
  clientId?: string;
}

export function load(): Stored {
  try {
    const { controlToken, clientId } = JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Stored;
    return {
      ...(typeof controlToken === 'string' && { controlToken }),
      ...(typeof clientId === 'string' && { clientId }),
    };
  } catch {
    return {};
  }
}

export function save(stored: Stored): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(stored));
  } catch {
    // storage refused (private mode): the console still works for this page
  }
}
