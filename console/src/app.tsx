import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  api,
  ControlError,
  type Api,
  type Fault,
  type JournalEntry,
  type ListedClient,
  type Schemas,
  type World,
} from './api.js';
import { load, save, type Stored } from './session.js';

export interface AppState {
  api: Api;
  /** The control plane's clients (GET /__control/clients), the default one first. */
  clients: ListedClient[] | undefined;
  /** The picked tenant: the one this tab picked while it exists, else the demo partner (under --demo), else the default client. */
  clientId: string | undefined;
  defaultClientId: string | undefined;
  world: World | undefined;
  faults: Fault[] | undefined;
  report: Schemas['ReadinessReport'] | undefined;
  /** Every client's journal entries, newest first. */
  journal: JournalEntry[] | undefined;
  clock: TenantClock | undefined;
  /** Each order's next step on the tenant's clock, by order id, while the tenant's world moves by itself. */
  nextSteps: Map<string, Schemas['OrderNextStep']> | undefined;
  /** Whether the picked tenant's world moves by itself (clock progression or investor activity): it is read every second. */
  living: boolean;
  loadError: unknown;
  needsToken: boolean;
  /** The code of the guard's 401 when a token was sent and refused (`invalid_control_token`, `token_expired`…). */
  tokenRejected: string | undefined;
  useToken: (token: string) => void;
  pickClient: (clientId: string) => void;
  /** Reads everything again (after a change the console made); the clients too, so a new one can be picked next. */
  refresh: () => Promise<void>;
  notice: string;
  notify: (text: string) => void;
}

/** The tenant's clock as last read, and when (this browser's time). */
export interface TenantClock {
  now: Date;
  frozen: boolean;
  readAt: number;
}

/** The tenant's time now: a running clock ticks on locally between reads, a frozen one stays. */
export const tenantNow = (clock: TenantClock): Date =>
  clock.frozen ? clock.now : new Date(clock.now.getTime() + Date.now() - clock.readAt);

/** A tenant whose orders move, or are placed, without anyone asking. */
const isLiving = (client: ListedClient | undefined): boolean =>
  client?.settings.order_progression === 'clock' || (client?.settings.investor_activity_per_hour ?? 0) > 0;

const AppContext = createContext<AppState | undefined>(undefined);
export const useApp = (): AppState => useContext(AppContext)!;

const POLL_MS = 1000;

export function useAppState(): AppState {
  const [stored, setStored] = useState<Stored>(load);
  const [clients, setClients] = useState<ListedClient[]>();
  const [world, setWorld] = useState<World>();
  const [faults, setFaults] = useState<Fault[]>();
  const [report, setReport] = useState<Schemas['ReadinessReport']>();
  const [journal, setJournal] = useState<JournalEntry[]>();
  const [clock, setClock] = useState<AppState['clock']>();
  const [nextSteps, setNextSteps] = useState<AppState['nextSteps']>();
  const [loadError, setLoadError] = useState<unknown>();
  const [needsToken, setNeedsToken] = useState(false);
  const [tokenRejected, setTokenRejected] = useState<string>();
  const [notice, setNotice] = useState('');

  const update = useCallback((change: Partial<Stored>) => {
    setStored((s) => {
      const next = { ...s, ...change };
      save(next);
      return next;
    });
  }, []);

  const { controlToken } = stored;
  // a partner signed in with its own token is listed alone, and is its own default
  const defaultClientId = (clients?.find((c) => c.default) ?? clients?.[0])?.client_id;
  // Under --demo the console opens on the demo partner, whose session fills Overview, Requests and Readiness at once.
  const firstPick = clients?.find((c) => c.demo_partner)?.client_id ?? defaultClientId;
  // A tenant picked earlier in this tab may be gone (the fake restarted): then the first pick.
  const clientId = clients?.some((c) => c.client_id === stored.clientId) ? stored.clientId : firstPick;
  const living = isLiving(clients?.find((c) => c.client_id === clientId));
  const onUnauthorized = useCallback(
    (code: string) => {
      setNeedsToken(true);
      // no token yet: the guard asks for one; a token sent and refused: say why
      setTokenRejected(controlToken !== undefined ? code : undefined);
    },
    [controlToken],
  );
  const client = useMemo(
    () => api({ controlToken, clientId, onUnauthorized }),
    [controlToken, clientId, onUnauthorized],
  );
  const anyClient = useMemo(
    () => api({ controlToken, clientId: undefined, onUnauthorized }),
    [controlToken, onUnauthorized],
  );

  const failed = useCallback((e: unknown) => {
    if (!(e instanceof ControlError && e.wrongControlToken)) setLoadError(e);
  }, []);

  // The clients first: they name the default tenant, and they prove the CONTROL_TOKEN.
  useEffect(() => {
    anyClient.clients().then((list) => {
      setClients(list);
      setNeedsToken(false);
      setLoadError(undefined);
    }, failed);
  }, [anyClient, failed]);

  const ready = clientId !== undefined && !needsToken;
  // The answers of the tenant picked last win: a slow read for the one picked before is dropped.
  const livingRef = useRef(living);
  livingRef.current = living;
  const current = useRef(client);
  current.current = client;
  const refresh = useCallback(async () => {
    if (!ready) return;
    try {
      const [list, w, f, r, c, orders] = await Promise.all([
        anyClient.clients(),
        client.state(),
        client.faults(),
        client.report(),
        client.clock(),
        livingRef.current ? client.orders() : undefined,
      ]);
      if (current.current !== client) return;
      setClients(list);
      setWorld(w);
      setFaults(f);
      setReport(r);
      setClock({ now: new Date(c.now), frozen: c.frozen, readAt: Date.now() });
      setNextSteps(orders && new Map(orders.data.map((o) => [o.order.id, o.next_step])));
      setLoadError(undefined);
    } catch (e) {
      failed(e);
    }
  }, [anyClient, client, ready, failed]);

  useEffect(() => {
    setWorld(undefined);
    void refresh();
  }, [refresh]);

  // The live feed: the journal every second; when it moved, the partner changed something, so read the world again.
  // A living world moves without requests: it is read again every second.
  const lastSeen = useRef('');
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    if (!ready) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        // the picked tenant's whole journal (so a finding's requests are there, however many others sent theirs),
        // and the newest of every client's since their resets
        const [own, everyone] = await Promise.all([client.requests(false, 'start'), anyClient.requests(true)]);
        if (stopped) return;
        const entries = [...new Map([...own, ...everyone].map((e) => [e.id, e])).values()].sort(
          (a, b) => Number(a.id) - Number(b.id),
        );
        const newest = entries.at(-1);
        const mark = `${entries.length}:${newest?.id ?? ''}`;
        if (mark !== lastSeen.current) {
          lastSeen.current = mark;
          setJournal(entries.slice().reverse());
          void refreshRef.current();
        } else if (livingRef.current) {
          void refreshRef.current();
        }
      } catch {
        // shown by the next refresh; keep polling
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [anyClient, client, ready]);

  return {
    api: client,
    clients,
    clientId,
    defaultClientId,
    world,
    faults,
    report,
    journal,
    clock,
    // a tenant switched off stops showing steps at once, before the next read
    nextSteps: living ? nextSteps : undefined,
    living,
    loadError,
    needsToken,
    tokenRejected,
    useToken: (token) => {
      update({ controlToken: token });
      setTokenRejected(undefined);
      setNeedsToken(false);
      setLoadError(undefined);
    },
    pickClient: (id) => update({ clientId: id }),
    refresh,
    notice,
    notify: setNotice,
  };
}

export const AppProvider = AppContext.Provider;
