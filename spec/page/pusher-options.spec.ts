import { createPusherOptions } from '../../src/adapters/pusher-options';
import { parsePageConfig } from '@waiting-room/streams/contract';
import { validConfig } from './fakes/config';

const configWith = (realtime: Record<string, unknown>) => {
  const result = parsePageConfig(validConfig({ realtime }), 'http://localhost');
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
};

describe('realtime adapter: pusher-js options', () => {
  it('should connect to the configured host and port, with the spec transports, timeouts and authorization', () => {
    expect(createPusherOptions(configWith({ key: 'k', host: 'localhost', port: 8080, forceTLS: false, cluster: 'local' }))).toEqual({
      cluster: 'local',
      wsHost: 'localhost',
      httpHost: 'localhost',
      httpPort: 8080,
      httpsPort: 8080,
      wsPort: 8080,
      wssPort: 8080,
      forceTLS: false,
      enabledTransports: ['wss', 'xhr_streaming', 'ws', 'xhr_polling'],
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
      channelAuthorization: { endpoint: '/pusher/auth', transport: 'ajax', headers: { 'X-CSRF-TOKEN': 'csrf-token' } },
    });
  });

  it("should default to TLS on port 443 and to the cluster's own host without a host", () => {
    const options = createPusherOptions(configWith({ key: 'k', cluster: 'eu' }));
    expect(options).toMatchObject({ cluster: 'eu', forceTLS: true, wsPort: 443, wssPort: 443 });
    expect(options).not.toHaveProperty('wsHost');
    expect(options).not.toHaveProperty('httpHost');
  });
});
