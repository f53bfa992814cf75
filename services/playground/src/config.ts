import { z } from 'zod';
import { env, loadConfig } from '@sandbox/runtime';

const schema = z
  .object({
    PLAYGROUND_GRPC_HOST: env.host('127.0.0.1'),
    PLAYGROUND_GRPC_PORT: env.port(50054),
    LOG_LEVEL: env.logLevel(),
  })
  .transform((v) => ({ host: v.PLAYGROUND_GRPC_HOST, port: v.PLAYGROUND_GRPC_PORT, logLevel: v.LOG_LEVEL }));

export type PlaygroundConfig = z.output<typeof schema>;
export const loadPlaygroundConfig = (source: NodeJS.ProcessEnv = process.env): PlaygroundConfig => loadConfig(schema, source);
