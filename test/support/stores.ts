import { randomBytes } from 'node:crypto';

/** The real stores the integration run was given (see test/global-setup.ts). */
export function requireStoreUrls(): { mongoUrl: string; redisUrl: string } {
  const mongoUrl = process.env.MONGO_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!mongoUrl || !redisUrl) throw new Error('MONGO_URL and REDIS_URL must be set for integration tests (npm test sets them)');
  return { mongoUrl, redisUrl };
}

/** MONGO_URL pointed at a database of its own, so test files never share data. */
export function isolatedMongoUrl(label: string): string {
  const url = new URL(requireStoreUrls().mongoUrl);
  url.pathname = `/${label.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  return url.toString();
}

export const uniqueId = (prefix = '') => `${prefix}${randomBytes(6).toString('hex')}`;
