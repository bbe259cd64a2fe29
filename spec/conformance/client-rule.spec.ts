import fc from 'fast-check';
import { clientOf, prefersJson } from '@waiting-room/connector/core/client';
import Negotiator from 'negotiator';

/** Accept headers as clients write them: types, wildcards, weights, parameters, junk. */
const range = fc
  .tuple(
    fc.constantFrom('text', 'application', '*', 'image', 'TEXT', 'Application'),
    fc.constantFrom('html', 'json', '*', 'xml', 'vnd.api+json', 'HTML', 'JSON', 'xhtml+xml'),
    fc.option(fc.constantFrom('0', '0.1', '0.5', '0.9', '1', '1.0', '0.001'), { nil: undefined }),
    fc.option(fc.constantFrom('level=1', 'charset=utf-8', 'foo=*', 'x='), { nil: undefined }),
  )
  .map(([type, subtype, q, parameter]) => `${type}/${subtype}${parameter ? `;${parameter}` : ''}${q ? `;q=${q}` : ''}`);
const accept = fc.oneof(
  fc.array(fc.oneof(range, fc.constantFrom('', 'garbage', ' ')), { maxLength: 5 }).map((ranges) => ranges.join(fc.sample(fc.constantFrom(',', ', '), 1)[0])),
  fc.constant(undefined),
);

describe("the doors' browser or API-client rule", () => {
  test('weighs Accept exactly as the negotiator the gateway used (Express and Koa read it so)', () => {
    fc.assert(
      fc.property(accept, (header) => {
        const chosen = new Negotiator({ headers: { accept: header } }).mediaType(['text/html', 'application/json']);
        expect({ header, json: prefersJson(header) }).toEqual({ header, json: chosen === 'application/json' });
      }),
      { numRuns: 5000 },
    );
  });

  test.each([
    [{ accept: 'application/json' }, 'api'],
    [{ accept: 'text/html' }, 'browser'],
    [{}, 'browser'],
    [{ accept: '*/*', 'sec-fetch-mode': 'cors' }, 'api'],
    [{ accept: 'text/html', 'sec-fetch-mode': 'Navigate' }, 'browser'],
    [{ accept: 'application/json;q=0.9, text/html' }, 'browser'],
  ])('reads %o as %s', (headers, client) => {
    expect(clientOf((name) => (headers as Record<string, string>)[name])).toBe(client);
  });
});
