import { AppError } from '@sandbox/runtime';

export interface Refusal {
  status: number;
  code: string;
  message: string;
  /** Only when the refusal says when to retry. */
  retryAfterSeconds?: number;
}

/** The AppError a call was refused with; fails the test when it was not refused (or failed otherwise). */
export async function refusalOf(promise: Promise<unknown> | (() => unknown)): Promise<Refusal> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof AppError) {
      const { status, code, message, retryAfterSeconds } = error;
      return retryAfterSeconds === undefined ? { status, code, message } : { status, code, message, retryAfterSeconds };
    }
    throw error;
  }
  throw new Error('expected a refusal');
}
