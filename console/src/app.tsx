import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ControlError, whenUnauthorized, type Api, type Fault, type JournalEntry, type Schemas, type World } from './api.js';
import { load, save, type Stored } from './session.js';

export interface AppState {
  api: Api;
  stored: Stored;
  clientId: string | undefined;
  defaultClientId: string | undefined;
  world: World | undefined;
  faults: Fault[] | undefined;
  report: Schemas['ReadinessReport'] | undefined;
  /** Every client's journal entries, newest first. */
  journal: JournalEntry[] | undefined;
  clock: { now: Date; readAt: number } | undefined;
  loadError: unknown;
  needsToken: boolean;
  tokenRejected: boolean;
  useToken: (token: string) => void;
  pickClient: (clientId: string) => void;
  rememberClient: (clientId: string, secret?: string) => void;
  /** Reads everything again (after a change the console made). */
  refresh: () => Promise<void>;
  notice: string;
  notify: (text: string) => void;
}

const AppContext = createContext<AppState | undefined>(undefined);
export const useApp = (): AppState => useContext(AppContext)!;

const POLL_MS = 1000;

export function useAppState(): AppState {
  const [stored, setStored] = useState<Stored>(load);
  const [defaultClientId, setDefaultClientId] = useState<string>();
  const [world, setWorld] = useState<World>();
  const [faults, setFaults] = useState<Fault[]>();
  const [report, setReport] = useState<Schemas['ReadinessReport']>();
  const [journal, setJournal] = useState<JournalEntry[]>();
  const [clock, setClock] = useState<AppState['clock']>();
  const [loadError, setLoadError] = useState<unknown>();
  const [needsToken, setNeedsToken] = useState(false);
  const [tokenRejected, setTokenRejected] = useState(false);
  const [notice, setNotice] = useState('');

  const update = useCallback((change: Partial<Stored>) => {
    setStored((s) => {
      const next = { ...s, ...change };
      save(next);
      return next;
    });
  }, []);

  const clientId = stored.clientId ?? defaultClientId;
  const client = useMemo(() => api({ controlToken: stored.controlToken, clientId }), [stored.controlToken, clientId]);
  const anyClient = useMemo(() => api({ controlToken: stored.controlToken, clientId: undefined }), [stored.controlToken]);

  useEffect(() => {
    whenUnauthorized(() => {
      setNeedsToken(true);
      setTokenRejected(load().controlToken !== undefined);
    });
  }, []);

  // The default client: the one the control plane acts on without X-Client-Id (its report names it).
  useEffect(() => {
    anyClient
      .report()
      .then((r) => {
        setDefaultClientId(r.client_id);
        setNeedsToken(false);
        setStored((s) => (s.clients.includes(r.client_id) ? s : { ...s, clients: [r.client_id, ...s.clients] }));
      })
      .catch((e) => {
        if (!(e instanceof ControlError && e.wrongControlToken)) setLoadError(e);
      });
  }, [anyClient]);

  const ready = defaultClientId !== undefined && !needsToken;
  const refresh = useCallback(async () => {
    if (!ready) return;
    try {
      const [w, f, r, c] = await Promise.all([client.state(), client.faults(), client.report(), client.clock()]);
      setWorld(w);
      setFaults(f);
      setReport(r);
      setClock({ now: new Date(c.now), readAt: Date.now() });
      setLoadError(undefined);
    } catch (e) {
      setLoadError(e);
    }
  }, [client, ready]);

  useEffect(() => {
    setWorld(undefined);
    void refresh();
  }, [refresh]);

  // The live feed: the journal every second; when it moved, the partner changed something, so read the world again.
  const lastSeen = useRef('');
  useEffect(() => {
    if (!ready) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        const entries = await anyClient.requests(true);
        if (stopped) return;
        const newest = entries.at(-1);
        const mark = `${entries.length}:${newest?.id ?? ''}`;
        if (mark !== lastSeen.current) {
          lastSeen.current = mark;
          setJournal(entries.slice().reverse());
          // a client that got a 2xx exists; a claimed one (a wrong id at the token endpoint) may not
          const seen = [...new Set(entries.filter((e) => e.status >= 200 && e.status < 300).map((e) => e.client_id).filter((id): id is string => id !== null))];
          setStored((s) => (seen.every((id) => s.clients.includes(id)) ? s : { ...s, clients: [...new Set([...s.clients, ...seen])] }));
          void refresh();
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
  }, [anyClient, ready, refresh]);

  const notify = useCallback((text: string) => {
    setNotice(text);
  }, []);

  return {
    api: client,
    stored,
    clientId,
    defaultClientId,
    world,
    faults,
    report,
    journal,
    clock,
    loadError,
    needsToken,
    tokenRejected,
    useToken: (token) => {
      update({ controlToken: token });
      setTokenRejected(false);
      setNeedsToken(false);
      setLoadError(undefined);
    },
    pickClient: (id) => update({ clientId: id }),
    rememberClient: (id, secret) =>
      update({ clients: [...new Set([...stored.clients, id])], ...(secret !== undefined && { secrets: { ...stored.secrets, [id]: secret } }) }),
    refresh,
    notice,
    notify,
  };
}

export const AppProvider = AppContext.Provider;
