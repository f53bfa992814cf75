// swagger-ui-dist ships no types: the one call this page makes.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  interface SwaggerUIBundle {
    (options: Record<string, unknown>): unknown;
    presets: { apis: unknown };
  }
  const bundle: SwaggerUIBundle;
  export default bundle;
}
