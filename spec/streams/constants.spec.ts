import { CHANNELS, ERROR_REPORTING, REALTIME, resolveTimings, TIMINGS } from '../../streams';

describe('constants', () => {
  it('should hold the timings of the spec section 9', () => {
    expect(TIMINGS).toEqual({
      connectionCheck: 30_000,
      positionZeroTimeout: 10_000,
      leaveDelay: 2_000,
      rootFallback: 3_000,
      anonymousPoll: 5_000,
      poll: 60_000,
      // Beyond the specification: the wait before a held GET whose place was lost joins the line again.
      rejoinDelay: 3_000,
    });
  });

  it('should hold the error reporting settings of sections 7 and 9', () => {
    expect(ERROR_REPORTING).toEqual({ sampleRate: 0.5, release: '1.0.0' });
  });

  it('should hold the realtime connection of sections 7 and 9', () => {
    expect(REALTIME).toEqual({
      port: 443,
      forceTLS: true,
      enabledTransports: ['wss', 'xhr_streaming', 'ws', 'xhr_polling'],
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
    });
  });

  it('should name the channels and the release event as in sections 3 and 6', () => {
    expect(CHANNELS.user(42, 'u-1')).toBe('private-App.User.42.u-1');
    expect(CHANNELS.client('u-1')).toBe('App.Client.u-1');
    expect(CHANNELS.releaseEvent).toBe('RequestUnqueud');
  });
});

describe('timings', () => {
  it('should be the spec values without overrides', () => {
    expect(resolveTimings()).toEqual(TIMINGS);
  });

  it('should apply overrides and keep the spec values for the others', () => {
    expect(resolveTimings({ poll: 1_000, leaveDelay: 0, rootFallback: undefined })).toEqual({
      ...TIMINGS,
      poll: 1_000,
      leaveDelay: 0,
    });
  });

  it.each([
    [{ poll: 0 }, /timings\.poll must be .* greater than 0; got 0/],
    [{ anonymousPoll: -5 }, /timings\.anonymousPoll/],
    [{ connectionCheck: Number.NaN }, /timings\.connectionCheck .* got NaN/],
    [{ rootFallback: Number.POSITIVE_INFINITY }, /timings\.rootFallback/],
    [{ leaveDelay: '2000' as unknown as number }, /timings\.leaveDelay .* got 2000/],
  ])('should refuse %p with a RangeError naming it', (overrides, message) => {
    expect(() => resolveTimings(overrides)).toThrow(RangeError);
    expect(() => resolveTimings(overrides)).toThrow(message);
  });
});
