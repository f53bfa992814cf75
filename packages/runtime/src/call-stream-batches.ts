/**
 * One message of a call stream carries at most about this much (a single
 * larger call or reply goes alone): far under grpc-js's 4 MiB default receive
 * limit, so a turn of the event loop that produced many large replies never
 * makes a message the other side refuses (which would fail the whole stream).
 */
export const MAX_BATCH_BYTES = 1024 * 1024;
/** Per item beyond its payload: id, status, field tags. */
const ITEM_OVERHEAD_BYTES = 16;

/** `items` in order, cut into runs of at most MAX_BATCH_BYTES by `size`. */
export function batches<T>(items: T[], size: (item: T) => number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const itemBytes = size(item) + ITEM_OVERHEAD_BYTES;
    if (current.length > 0 && bytes + itemBytes > MAX_BATCH_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += itemBytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}
