/** A unique index refused a write; `index` names which one, so the caller can tell a taken email from a clash. */
export class DuplicateKeyError extends Error {
  override name = 'DuplicateKeyError';
  constructor(readonly index: string) {
    super(`duplicate key on ${index}`);
  }
}
