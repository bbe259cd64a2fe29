import { createErrorReporter, describeError, type Report } from '../../src/adapters/error-reporter';
import { settle } from './fakes/fake-fetch';

const SETTINGS = { dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' };

/** A reporter whose start-up and SDK load the test releases by hand. */
function setUp(settings = SETTINGS) {
  const sent: string[] = [];
  const levels: Array<string | undefined> = [];
  let startedUp: () => void = () => undefined;
  let loaded: (report: Report) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const load = jest.fn(
    () =>
      new Promise<Report>((resolve, reject) => {
        loaded = resolve;
        failed = reject;
      }),
  );
  const console = { error: jest.fn() };
  const report = createErrorReporter(settings, { load, afterStartUp: (run) => (startedUp = run), console });
  const ready = () => loaded((message, level) => void (sent.push(message), levels.push(level)));
  return { report, sent, levels, load, console, startUp: () => startedUp(), ready, fail: (e: Error) => failed(e) };
}

describe('error reporting: @sentry/browser stays off the critical path', () => {
  it('should not load the SDK before the page has started up', () => {
    const { load, startUp } = setUp();
    expect(load).not.toHaveBeenCalled();
    startUp();
    expect(load).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledWith(SETTINGS);
  });

  it('should load the SDK at the first report when it comes before start-up, and only once', () => {
    const { report, load, startUp } = setUp();
    report('Websoket KO - unavailable');
    expect(load).toHaveBeenCalledTimes(1);
    report('Websocket KO - position 0 depuis 10sec');
    startUp();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('should queue reports made before the SDK is ready and send them, in order, once it is', async () => {
    const { report, sent, startUp, ready } = setUp();
    report('Websoket KO - unavailable');
    startUp();
    report('Websocket KO - position 0 depuis 10sec');
    expect(sent).toEqual([]);
    ready();
    await settle();
    expect(sent).toEqual(['Websoket KO - unavailable', 'Websocket KO - position 0 depuis 10sec']);
    report('later');
    expect(sent).toEqual(['Websoket KO - unavailable', 'Websocket KO - position 0 depuis 10sec', 'later']);
  });

  it('should send each report with its level, queued or not (none: an error)', async () => {
    const { report, sent, levels, ready } = setUp();
    report('Waiting room place lost: queue_info answered 404 unknown_uuid', 'warning');
    report('Websoket KO - unavailable');
    ready();
    await settle();
    report('later', 'warning');
    expect(sent).toEqual(['Waiting room place lost: queue_info answered 404 unknown_uuid', 'Websoket KO - unavailable', 'later']);
    expect(levels).toEqual(['warning', undefined, 'warning']);
  });

  it('should log every report to the console at once', () => {
    const { report, console } = setUp();
    report('Websoket KO - unavailable');
    expect(console.error).toHaveBeenCalledWith('[waiting-room]', 'Websoket KO - unavailable');
  });

  it('should use the console only, and never load the SDK, without a DSN', () => {
    const { report, load, console, startUp } = setUp({ ...SETTINGS, dsn: null as unknown as string });
    startUp();
    report('Websoket KO - unavailable');
    expect(load).not.toHaveBeenCalled();
    expect(console.error).toHaveBeenCalledWith('[waiting-room]', 'Websoket KO - unavailable');
  });

  it('should say so on the console when the SDK cannot load', async () => {
    const { console, startUp, fail } = setUp();
    startUp();
    fail(new Error('chunk failed'));
    await settle();
    expect(console.error).toHaveBeenCalledWith('[waiting-room] error reporting unavailable', expect.any(Error));
  });

  it('should load the SDK again at the next report when a load failed, and send what was queued meanwhile', async () => {
    const { report, sent, load, startUp, fail, ready } = setUp();
    report('Websoket KO - unavailable');
    startUp();
    fail(new Error('chunk failed'));
    await settle();
    expect(load).toHaveBeenCalledTimes(1);
    report('Waiting room place lost: queue_info answered 404 unknown_uuid', 'warning');
    expect(load).toHaveBeenCalledTimes(2);
    report('later');
    expect(load).toHaveBeenCalledTimes(2);
    ready();
    await settle();
    expect(sent).toEqual(['Websoket KO - unavailable', 'Waiting room place lost: queue_info answered 404 unknown_uuid', 'later']);
  });

  it('should keep at most 20 reports while the SDK is not ready, the first ones', async () => {
    const { report, sent, ready } = setUp();
    for (let index = 0; index < 25; index++) report(`report ${index}`);
    ready();
    await settle();
    expect(sent).toEqual(Array.from({ length: 20 }, (_, index) => `report ${index}`));
  });
});

describe('error reporting: describing errors', () => {
  it('should describe errors by message and other values as JSON', () => {
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError({ type: 'PusherError', data: { code: 4009 } })).toBe('{"type":"PusherError","data":{"code":4009}}');
    expect(describeError(undefined)).toBe('undefined');
  });
});
