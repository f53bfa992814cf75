import { runProcess } from '@sandbox/runtime';
import { loadOAuthConfig } from './config';
import { start } from './composition';

runProcess('oauth', async () => start(loadOAuthConfig()));
