import type { PageConfigJson } from '@waiting-room/streams/contract';
import { queueInfoPreload } from '../../server/http/page';

const config = {
  queue: { uuid: 'a b', uri: '/checkout', method: 'GET', position: 3 },
  routes: { queue_request: '/queue/request', queue_info: '/rooms/x/info/{uuid}' },
} as unknown as PageConfigJson;

describe('queueInfoPreload', () => {
  it("should name the page's first queue_info address, its uuid encoded as the page encodes it", () => {
    expect(queueInfoPreload(config)).toBe('/rooms/x/info/a%20b');
  });

  it('should preload nothing for a page without a pending request, which only leaves', () => {
    expect(queueInfoPreload({ ...config, queue: { ...config.queue, uri: '' } })).toBeUndefined();
  });

  it('should preload nothing while the place waits for its bot check', () => {
    expect(queueInfoPreload({ ...config, altcha: { algorithm: 'SHA-256' } } as unknown as PageConfigJson)).toBeUndefined();
  });
});
