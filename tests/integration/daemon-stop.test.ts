import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../core/daemon/daemon.js';
import { silentLogger } from '../../core/util/log.js';
import { refuses } from '../support/helpers.js';

describe('daemon stop', () => {
  it('stops every part and resolves `stopped` even when one part fails to stop', async () => {
    const daemon = await startDaemon({ sim: true, log: silentLogger(), api: { port: 0 } });
    const simPort = daemon.sim!.port;
    const hostStop = daemon.host.stop.bind(daemon.host);
    daemon.host.stop = async () => {
      await hostStop();
      throw new Error('boom');
    };
    await daemon.stop();
    await daemon.stopped;
    expect(await refuses(daemon.apiAddress.port)).toBe(true);
    expect(await refuses(simPort)).toBe(true);
  });
});
