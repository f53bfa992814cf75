import { useState } from 'preact/hooks';

/** Selects the text of an element, for copying by hand where the clipboard API is unavailable. */
function selectText(id: string): boolean {
  const element = document.getElementById(id);
  const selection = window.getSelection();
  if (!element || !selection) return false;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
}

/**
 * Copies `text` with the clipboard API (a secure context: https, localhost or
 * 127.0.0.1). Where that is missing or refused, it selects the value on screen
 * and says how to copy it by hand.
 */
export function CopyButton({ text, what, targetId }: { text: string; what: string; targetId: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'manual'>();
  const copy = async () => {
    try {
      if (!window.isSecureContext || !navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      selectText(targetId);
      setOutcome('manual');
    }
  };
  return (
    <span class="copy">
      <button type="button" class="small" onClick={copy}>
        Copy <span class="visually-hidden">{what}</span>
      </button>
      <span role="status" class="copy-status">
        {outcome === 'copied'
          ? `${what} copied.`
          : outcome === 'manual'
            ? 'Copying is not available here: the text is selected, press Ctrl+C (⌘C on a Mac).'
            : ''}
      </span>
    </span>
  );
}
