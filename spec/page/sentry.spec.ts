import { startSentry } from '../../src/adapters/sentry';

const init = jest.fn();
const captureMessage = jest.fn();
jest.mock('@sentry/browser', () => ({ init: (...args: unknown[]) => init(...args), captureMessage: (...args: unknown[]) => captureMessage(...args) }));

describe('error reporting: the lazily loaded @sentry/browser module', () => {
  it('should start the SDK with the sample rate and release, and send each report as an error message', () => {
    const send = startSentry({ dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' });
    expect(init).toHaveBeenCalledWith(expect.objectContaining({ dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' }));
    send('Websoket KO - unavailable');
    expect(captureMessage).toHaveBeenCalledWith('Websoket KO - unavailable', 'error');
  });

  it('should send a report made at the warning level as a warning (a lost place in line)', () => {
    const send = startSentry({ dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' });
    send('Waiting room place lost: queue_info answered 404 unknown_uuid', 'warning');
    expect(captureMessage).toHaveBeenLastCalledWith('Waiting room place lost: queue_info answered 404 unknown_uuid', 'warning');
  });

  it('should keep the default integrations except release-health sessions', () => {
    startSentry({ dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' });
    const { integrations } = init.mock.calls.at(-1)[0];
    const defaults = [{ name: 'GlobalHandlers' }, { name: 'BrowserSession' }, { name: 'Dedupe' }];
    expect(integrations(defaults)).toEqual([{ name: 'GlobalHandlers' }, { name: 'Dedupe' }]);
  });
});
