import { createServer, connect, type Socket } from 'node:net';
import { settlesWithin } from '@sandbox/runtime';

/*
 * The reason settlesWithin exists: after the event loop was blocked for
 * longer than a check's timeout, Node runs expired timers before it reads
 * the sockets, so a plain timeout would call an answer late that had arrived
 * in time. Shown with a real socket and a really blocked loop.
 */
describe('settlesWithin on a busy machine', () => {
  it('when the loop was blocked past the timeout while the answer arrived, then the answer counts as in time', async () => {
    const server = createServer();
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    try {
      const [serverSide] = await Promise.all([accepted, new Promise((resolve) => client.once('connect', resolve))]);
      const answer = new Promise<void>((resolve) => client.once('data', () => resolve()));
      const inTime = settlesWithin(answer, 50);
      serverSide.write('pong');
      const until = Date.now() + 300;
      while (Date.now() < until); // too busy to run anything, for longer than the timeout
      expect(await inTime).toBe(true);
      serverSide.destroy();
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('when nothing arrived during the same block, then it is late', async () => {
    const inTime = settlesWithin(new Promise(() => undefined), 50);
    const until = Date.now() + 300;
    while (Date.now() < until);
    expect(await inTime).toBe(false);
  });
});
