import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf, type App } from '../api';
import { parseRoute, type Route } from '../route';

/** One async action's state: whether it runs, and the words of its last failure. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; code?: string }>();
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError({ message: messageOf(failure), code: failure instanceof ApiError ? failure.code : undefined });
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/**
 * One app, loaded whenever the id changes; an answer that arrives after the
 * screen moved to another app is dropped. setApp replaces it after an action.
 */
export function useApp(id: string) {
  const [app, setApp] = useState<App>();
  const [loadError, setLoadError] = useState<string>();
  useEffect(() => {
    let current = true;
    setApp(undefined);
    setLoadError(undefined);
    api<App>('GET', `apps/${id}`)
      .then((answer) => current && setApp(answer))
      .catch((failure) => current && setLoadError(messageOf(failure)));
    return () => {
      current = false;
    };
  }, [id]);
  return { app, setApp, loadError };
}

/**
 * Calls `load` now and then every `intervalMs` while the page is visible:
 * polling stops while the tab is hidden (document.visibilityState) and
 * starts again, with a load at once, when it is shown; leaving the screen
 * (unmount) stops it. The next call is planned only after the last one
 * settled, so a slow answer never piles requests up. `key` restarts it (a
 * new class, a new stuck-minutes value). Polling rather than a push channel:
 * docs/exercises.md, "In the portal".
 */
export function usePolling(load: () => Promise<void>, intervalMs: number, key: unknown = undefined): void {
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    const tick = async () => {
      timer = undefined;
      if (stopped || running || document.visibilityState !== 'visible') return;
      running = true;
      try {
        await latest.current();
      } finally {
        running = false;
        if (!stopped && document.visibilityState === 'visible' && timer === undefined) timer = setTimeout(tick, intervalMs);
      }
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible') {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      } else if (timer === undefined) {
        void tick();
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    void tick();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs, key]);
}

/** The screen the URL's hash names (route.ts), following every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
