import { runProcess } from '@sandbox/runtime';
import { start } from './composition';
import { loadDataConfig } from './config';

runProcess('data', async () => start(loadDataConfig()));
