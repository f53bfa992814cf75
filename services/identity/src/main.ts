import { runProcess } from '@sandbox/runtime';
import { loadIdentityConfig } from './config';
import { start } from './composition';

runProcess('identity', async () => start(loadIdentityConfig()));
