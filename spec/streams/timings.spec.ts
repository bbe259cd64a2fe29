import { resolveTimings } from '@waiting-room/streams';
import { TIMINGS } from '@waiting-room/streams/contract';

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
