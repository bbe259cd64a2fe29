import { StoreUnavailableError } from '../../server/store/errors';
import { onceAvailable } from '../../server/store/once-available';

/** A read that fails as an unreachable store `failures` times, then answers. */
const flaky = (failures: number) => {
  let calls = 0;
  const read = jest.fn(async () => {
    calls += 1;
    if (calls <= failures) throw new StoreUnavailableError('Redis is unreachable (connection refused or lost).');
    return 'limits';
  });
  return read;
};

describe('onceAvailable: the first reads of a starting server', () => {
  it('should try again while the store is unavailable, and answer once it is back', async () => {
    const read = flaky(2);
    await expect(onceAvailable(read, 2000)).resolves.toBe('limits');
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('should give the last failure once its grace is over', async () => {
    const read = flaky(Infinity);
    await expect(onceAvailable(read, 600)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(read.mock.calls.length).toBeGreaterThan(1);
    expect(read.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it('should not try again after an error that is not the store being away', async () => {
    const read = jest.fn(async () => {
      throw new TypeError('a bug');
    });
    await expect(onceAvailable(read, 2000)).rejects.toThrow('a bug');
    expect(read).toHaveBeenCalledTimes(1);
  });
});
