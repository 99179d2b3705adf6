import net from 'node:net';

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

/** A chunk handler that calls `onLine` for each whole line (without its newline), keeping the tail. */
export function lines(onLine: (line: string) => void): (chunk: string) => void {
  let tail = '';
  return (chunk) => {
    let data = tail + chunk;
    let nl = data.indexOf('\n');
    while (nl !== -1) {
      onLine(data.slice(0, nl));
      data = data.slice(nl + 1);
      nl = data.indexOf('\n');
    }
    tail = data;
  };
}

/** Who waits for a hop's next reply: the API connection and the request's id, as JSON. */
export interface Caller {
  socket: net.Socket;
  id: string;
}

/**
 * The API side of a zero-work hop (hop.ts, tls-hop.ts): each request line's method goes to
 * `forward` and its caller joins `waiting`, in order, for the mod's reply.
 */
export function hopServer(waiting: Caller[], forward: (method: string) => void): net.Server {
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on(
      'data',
      lines((line) => {
        const request = JSON.parse(line) as { id?: unknown; method?: unknown };
        if (typeof request.method !== 'string') return;
        waiting.push({ socket, id: JSON.stringify(request.id ?? null) });
        forward(request.method);
      }),
    );
  });
}
