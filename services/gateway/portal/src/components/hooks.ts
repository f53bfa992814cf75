import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, messageOf, type App } from '../api';

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
