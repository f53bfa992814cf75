/** The words of a refusal, next to what caused it: announced when it appears, linked by id from that control's aria-describedby. */
export function ErrorText({ id, message }: { id?: string; message?: string }) {
  return message ? (
    <p id={id} class="error" role="alert">
      {message}
    </p>
  ) : null;
}
