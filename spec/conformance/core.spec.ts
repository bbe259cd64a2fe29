import fc from 'fast-check';
import { CONNECTOR, GATEWAY, readRequest, type DoorRequest } from '@waiting-room/connector/core/door';
import { prefixTest } from '@waiting-room/connector/core/protection';
import { PROTECTED, protectedSpelling } from '../server/support/targets';

const protects = prefixTest(PROTECTED, 'protect');
const request = (target: string, headers: Record<string, string> = {}, site = { protocol: 'https', host: 'shop.example' }): DoorRequest => ({
  method: 'GET',
  target,
  header: (name) => headers[name],
  site,
});

/** Properties of the doors' one decision, over generated requests: whatever the spelling, a protected path is never open. */
describe("the doors' decision core", () => {
  test('never lets a spelling of a protected path through, at the gateway or a connector', () => {
    fc.assert(
      fc.property(protectedSpelling(PROTECTED), ({ target }) => {
        for (const door of [GATEWAY, CONNECTOR])
          expect({ target, kind: readRequest(request(target), protects, door).kind }).not.toEqual({ target, kind: 'open' });
      }),
      { numRuns: 3000 },
    );
  });

  test('decides on the target alone: no Host, protocol or forwarded header opens a protected path', () => {
    const text = fc.string({ unit: fc.constantFrom(...'shop.example/?#@:;%2F\\ x'.split('')), maxLength: 24 });
    fc.assert(
      fc.property(text, text, text, (host, protocol, forwarded) => {
        const reading = readRequest(
          request('/checkout/pay', { host, 'x-forwarded-proto': forwarded, 'x-forwarded-host': forwarded }, { protocol, host }),
          protects,
          CONNECTOR,
        );
        expect({ host, protocol, kind: reading.kind }).not.toEqual({ host, protocol, kind: 'open' });
      }),
      { numRuns: 2000 },
    );
  });

  test('builds the address to come back to from a well-formed host only, the handed-back pass taken off it', () => {
    const reading = readRequest(
      request('/checkout?a=1&waiting_room_pass=t.o.k&b=2', {}, { protocol: 'HTTPS', host: 'shop.example:8443' }),
      protects,
      CONNECTOR,
    );
    expect(reading).toMatchObject({
      kind: 'protected',
      address: 'https://shop.example:8443/checkout?a=1&b=2',
      credential: { token: 't.o.k', from: 'address' },
      secure: true,
    });
    expect(readRequest(request('/checkout', {}, { protocol: 'http', host: 'shop.example/open?' }), protects, CONNECTOR)).toMatchObject({
      kind: 'refused',
      code: 'bad_host',
    });
  });
});
