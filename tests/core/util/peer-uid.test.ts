import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { peerUid, uidFromTable } from '../../../core/util/peer-uid.js';

const TABLE = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:2242 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 20 4 30 10 -1',
  '   9: 0100007F:A1B2 0100007F:2242 06 00000000:00000000 03:00000970 00000000     0        0 0 3 00000000c73a8d26',
  '   1: 0100007F:A1B2 0100007F:2242 01 00000000:00000000 00:00000000 00000000 65534        0 1002 1 0000000000000000 20 4 30 10 -1',
  '   2: 0200007F:A1B3 0100007F:2242 01 00000000:00000000 00:00000000 00000000  1000        0 1003 1 0000000000000000 20 4 30 10 -1',
].join('\n');

describe('peer uid from the socket tables', () => {
  it("finds the peer's own established row (its port local, ours remote): not ours with the ports the other way round, not a closed one in TIME_WAIT", () => {
    expect(uidFromTable(TABLE, 0xa1b2, 0x2242)).toBe(65534);
    expect(uidFromTable(TABLE, 0x2242, 0xa1b2)).toBe(0);
    expect(uidFromTable(TABLE, 0xa1b3, 0x2242)).toBe(1000);
  });

  it('null for no matching row, a short row or a uid that is not a number', () => {
    expect(uidFromTable(TABLE, 0xa1b4, 0x2242)).toBeNull();
    expect(uidFromTable('   0: 0100007F:A1B2 0100007F:2242 01', 0xa1b2, 0x2242)).toBeNull();
    expect(uidFromTable('   0: 0100007F:A1B2 0100007F:2242 01 0:0 00:0 0 nobody 0 1', 0xa1b2, 0x2242)).toBeNull();
    expect(uidFromTable('', 1, 2)).toBeNull();
  });

  it.runIf(process.platform === 'linux')('on this machine: a loopback connection of this process is this uid', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    try {
      expect(await peerUid(await accepted)).toBe(process.getuid!());
    } finally {
      client.destroy();
      server.close();
    }
  });
});
