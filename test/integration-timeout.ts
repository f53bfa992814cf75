/*
 * Integration tests only (jest.config.js setupFilesAfterEnv): every test here
 * waits on real stores, real processes or scrypt, and jest's 5 s default
 * failed two of them on a busy fresh CI machine (issue #34). A minute still
 * fails a hang well inside CI's limit; a file that needs longer says so with
 * its own jest.setTimeout, which runs after this. (jest's per-project
 * `testTimeout` is not applied to projects, measured with jest 30.5.)
 */
jest.setTimeout(60_000);
