import { AppError } from '@sandbox/runtime';

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** The AppError a call was refused with; fails the test when it was not refused (or failed otherwise). */
export async function refusalOf(promise: Promise<unknown> | (() => unknown)): Promise<Refusal> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}
