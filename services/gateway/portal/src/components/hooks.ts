import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api';

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
