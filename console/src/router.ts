import { useEffect, useState } from 'preact/hooks';

const BASE = '/console/';

export interface Route {
  /** Path segments after /console/, such as ['orders', '<id>']. */
  segments: string[];
  query: URLSearchParams;
}

/** Other names a partner may type for a view (the view is named "Readiness" in the menu): the address is rewritten. */
const ALIASES: Record<string, string> = { readiness: 'report' };

function current(): Route {
  const segments = location.pathname.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  const alias = ALIASES[segments[0] ?? ''];
  if (alias !== undefined) {
    segments[0] = alias;
    history.replaceState(null, '', BASE + segments.map(encodeURIComponent).join('/') + location.search);
  }
  return { segments, query: new URLSearchParams(location.search) };
}

/** Moves to a console path (relative to /console/) without reloading; the views follow. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to.replace(/^\//, '');
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  // the same event as the browser's back and forward: one way for every view to learn the address changed
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** Same-page links: plain clicks move inside the console; modified clicks (new tab) stay the browser's. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a');
    if (
      !link ||
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    if (
      link.target ||
      link.hasAttribute('download') ||
      link.origin !== location.origin ||
      !link.pathname.startsWith(BASE)
    )
      return;
    event.preventDefault();
    navigate(link.pathname.slice(BASE.length) + link.search);
    scrollTo(0, 0);
  });
}

export const href = (to: string): string => BASE + to.replace(/^\//, '');
