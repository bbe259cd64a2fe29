import { afterFirstPaint } from '../../src/adapters/after-first-paint';

describe('error reporting: loading after the first paint', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('should run in the task after the next frame of a visible page', () => {
    const frames: FrameRequestCallback[] = [];
    jest.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => frames.push(callback));
    const run = jest.fn();
    afterFirstPaint(run, { visibilityState: 'visible' } as Document);
    jest.runAllTimers();
    expect(run).not.toHaveBeenCalled();
    frames.forEach((frame) => frame(0));
    expect(run).not.toHaveBeenCalled();
    jest.runAllTimers();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('should not wait for a frame in a hidden tab, which paints none', () => {
    const requestFrame = jest.spyOn(window, 'requestAnimationFrame');
    const run = jest.fn();
    afterFirstPaint(run, { visibilityState: 'hidden' } as Document);
    jest.runAllTimers();
    expect(run).toHaveBeenCalledTimes(1);
    expect(requestFrame).not.toHaveBeenCalled();
  });
});
