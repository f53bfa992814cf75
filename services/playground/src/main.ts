import { runProcess } from '@sandbox/runtime';
import { start } from './composition';
import { loadPlaygroundConfig } from './config';

runProcess('playground', async () => start(loadPlaygroundConfig()));
