import { policyInForce, type Admitted, type EventLimits, type PolicyInputs } from '../../server/domain/policy';
import { OperatorLimits, RoomPolicy } from '../../server/domain/room-policy';
import { MemoryStore } from '../../server/store/memory';
import type { ReleasePolicy } from '../../server/store/types';
import { ManualClock } from './support/manual-clock';

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

describe('a room’s policy as the gate reads it on every request', () => {
  const clock = new ManualClock();
  const parts = () => {
    const store = new MemoryStore();
    let event: EventLimits = {};
    let admitted: Admitted | undefined;
    const operator = new OperatorLimits(store);
    const policy = new RoomPolicy({ configured, operator, events: { limits: () => event }, clock, admitted: () => admitted });
    return {
      operator,
      policy,
      startEvent: (limits: EventLimits) => (event = { ...limits }),
      admit: (decision: Admitted | undefined) => (admitted = decision),
    };
  };

  it('should be the same object while no input changes, and a new one, worked out by the chain, when one does', async () => {
    const { operator, policy, startEvent, admit } = parts();
    const first = policy.current;
    expect(first).toEqual(configured);
    // The store answers a new object each time; the values are the same.
    await operator.follow();
    startEvent({});
    expect(policy.current).toBe(first);

    await operator.change({ perMinute: 30 });
    const operated = policy.current;
    expect(operated).toEqual({ ...configured, perMinute: 30 });
    await operator.follow();
    expect(policy.current).toBe(operated);

    startEvent({ activeLimit: 500 });
    const duringEvent = policy.current;
    expect(duringEvent).toEqual({ ...configured, perMinute: 30, activeLimit: 500 });
    // The events answer a new object each time too.
    startEvent({ activeLimit: 500 });
    expect(policy.current).toBe(duringEvent);

    admit({ perMinute: 20 });
    expect(policy.current).toEqual({ ...configured, perMinute: 20, activeLimit: 25 });
  });
});
