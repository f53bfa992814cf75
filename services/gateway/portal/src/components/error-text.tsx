/** The words of a refusal, next to what caused it: announced when it appears, linked by id from that control's aria-describedby. */
export function ErrorText({ id, message }: { id?: string; message?: string }) {
  return message ? (
    <p id={id} class="error" role="alert">
      {message}
    </p>
  ) : null;
}

/** While something loads: why it could not be loaded, once that is known, else that it is loading (both announced). */
export function LoadingOrError({ error, loading }: { error?: string; loading: string }) {
  return error ? <ErrorText message={error} /> : <p role="status">{loading}</p>;
}
