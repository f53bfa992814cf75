import { ExerciseProgressService, sanitizeFacts, type LearnerRequest } from '../../src/domain/exercises/progress';
import type { ObservedRequest } from '../../src/domain/exercises/types';
import { MemoryExerciseProgressStore } from '../../src/stores/memory-exercise-progress-store';

/*
 * How a batch's requests become progress (exercises/progress.ts), with the
 * real catalogue: judged in the order they were answered, a done exercise
 * never judged again, one save per batch, and the list a learner sees.
 */
describe('exercise progress', () => {
  const APP = 'aaaaaaaaaaaaaaaaaaaaaaaa';
  let store: MemoryExerciseProgressStore;
  let progress: ExerciseProgressService;
  let saves: number;

  beforeEach(() => {
    store = new MemoryExerciseProgressStore();
    const save = store.save.bind(store);
    saves = 0;
    store.save = async (records) => {
      saves++;
      return save(records);
    };
    progress = new ExerciseProgressService(store);
  });

  const basic = (status: number, at: number, failure = ''): LearnerRequest => ({
    userId: 'ada',
    app: APP,
    request: {
      method: 'GET',
      path: '/playground/auth/basic',
      status,
      authStyle: status < 400 ? 'basic' : '',
      failure,
      at,
      facts: {},
    } satisfies ObservedRequest,
  });
  const stateOf = async (id: string) => (await progress.list('ada')).find((view) => view.exercise.id === id);

  it('when a refused Basic request comes, then the exercise is attempted with a hint naming the rule, and the rest are not started', async () => {
    await progress.judge([basic(401, 1000, 'invalid_app_secret: The App Secret does not match this App ID.')]);
    expect(await stateOf('auth-basic')).toMatchObject({ status: 'attempted', firstAttemptAt: 1000, lastAttemptAt: 1000 });
    expect((await stateOf('auth-basic'))?.hint).toMatch(/invalid_app_secret.*does not match/);
    expect(await stateOf('auth-bearer')).toMatchObject({ status: 'not_started', hint: '' });
  });

  it('when the refusal and its fix arrive in one batch out of order, then they are judged in the order they were answered', async () => {
    const changed = await progress.judge([basic(200, 2000), basic(401, 1000, 'invalid_app_secret: The App Secret does not match this App ID.')]);
    expect(await stateOf('auth-basic')).toMatchObject({ status: 'done', doneAt: 2000, doneWith: APP, firstAttemptAt: 1000, hint: '' });
    // The 401 read and fixed: a 401 at the endpoint, then a 2xx there.
    expect(await stateOf('start-401-fixed')).toMatchObject({ status: 'done', doneAt: 2000 });
    expect(changed).toBe(2);
    expect(saves).toBe(1);
  });

  it('when an exercise is done, then later refusals there leave it done; only exercises not done yet take them', async () => {
    await progress.judge([basic(200, 1000)]);
    const before = await stateOf('auth-basic');
    // The one change: the 401 starts "a 401 read and fixed", which a success before it could not complete.
    expect(await progress.judge([basic(401, 5000, 'invalid_app_secret: The App Secret does not match this App ID.')])).toBe(1);
    expect(await stateOf('auth-basic')).toEqual(before);
    expect(await stateOf('start-401-fixed')).toMatchObject({ status: 'attempted', lastAttemptAt: 5000 });
  });

  it('when a batch has no requests, then the store is not asked', async () => {
    expect(await progress.judge([])).toBe(0);
    expect(saves).toBe(0);
  });

  it('when the list is read, then every exercise of the catalogue is there, in its order', async () => {
    const list = await progress.list('nobody');
    expect(list.length).toBeGreaterThanOrEqual(20);
    expect(list.every((view) => view.status === 'not_started')).toBe(true);
  });

  it('when facts come from a gateway, then only named, printable, bounded ones are judged', () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`fact_${i}`, 'x']));
    expect(Object.keys(sanitizeFacts(many))).toHaveLength(16);
    expect(sanitizeFacts({ grant: 'client_credentials', 'Bad Name': 'x', long: 'y'.repeat(129), ctl: 'a\u0000b' })).toEqual({ grant: 'client_credentials' });
    expect(sanitizeFacts(undefined)).toEqual({});
  });
});
