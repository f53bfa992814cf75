import { answersBreakingTheContract } from './support/answer-log';

/*
 * Integration tests only (jest.config.js setupFilesAfterEnv): after every
 * test, every answer the gateways of this file wrote during it is checked
 * against the OpenAPI document they serve, so a route that answers outside
 * its contract fails the test that made it answer, whichever client sent the
 * request (node, Python, Chromium, a raw socket).
 */
afterEach(async () => {
  const problems = await answersBreakingTheContract();
  if (problems.length) {
    throw new Error(`${problems.length} answer(s) do not match the OpenAPI document (GET /openapi.json):\n${problems.slice(0, 20).join('\n')}`);
  }
});
