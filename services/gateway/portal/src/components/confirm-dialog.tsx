import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api';
import { ErrorText } from './error-text';

export interface ConfirmRequest {
  title: string;
  body: ComponentChildren;
  confirmLabel: string;
  /** Runs when confirmed; the dialog stays open (busy) until it settles, and shows its error if it fails. */
  action: () => Promise<void>;
}

/**
 * A modal <dialog> for destructive actions: it opens with focus on Cancel
 * (the safe choice), Escape closes it, and on closing the browser puts focus
 * back where it was. The confirm button repeats what will happen.
 */
export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | undefined; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const errorId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (request && !dialog.open) {
      setError(undefined);
      setBusy(false);
      dialog.showModal();
    } else if (!request && dialog.open) {
      dialog.close();
    }
  }, [request]);

  const confirm = async () => {
    if (!request || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await request.action();
      setBusy(false);
      onClose();
    } catch (failure) {
      setBusy(false);
      setError(messageOf(failure));
    }
  };

  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby={titleId}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      onClose={() => {
        if (request) onClose();
      }}
    >
      {request && (
        <div>
          <h2 id={titleId}>{request.title}</h2>
          <div class="confirm-body">{request.body}</div>
          <ErrorText id={errorId} message={error} />
          <div class="actions">
            <button type="button" autoFocus disabled={busy} onClick={onClose}>
              Cancel
            </button>
            <button type="button" class="danger" disabled={busy} aria-describedby={error ? errorId : undefined} onClick={confirm}>
              {busy ? 'Working…' : request.confirmLabel}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
