import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { isolatedMongoUrl, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';
import {
  createAppInPage,
  expectAccessibleAtBothWidths,
  expectKeyboardReachesEverything,
  expectSameDocument,
  markDocument,
  openPage,
  signUpInPage,
} from './portal-checks';

// Five processes and two browser contexts on a busy 2-core machine.
jest.setTimeout(150_000);

/** A flush, a judging and the grid's next refresh (5 s), with a margin for a busy machine; each wait ends when the page shows it. */
const SHOWN_WITHIN = 30_000;
const OPERATOR = `instructor-${Date.now().toString(36)}@example.org`;
const CLASS_NAME = 'Monday workshop';

type LearnerApp = { appId: string; appSecret: string; apiKey: string };
interface LearnerRequest {
  path: string;
  init: (app: LearnerApp) => RequestInit & { timeoutMs?: number };
  /** The status, or the error fetch threw. */
  answer: number | string;
}

const basicOf = (app: LearnerApp, secret: string) => ({ headers: { Authorization: `Basic ${btoa(`${app.appId}:${secret}`)}` } });
const withKey = (app: LearnerApp) => ({ headers: { 'X-API-Key': app.apiKey } });
const EMPLOYEES = '/playground/data/hr/employees';

/**
 * Three exercises (docs/exercises.md), one of each kind, each with a failed
 * attempt first whose hint the learner must be shown: an auth style with the
 * wrong secret, then the right one; a paging style stopped after the first
 * page, then walked to the last (hr/employees: 2,173 rows, 1,000 a page); a
 * client timeout that waits the whole delay, then one shorter than it.
 */
const LEARNER_STEPS: Array<{ exercise: string; fails: LearnerRequest; hintSays: RegExp; fixes: LearnerRequest[] }> = [
  {
    exercise: 'auth-basic',
    fails: { path: '/playground/auth/basic', init: (app) => basicOf(app, 'as_not-the-secret'), answer: 401 },
    hintSays: /401/,
    fixes: [{ path: '/playground/auth/basic', init: (app) => basicOf(app, app.appSecret), answer: 200 }],
  },
  {
    exercise: 'paging-page',
    fails: { path: `${EMPLOYEES}?page=1&page_size=1000`, init: withKey, answer: 200 },
    hintSays: /last page|next/i,
    fixes: [2, 3].map((page) => ({ path: `${EMPLOYEES}?page=${page}&page_size=1000`, init: withKey, answer: 200 })),
  },
  {
    exercise: 'http-timeout',
    fails: { path: '/playground/timeout?delay=100', init: withKey, answer: 200 },
    hintSays: /waited the whole delay of 100 ms/,
    fixes: [{ path: '/playground/timeout?delay=20000', init: (app) => ({ ...withKey(app), timeoutMs: 1000 }), answer: 'TimeoutError' }],
  },
];

/*
 * Classes in the portal, in a real browser against the whole system
 * (docs/exercises.md, "In the portal"): an operator creates a class in the
 * page and reads its join code; a learner joins with it in their own page,
 * then works through three exercises with requests their page makes, each
 * failing first with the hint shown on their screen; the operator's open
 * grid changes without a reload, and its CSV (fetched by the page with the session, saved
 * as a download) has the learner's row. axe on each screen at desktop and
 * 360 px.
 */
describe('the portal Classes screens', () => {
  let system: RunningSystem;
  let browser: Browser;
  const pages: Array<{ context: BrowserContext; problems: string[] }> = [];
  let operator: Page;
  let learner: Page;
  let joinCode = '';
  let classId = '';
  let app: LearnerApp;
  const learnerEmail = `learner-${Date.now().toString(36)}@example.org`;

  beforeAll(async () => {
    [system, browser] = await Promise.all([
      startSystem({ MONGO_URL: isolatedMongoUrl('portal_classes'), REDIS_URL: requireStoreUrls().redisUrl, OPERATOR_EMAILS: OPERATOR }, 120_000),
      launchChromium(),
    ]);
    for (const _ of [0, 1]) {
      const opened = await openPage(browser);
      pages.push(opened);
    }
    [operator, learner] = await Promise.all(pages.map((p) => p.context.pages()[0]));
  });
  afterAll(async () => {
    for (const p of pages) await p.context.close();
    await browser?.close();
    await system?.stop();
  });
  afterEach(() => {
    for (const p of pages) expect(p.problems).toEqual([]);
  });

  const cell = (exercise: string) => operator.locator(`tr[data-learner="${learnerEmail}"] td[data-exercise="${exercise}"]`);
  const state = (exercise: string, shown: string) =>
    operator.locator(`tr[data-learner="${learnerEmail}"] td[data-exercise="${exercise}"][data-state="${shown}"]`);
  /**
   * A request the learner's own page makes, as their app: the browser is
   * their client (the portal's origin is the gateway's, so no CORS is
   * involved). The answer's status, or the name of the error fetch threw
   * (TimeoutError when the page's own timeout ended it first).
   */
  const fromLearnerPage = (path: string, init: RequestInit & { timeoutMs?: number }) =>
    learner.evaluate(
      async ({ url, headers, timeoutMs }) => {
        try {
          // credentials 'omit', as a learner's own page on another origin sends them: with the portal's own origin
          // ('same-origin'), Chromium would answer a Basic 401 with its sign-in prompt, which nobody closes here.
          const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
          const answer = await fetch(url, { headers, credentials: 'omit', signal });
          await answer.arrayBuffer();
          return answer.status;
        } catch (error) {
          return (error as Error).name;
        }
      },
      { url: `${system.baseUrl}${path}`, headers: init.headers as Record<string, string>, timeoutMs: init.timeoutMs },
    );

  it('when an operator signs in, then Classes is offered; a class created there shows its join code', async () => {
    await signUpInPage(operator, system.baseUrl, OPERATOR);
    const classesLink = operator.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Classes' });
    await classesLink.click();
    await operator.getByRole('heading', { level: 1, name: 'Classes' }).waitFor();
    await operator.getByText('There are no classes yet.').waitFor();
    await expectAccessibleAtBothWidths(operator, 'classes');

    await operator.getByRole('button', { name: 'Create class' }).click();
    await operator.locator('#class-name-error').waitFor();
    await operator.getByLabel('Name').fill(CLASS_NAME);
    await operator.getByRole('button', { name: 'Create class' }).click();
    await operator.getByRole('heading', { level: 2, name: `“${CLASS_NAME}” is ready` }).waitFor();
    joinCode = (await operator.locator('#created-code').textContent())!;
    expect(joinCode).toMatch(/^[A-Z2-9]{4}-?[A-Z2-9]{4}$/);
    expect(await operator.getByRole('button', { name: 'Copy Join code' }).count()).toBe(1);
    await operator.getByRole('list', { name: 'Classes' }).getByRole('link', { name: CLASS_NAME }).waitFor();
    await expectAccessibleAtBothWidths(operator, 'classes-created');
    await expectKeyboardReachesEverything(operator, 'classes-created');
  });

  it('when a learner joins with the code (lower case, spaces around), then the class is listed; Classes is not offered to them', async () => {
    await signUpInPage(learner, system.baseUrl, learnerEmail);
    app = await createAppInPage(learner, 'Class app');
    const nav = learner.getByRole('navigation', { name: 'Portal' });
    await nav.getByRole('link', { name: 'Exercises' }).click();
    await learner.getByRole('heading', { level: 2, name: 'Your classes' }).waitFor();
    await learner.getByText('You are in no class.').waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Your apps', 'Exercises']);

    await learner.getByLabel('Join a class: its code').fill(`  ${joinCode.toLowerCase()} `);
    await learner.getByRole('button', { name: 'Join' }).click();
    await learner.getByText(`You joined “${CLASS_NAME}”.`).waitFor();
    await learner.locator('.class-list').getByText(CLASS_NAME, { exact: true }).waitFor();
    await expectAccessibleAtBothWidths(learner, 'exercises-in-class');
  });

  it("when the learner works through an auth style, a paging style and an HTTP skill from their page, each failing first, then their screen shows each hint and the operator's open grid and CSV follow, without a reload", async () => {
    await operator.getByRole('link', { name: "Open the class's grid" }).click();
    await operator.getByRole('heading', { level: 1, name: CLASS_NAME }).waitFor();
    classId = /#\/classes\/([^/]+)$/.exec(operator.url())![1];
    await cell('auth-basic').waitFor();
    expect(await cell('auth-basic').getAttribute('data-state')).toBe('not_started');
    expect(await cell('auth-basic').textContent()).toContain('Not started');
    await expectAccessibleAtBothWidths(operator, 'class-grid');
    await markDocument(operator);
    await markDocument(learner);

    for (const step of LEARNER_STEPS) {
      expect(await fromLearnerPage(step.fails.path, step.fails.init(app))).toBe(step.fails.answer);
      // The learner reads why on their own screen; the instructor sees the attempt in the grid.
      const hint = learner.locator(`li[data-exercise="${step.exercise}"].exercise-attempted .hint-box`);
      await hint.waitFor({ timeout: SHOWN_WITHIN });
      expect(await hint.textContent()).toMatch(step.hintSays);
      await state(step.exercise, 'attempted').waitFor({ timeout: SHOWN_WITHIN });

      for (const request of step.fixes) expect(await fromLearnerPage(request.path, request.init(app))).toBe(request.answer);
      await learner.locator(`li[data-exercise="${step.exercise}"].exercise-done`).waitFor({ timeout: SHOWN_WITHIN });
      await state(step.exercise, 'done').waitFor({ timeout: SHOWN_WITHIN });
      expect(await cell(step.exercise).textContent()).toContain('Done');
    }
    await expectSameDocument(operator);
    await expectSameDocument(learner);
    expect(await learner.locator('.summary strong').textContent()).toMatch(/^[3-9] of \d+ done$/);
    const summary = operator.getByRole('row', { name: /^Basic/ });
    expect(await summary.getByRole('cell').first().textContent()).toBe('1');

    const [download] = await Promise.all([operator.waitForEvent('download'), operator.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const [header, ...rows] = csv.trim().split(/\r?\n/);
    const row = rows.find((line) => line.startsWith(learnerEmail))?.split(',');
    for (const { exercise } of LEARNER_STEPS) {
      const column = header.split(',').indexOf(exercise);
      expect(column).toBeGreaterThan(0);
      expect(row?.[column]).toBe('done');
    }
    await expectAccessibleAtBothWidths(operator, 'class-grid-progress');
    await expectKeyboardReachesEverything(operator, 'class-grid-progress');
    await expectAccessibleAtBothWidths(learner, 'exercises-progress');
  });

  it('when the stuck time is not a number of minutes, then the field says so', async () => {
    await operator.getByLabel(/^Stuck after/).fill('0');
    await operator.getByRole('button', { name: 'Apply' }).click();
    await operator.locator('#stuck-minutes-error').waitFor();
    await operator.getByLabel(/^Stuck after/).fill('30');
    await operator.getByRole('button', { name: 'Apply' }).click();
    await operator.getByText(/for more than 30 minutes/).waitFor({ timeout: SHOWN_WITHIN });
  });

  it('when the learner leaves and the operator deletes the class, then both ask first and the grid and list follow', async () => {
    await learner.getByRole('button', { name: `Leave “${CLASS_NAME}”` }).click();
    await learner
      .getByRole('dialog')
      .getByRole('button', { name: `Leave “${CLASS_NAME}”` })
      .click();
    await learner.getByText(`You left “${CLASS_NAME}”.`).waitFor();
    await operator.getByText('No learner has joined yet: give them the join code.').waitFor({ timeout: SHOWN_WITHIN });

    await operator.getByRole('button', { name: 'Delete this class…' }).click();
    await operator
      .getByRole('dialog')
      .getByRole('button', { name: `Delete “${CLASS_NAME}”` })
      .click();
    await operator.getByText(`Deleted “${CLASS_NAME}”.`).waitFor();
    await operator.getByText('There are no classes yet.').waitFor();
    expect(operator.url()).toMatch(/#\/classes$/);

    // A learner who types the class's address gets what the API says of operator routes: nothing there.
    await learner.goto(`${system.baseUrl}/portal/#/classes/${classId}`);
    await learner.getByRole('heading', { level: 1, name: 'Class not available' }).waitFor();
  });
});
