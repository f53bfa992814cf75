import { runProcess } from '@sandbox/runtime';
import { loadPlaygroundConfig } from './config';

runProcess('playground', async () => {
  // Required here, once runProcess has started tracing, not imported above: the MongoDB and Redis
  // instrumentations patch a driver only as it is first required, and the composition requires them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { start } = require('./composition') as typeof import('./composition');
  return start(loadPlaygroundConfig());
});
