import net from 'node:net';

/** 127.0.0.0/8, ::1 and localhost: the addresses nothing off this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (h.startsWith('::ffff:')) return isLoopback(h.slice(7));
  return net.isIPv4(h) && h.startsWith('127.');
}
