import type net from 'node:net';

/**
 * The life of a raw-Node bench child (the baseline relay, the zero-work hop): listen on a free
 * loopback port and print {"port":N} on stdout; exit when stdin closes (the bench went away) or
 * on a signal.
 */
export function serveAsChild(server: net.Server): void {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo;
    process.stdout.write(JSON.stringify({ port }) + '\n');
  });
  const quit = () => process.exit(0);
  process.stdin.on('end', quit);
  process.stdin.on('close', quit);
  process.stdin.resume();
  process.on('SIGTERM', quit);
  process.on('SIGINT', quit);
}
