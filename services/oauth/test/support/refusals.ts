import { AppError } from '@sandbox/runtime';

// @sandbox/testing's refusalOf keeps status, code and message; oauth's tests
// also read the challenge (WWW-Authenticate) a refusal carries, so these
// answer the whole AppError.

const caught = (error: unknown): AppError => {
  if (error instanceof AppError) return error;
  throw error;
};

/** The AppError a call was refused with, challenge included; fails the test when it was not refused (or failed otherwise). */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return caught(error);
  }
  throw new Error('expected a refusal');
}

/** The AppError `run` throws at once (a rule without I/O); fails the test when it throws none (or something else). */
export function appErrorThrownBy(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    return caught(error);
  }
  throw new Error('expected a refusal');
}
