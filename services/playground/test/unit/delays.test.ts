import { AppError, createLogger, GrpcStatus, type CallContext } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import type { Sleep } from '../../src/domain/delay';
import { planRespond, RESPOND_DELAY_CAP_MS } from '../../src/domain/respond';
import { planTimeout, TIMEOUT_CAP_MS } from '../../src/domain/timeout';
import { answered, delayed } from '../../src/grpc/answers';
import { timerSleep } from '../../src/grpc/sleep';
import { inbound, read } from './support/requests';

const respond = (rawQuery: string, method = 'GET') => {
  const planned = planRespond(inbound({ method, path: '/playground/response', rawQuery }));
  return { delay: planned.delay, ...read(planned.answer) };
};

describe('response: status, delay and body as asked', () => {
  it('when nothing is asked, then 200 at once with a JSON description', () => {
    const answer = respond('');
    expect(answer.delay.appliedMs).toBe(0);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-delay-applied-ms']).toBe('0');
    expect(answer.json).toEqual({
      status: 200,
      statusText: 'OK',
      method: 'GET',
      delayRequestedMs: 0,
      delayAppliedMs: 0,
      delayCapMs: RESPOND_DELAY_CAP_MS,
      notes: [],
    });
  });

  it('when status and body are given, then that status with the body as text/plain', () => {
    const answer = respond('status=503&body=try+again%21');
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(answer.text).toBe('try again!');
  });

  it.each(['99', '600', '1000', '0'])('when status is %s, then 400 naming the range', async (status) => {
    await expect(refusalOf(() => respond(`status=${status}`))).resolves.toEqual({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_parameter',
      message: `status must be an integer from 100 to 599; got ${Number(status)}.`,
    });
  });

  it.each(['abc', '20x', '2.5e2', '-200', ''])('when status is %j, then 400 invalid_parameter naming status', async (status) => {
    const refusal = await refusalOf(() => respond(`status=${status}`));
    expect(refusal.code).toBe('invalid_parameter');
    expect(refusal.message).toMatch(/^status must be an integer from 100 to 599/);
  });

  it('when the delay is above the cap, then it is clamped to 10 s and the answer says so in a field and headers', () => {
    const answer = respond('delay=25000');
    expect(answer.delay).toEqual({ requestedMs: 25000, appliedMs: 10000, capMs: 10000, clamped: true });
    expect(answer.headers['x-delay-applied-ms']).toBe('10000');
    expect(answer.headers['x-playground-note']).toBe('delay=25000 is above the cap of 10000 ms, so the wait was 10000 ms.');
    expect(answer.json).toMatchObject({ delayRequestedMs: 25000, delayAppliedMs: 10000 });
  });

  it.each(['-5', '1.5', 'soon'])('when the delay is %j, then 400 invalid_parameter naming delay', async (delay) => {
    const refusal = await refusalOf(() => respond(`delay=${delay}`));
    expect(refusal.code).toBe('invalid_parameter');
    expect(refusal.message).toMatch(/^delay must be a whole number of milliseconds/);
  });

  it.each([100, 101, 102, 103, 150, 199])('when status is %i (informational), then the final answer is a 200 that says why', (status) => {
    const answer = respond(`status=${status}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-status-requested']).toBe(String(status));
    expect(answer.headers['x-playground-note']).toContain('informational (1xx) status');
    expect(answer.json).toMatchObject({ status: 200, statusRequested: status });
  });

  it('when status is 1xx with a body, then the body is sent as text with the 200', () => {
    const answer = respond('status=103&body=hints');
    expect([answer.status, answer.text, answer.headers['x-status-requested']]).toEqual([200, 'hints', '103']);
  });

  it.each([204, 205, 304])('when status is %i, then the answer has no body and no Content-Type, and a body parameter is said to be dropped', (status) => {
    const bare = respond(`status=${status}`);
    expect([bare.status, bare.text, bare.headers['content-type'], bare.headers['x-playground-note']]).toEqual([status, '', undefined, undefined]);
    const withBody = respond(`status=${status}&body=ignored`);
    expect(withBody.text).toBe('');
    expect(withBody.headers['x-playground-note']).toMatch(new RegExp(`^${status} .* cannot carry a body, so the body parameter was not sent\\.$`));
  });

  it('when status is 401 or 405, then the header HTTP requires with it comes along', () => {
    expect(respond('status=401').headers['www-authenticate']).toBe('Bearer realm="training-sandbox"');
    expect(respond('status=405').headers.allow).toBe('GET, POST, PUT, PATCH, DELETE');
  });

  it('when status is a redirect, then the note says there is no Location to follow', () => {
    expect(respond('status=302').json.notes[0]).toContain('has no Location');
  });

  it.each([429, 503])('when status is %i with retry_after, then Retry-After carries it, the body names it, and no note is added', (status) => {
    const answer = respond(`status=${status}&retry_after=2`);
    expect([answer.status, answer.headers['retry-after'], answer.headers['x-playground-note']]).toEqual([status, '2', undefined]);
    expect(answer.json).toMatchObject({ status, retryAfter: 2, notes: [] });
  });

  it('when retry_after comes with a status clients do not read it with, then it is sent and a note says it is ignored', () => {
    const answer = respond('status=200&retry_after=0');
    expect(answer.headers['retry-after']).toBe('0');
    expect(answer.headers['x-playground-note']).toBe(
      'Retry-After was sent as asked, but clients read it only with a 3xx, 429 or 503 (RFC 9110 10.2.3), so with 200 it is ignored.',
    );
  });

  it('when retry_after is absent, then there is no Retry-After and no field', () => {
    const answer = respond('status=503');
    expect(answer.headers['retry-after']).toBeUndefined();
    expect(answer.json).not.toHaveProperty('retryAfter');
  });

  it.each(['121', '-1', '1.5', ''])('when retry_after is %j, then 400 naming the range of seconds', async (value) => {
    const refusal = await refusalOf(() => respond(`status=503&retry_after=${value}`));
    expect(refusal.code).toBe('invalid_parameter');
    expect(refusal.message).toMatch(/^retry_after must be a whole number of seconds from 0 to 120/);
  });
});

describe('timeout', () => {
  const timeout = (rawQuery: string) => {
    const planned = planTimeout(inbound({ path: '/playground/timeout', rawQuery }));
    return { delay: planned.delay, ...read(planned.answer) };
  };

  it('when no delay is given, then it waits 1000 ms and answers 200 saying so', () => {
    const answer = timeout('');
    expect(answer.delay.appliedMs).toBe(1000);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-delay-applied-ms']).toBe('1000');
    expect(answer.json).toMatchObject({ status: 200, delayRequestedMs: 1000, delayAppliedMs: 1000, delayCapMs: TIMEOUT_CAP_MS });
  });

  it('when the delay is above 60 s, then it is clamped with a note', () => {
    const answer = timeout('delay=90000');
    expect(answer.delay.appliedMs).toBe(60000);
    expect(answer.headers['x-delay-applied-ms']).toBe('60000');
    expect(answer.json.notes[0]).toBe('delay=90000 is above the cap of 60000 ms, so the wait was 60000 ms.');
  });

  it.each(['-1', '0.5', 'x', ''])('when the delay is %j, then 400 invalid_parameter', async (delay) => {
    await expect(refusalOf(() => timeout(`delay=${delay}`))).resolves.toMatchObject({ code: 'invalid_parameter' });
  });

  it('when the delay is 0, then it answers at once', () => {
    expect(timeout('delay=0').delay.appliedMs).toBe(0);
  });
});

describe('waiting, and stopping when the call is cancelled', () => {
  const context = (controller: AbortController): CallContext => ({
    requestId: 'r1',
    metadata: undefined as never,
    signal: controller.signal,
    logger: createLogger('test', 'silent'),
    caller: 'gateway',
  });

  it('when the delay passes, then the planned answer comes back after sleeping exactly the applied delay', async () => {
    const waits: number[] = [];
    const sleep: Sleep = async (ms) => {
      waits.push(ms);
    };
    const handler = answered(delayed(planRespond, sleep));
    const { http } = await handler({ http: inbound({ rawQuery: 'status=418&delay=20000' }) }, context(new AbortController()));
    expect(waits).toEqual([10000]);
    expect(http.status).toBe(418);
  });

  it('when the call is cancelled mid-delay, then the wait stops and the handler ends with CANCELLED', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const waiting = new Promise<void>((resolve) => (started = resolve));
    const sleep: Sleep = (_ms, signal) =>
      new Promise((_resolve, reject) => {
        started();
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const call = answered(delayed(planTimeout, sleep))({ http: inbound({ rawQuery: 'delay=60000' }) }, context(controller));
    await waiting;
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: GrpcStatus.CANCELLED, code: 'cancelled' });
  });

  it('when the real timer sleep is aborted, then it rejects at once and its timer is gone', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const controller = new AbortController();
    const sleeping = timerSleep(60_000, controller.signal);
    expect(timers()).toBe(before + 1);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ name: 'AbortError' });
    expect(timers()).toBe(before);
  });
});
