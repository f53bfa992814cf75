import { runProcess } from '@sandbox/runtime';
import { loadOAuthConfig } from './config';

runProcess('oauth', async () => {
  // Required here, once runProcess has started tracing, not imported above: the MongoDB and Redis
  // instrumentations patch a driver only as it is first required, and the composition requires them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { start } = require('./composition') as typeof import('./composition');
  return start(loadOAuthConfig());
});
