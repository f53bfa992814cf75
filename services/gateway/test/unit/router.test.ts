import { allowedMethods, route } from '../../src/http/route-table';

const noop = () => undefined;

describe('allowedMethods', () => {
  const allowed = allowedMethods([
    route('GET', '/playground/data/:pack', 'pack', noop),
    route(['GET', 'POST'], '/playground/echo', 'echo', noop),
    route('DELETE', '/api/apps/:id', 'delete', noop),
    route('GET', '/api/apps/:id', 'get', noop),
  ]);

  it('when a path matches routes, then their methods are listed together', () => {
    expect(allowed('/api/apps/abc')?.sort()).toEqual(['DELETE', 'GET']);
    expect(allowed('/playground/echo')?.sort()).toEqual(['GET', 'POST']);
  });

  it('when no route matches, then there is no answer', () => {
    expect(allowed('/nothing/here')).toBeUndefined();
    expect(allowed('/playground/data/a/b/c')).toBeUndefined();
  });
});
