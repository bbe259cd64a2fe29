import { policyInForce, type PolicyInputs } from '../../server/policy';
import type { ReleasePolicy } from '../../server/store/types';

/** ACTIVE_LIMIT 100, RELEASE_PER_MINUTE 60, a session of a minute, abandoned after two. */
const configured: ReleasePolicy = { activeLimit: 100, perMinute: 60, sessionMs: 60_000, abandonMs: 120_000 };
const times = { sessionMs: 60_000, abandonMs: 120_000 };

describe('the policy in force: configured, then the operator, then an event, then adaptive admission', () => {
  it.each<[string, Omit<PolicyInputs, 'configured'>, ReleasePolicy]>([
    ['the configuration alone', { operator: {}, event: {} }, { activeLimit: 100, perMinute: 60, ...times }],
    ["the operator's rate", { operator: { perMinute: 30 }, event: {} }, { activeLimit: 100, perMinute: 30, ...times }],
    ["the operator's limit and rate", { operator: { activeLimit: 10, perMinute: 0 }, event: {} }, { activeLimit: 10, perMinute: 0, ...times }],
    ["an event's limit over the operator's", { operator: { activeLimit: 10 }, event: { activeLimit: 500 } }, { activeLimit: 500, perMinute: 60, ...times }],
    [
      "an event's rate and random queueing, the operator's limit kept",
      { operator: { activeLimit: 10 }, event: { perMinute: 600, random: true } },
      { activeLimit: 10, perMinute: 600, random: true, ...times },
    ],
    // What a rate fills in a session, a quarter more: 20 a minute for a minute, 25 at once.
    ['adaptive admission below the configuration', { operator: {}, event: {}, admitted: { perMinute: 20 } }, { activeLimit: 25, perMinute: 20, ...times }],
    [
      'adaptive admission held to the operator’s ceilings',
      { operator: { perMinute: 12, activeLimit: 5 }, event: {}, admitted: { perMinute: 20 } },
      { activeLimit: 5, perMinute: 12, ...times },
    ],
    [
      "adaptive admission under an event's ceilings",
      { operator: { perMinute: 12 }, event: { perMinute: 400, activeLimit: 1000 }, admitted: { perMinute: 200 } },
      { activeLimit: 250, perMinute: 200, ...times },
    ],
    ['a pin of the rate and the limit', { operator: {}, event: {}, admitted: { perMinute: 40, activeLimit: 7 } }, { activeLimit: 7, perMinute: 40, ...times }],
    [
      'a pin above a ceiling the operator lowered since',
      { operator: { perMinute: 30, activeLimit: 5 }, event: {}, admitted: { perMinute: 40, activeLimit: 7 } },
      { activeLimit: 5, perMinute: 30, ...times },
    ],
    [
      'a rate so low that its limit would be none: one at once',
      { operator: {}, event: {}, admitted: { perMinute: 0.1 } },
      { activeLimit: 1, perMinute: 0.1, ...times },
    ],
  ])('%s', (_case, inputs, inForce) => {
    expect(policyInForce({ configured, ...inputs })).toEqual(inForce);
  });
});
