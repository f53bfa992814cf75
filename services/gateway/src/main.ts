import { runProcess } from '@sandbox/runtime';
import { start } from './composition';
import { loadGatewayConfig } from './config';

runProcess('gateway', async () => start(loadGatewayConfig()));
