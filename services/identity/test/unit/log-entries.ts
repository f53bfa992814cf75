import type { RequestLogInput } from '../../src/domain/request-logs';

/** `count` plain request-log entries of one app, newest first, a millisecond apart, ending at `now`. */
export const logEntries = (app: string, count: number, now: Date, requestId: (i: number) => string = () => ''): RequestLogInput[] =>
  Array.from({ length: count }, (_, i) => ({
    app,
    appId: '',
    time: new Date(now.getTime() - i).toISOString(),
    method: 'GET',
    path: '/',
    status: 200,
    authStyle: '',
    latencyMs: 1,
    requestId: requestId(i),
    failure: '',
  }));
