import type { playground } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import { corsInfo } from '../domain/cors';
import type { Sleep } from '../domain/delay';
import { echo } from '../domain/echo';
import { headersReport } from '../domain/headers-report';
import { redirect } from '../domain/redirect';
import { planRespond } from '../domain/respond';
import { planTimeout } from '../domain/timeout';
import { answered, delayed } from './answers';

/** The unary RPCs; Upload is client-streaming and has its own handler (upload-handler.ts). */
export function playgroundHandlers(sleep: Sleep): Omit<UnaryImplementation<playground.PlaygroundServiceServer>, 'upload'> {
  return {
    echo: answered(echo),
    respond: answered(delayed(planRespond, sleep)),
    timeout: answered(delayed(planTimeout, sleep)),
    redirect: answered(redirect),
    headers: answered(headersReport),
    corsInfo: answered(corsInfo),
  };
}
