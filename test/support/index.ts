export * from './ports';
export * from './stores';
export * from './system';
export * from './http';
export * from './portal';
export * from './refusal';
export * from './python';
export * from './openapi-check';
