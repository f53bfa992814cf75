/**
 * The environment a test passes on to every Node.js process it starts, beside
 * the variables the process itself needs: NODE_COMPILE_CACHE (set by
 * scripts/test.sh), so that a run's hundreds of process starts compile each
 * module once and read V8's code cache afterwards.
 */
export function compileCache(): NodeJS.ProcessEnv {
  return process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};
}
