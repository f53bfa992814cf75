import { ALL_SCOPES, scopeWords } from '../scopes';
import { ErrorText } from './error-text';

/** The five pack scopes as checkboxes in a labelled group, with the group's error in words. */
export function ScopeCheckboxes({
  idPrefix,
  legend,
  selected,
  onChange,
  error,
}: {
  idPrefix: string;
  legend: string;
  selected: readonly string[];
  onChange: (scopes: string[]) => void;
  error?: string;
}) {
  const errorId = `${idPrefix}-error`;
  const toggle = (scope: string, on: boolean) => onChange(ALL_SCOPES.filter((s) => (s === scope ? on : selected.includes(s))));
  return (
    <fieldset class="scopes" aria-describedby={error ? errorId : undefined}>
      <legend>{legend}</legend>
      <p class="hint">Each scope lets the app read one data pack; without it, that pack answers 403.</p>
      <ul class="checks">
        {ALL_SCOPES.map((scope) => (
          <li key={scope}>
            <input
              type="checkbox"
              id={`${idPrefix}-${scope.replace(':', '-')}`}
              checked={selected.includes(scope)}
              onChange={(e) => toggle(scope, e.currentTarget.checked)}
            />
            <label for={`${idPrefix}-${scope.replace(':', '-')}`}>
              <code>{scope}</code> <span class="muted">{scopeWords(scope)}</span>
            </label>
          </li>
        ))}
      </ul>
      <ErrorText id={errorId} message={error} />
    </fieldset>
  );
}
