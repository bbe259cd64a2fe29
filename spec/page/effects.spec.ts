import { Subject } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { runEffects, type EffectsDeps } from '../../src/effects/run-effects';
import { createReplayForm } from '../../src/effects/replay-form';
import { navigateTo, performReplay } from '../../src/effects/perform-replay';
import { loadOnce } from '../../src/adapters/load-once';
import { cleanAddressBar, withoutHeldRequestParams } from '../../src/effects/clean-address-bar';

const HEALTH = { connection: 'connected', failedPolls: 0 } as const;

/** Lets promise callbacks that are already due run. */
const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function setUp(loadReplay: EffectsDeps['loadReplay'] = async () => performReplay) {
  const status$ = new Subject<QueueStatus>();
  const location = { href: 'https://shop.example/waiting', assign: jest.fn(), reload: jest.fn() };
  const history = { state: null, back: jest.fn(), replaceState: jest.fn() };
  const report = jest.fn();
  const submit = jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => undefined);
  const deps: EffectsDeps = { location, history, document, csrfToken: 'csrf-token', report, loadReplay: jest.fn(loadReplay) };
  const subscription = runEffects(status$, deps);
  return { status$, location, history, report, submit, subscription, loadReplay: deps.loadReplay };
}

/** A load that finishes when the test says so. */
function deferredLoad() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const loaded = new Promise<typeof performReplay>((resolve, reject) => {
    finish = () => resolve(performReplay);
    fail = reject;
  });
  return { load: () => loaded, finish, fail };
}

afterEach(() => {
  jest.restoreAllMocks();
  document.body.innerHTML = '';
});

describe('effects: report', () => {
  it("should report each failure with the spec's exact message", () => {
    const { status$, report } = setUp();
    status$.next({ kind: 'loading', ...HEALTH });
    status$.next({ kind: 'failed', message: 'Websoket KO - unavailable' });
    expect(report).toHaveBeenCalledTimes(1);
    expect(report).toHaveBeenCalledWith('Websoket KO - unavailable');
  });
});

describe('effects: a lost place (beyond the specification)', () => {
  const LOST_REPORT = 'Waiting room place lost: queue_info answered 404 unknown_uuid';

  it('should report a lost place once, as a warning, then wait for the visitor when there is nothing to load again', async () => {
    const { status$, report, location, history, loadReplay } = setUp();
    status$.next({ kind: 'waiting', position: 3, estimated: 2, updatedAt: 0, ...HEALTH });
    status$.next({ kind: 'lost', rejoin: null });
    await settled();
    expect(report.mock.calls).toEqual([[LOST_REPORT, 'warning']]);
    expect(loadReplay).not.toHaveBeenCalled();
    expect(location.assign).not.toHaveBeenCalled();
    expect(location.reload).not.toHaveBeenCalled();
    expect(history.back).not.toHaveBeenCalled();
  });

  it('should load the held GET again on rejoining, once, and not before', async () => {
    const { status$, report, location } = setUp();
    status$.next({ kind: 'lost', rejoin: '/checkout?item=42#size' });
    await settled();
    expect(location.assign).not.toHaveBeenCalled();
    status$.next({ kind: 'rejoining', target: '/checkout?item=42#size' });
    status$.next({ kind: 'rejoining', target: '/checkout?item=42#size' });
    await settled();
    expect(location.assign.mock.calls).toEqual([['https://shop.example/checkout?item=42#size']]);
    expect(report.mock.calls).toEqual([[LOST_REPORT, 'warning']]);
  });

  it('should reload to rejoin when the held GET is this very address (assign would not load it again)', async () => {
    const { status$, location } = setUp();
    location.href = 'https://shop.example/checkout?item=42#size';
    status$.next({ kind: 'rejoining', target: '/checkout?item=42#size' });
    await settled();
    expect(location.reload).toHaveBeenCalledTimes(1);
    expect(location.assign).not.toHaveBeenCalled();
  });
});

describe('effects: leave', () => {
  it("should go back in history on step 'back' and to the site root on step 'root', once each", () => {
    const { status$, location, history } = setUp();
    status$.next({ kind: 'leaving', step: 'back' });
    status$.next({ kind: 'leaving', step: 'back' });
    expect(history.back).toHaveBeenCalledTimes(1);
    expect(location.assign).not.toHaveBeenCalled();
    status$.next({ kind: 'leaving', step: 'root' });
    expect(location.assign).toHaveBeenCalledWith('/');
    expect(history.back).toHaveBeenCalledTimes(1);
  });
});

describe('effects: replay', () => {
  it('should navigate to a GET target with its hash', async () => {
    const { status$, location } = setUp();
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout?item=42#size' } });
    await settled();
    expect(location.assign).toHaveBeenCalledWith('https://shop.example/checkout?item=42#size');
    expect(location.reload).not.toHaveBeenCalled();
  });

  it('should replay exactly once, even if released twice', async () => {
    const { status$, location, loadReplay } = setUp();
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    await settled();
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    await settled();
    expect(location.assign).toHaveBeenCalledTimes(1);
    expect(loadReplay).toHaveBeenCalledTimes(1);
  });

  it('should keep a release that comes before the replay code has loaded, and replay it once loaded, once', async () => {
    const code = deferredLoad();
    const { status$, location } = setUp(code.load);
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    await settled();
    expect(location.assign).not.toHaveBeenCalled();
    code.finish();
    await settled();
    expect(location.assign).toHaveBeenCalledTimes(1);
    expect(location.assign).toHaveBeenCalledWith('https://shop.example/checkout');
  });

  it('should not replay once stopped, even if the replay code arrives afterwards', async () => {
    const code = deferredLoad();
    const { status$, location, subscription } = setUp(code.load);
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    subscription.unsubscribe();
    code.finish();
    await settled();
    expect(location.assign).not.toHaveBeenCalled();
  });

  it('should report a replay code that cannot be loaded, and go on with the other effects', async () => {
    const code = deferredLoad();
    const { status$, location, history, report } = setUp(code.load);
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    code.fail(new Error('Failed to fetch dynamically imported module'));
    await settled();
    expect(report).toHaveBeenCalledWith('Waiting room replay could not load: Failed to fetch dynamically imported module');
    expect(location.assign).not.toHaveBeenCalled();
    status$.next({ kind: 'leaving', step: 'back' });
    expect(history.back).toHaveBeenCalledTimes(1);
  });

  it('should reload when the target is the current address (assign would not load it again)', () => {
    const location = { href: 'https://shop.example/checkout?item=42#size', assign: jest.fn(), reload: jest.fn() };
    const history = { state: null, replaceState: jest.fn() };
    navigateTo('/checkout?item=42#size', { location, history });
    expect(location.reload).toHaveBeenCalledTimes(1);
    expect(location.assign).not.toHaveBeenCalled();
    expect(history.replaceState).not.toHaveBeenCalled();
  });

  it('should put the target hash in place, then reload, when only the hash differs', () => {
    const location = { href: 'https://shop.example/checkout?item=42#other', assign: jest.fn(), reload: jest.fn() };
    const history = { state: { kept: true }, replaceState: jest.fn() };
    navigateTo('/checkout?item=42#size', { location, history });
    expect(history.replaceState).toHaveBeenCalledWith({ kept: true }, '', 'https://shop.example/checkout?item=42#size');
    expect(location.reload).toHaveBeenCalledTimes(1);
    expect(location.assign).not.toHaveBeenCalled();
  });

  it('should submit one hidden POST form for another verb, exactly once', async () => {
    const { status$, submit, location } = setUp();
    const released: QueueStatus = { kind: 'released', replay: { kind: 'form', action: '/checkout', method: 'PUT', uuid: 'u-1' } };
    status$.next(released);
    status$.next(released);
    await settled();
    expect(submit).toHaveBeenCalledTimes(1);
    const forms = document.querySelectorAll('form');
    expect(forms).toHaveLength(1);
    expect(forms[0].getAttribute('method')).toBe('POST');
    expect(forms[0].getAttribute('action')).toBe('/checkout');
    expect(forms[0].hidden).toBe(true);
    expect(location.assign).not.toHaveBeenCalled();
  });
});

describe('effects: loading the replay code once', () => {
  it('should share one load between every caller', async () => {
    const load = jest.fn(async () => 'code');
    const loadCode = loadOnce(load);
    await expect(Promise.all([loadCode(), loadCode()])).resolves.toEqual(['code', 'code']);
    await expect(loadCode()).resolves.toBe('code');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('should forget a failed load, so that the next call tries again', async () => {
    const load = jest.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValue('code');
    const loadCode = loadOnce(load);
    await expect(loadCode()).rejects.toThrow('offline');
    await expect(loadCode()).resolves.toBe('code');
    await expect(loadCode()).resolves.toBe('code');
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('effects: the replay form', () => {
  const fieldsOf = (form: HTMLFormElement) => [...form.querySelectorAll('input')].map((input) => [input.type, input.name, input.value]);

  it('should carry _method, uuid and _token, all hidden, for a verb other than POST', () => {
    const form = createReplayForm(document, { kind: 'form', action: '/orders/7', method: 'DELETE', uuid: 'u-1' }, 'tok');
    expect(form.method).toBe('post');
    expect(form.getAttribute('action')).toBe('/orders/7');
    expect(fieldsOf(form)).toEqual([
      ['hidden', '_method', 'DELETE'],
      ['hidden', 'uuid', 'u-1'],
      ['hidden', '_token', 'tok'],
    ]);
  });

  it('should leave _method out for POST', () => {
    const form = createReplayForm(document, { kind: 'form', action: '/checkout', method: 'POST', uuid: 'u-1' }, 'tok');
    expect(fieldsOf(form)).toEqual([
      ['hidden', 'uuid', 'u-1'],
      ['hidden', '_token', 'tok'],
    ]);
  });

  it('should put hostile values in as text, never as markup', () => {
    const form = createReplayForm(document, { kind: 'form', action: '/c', method: 'PATCH', uuid: '"><script>x</script>' }, 'tok');
    expect(form.querySelector('script')).toBeNull();
    expect(fieldsOf(form)[1]).toEqual(['hidden', 'uuid', '"><script>x</script>']);
  });
});

describe('effects: address-bar clean-up on load', () => {
  it.each([
    ['/waiting?position=3&uri=%2Fcheckout&method=GET', '/waiting'],
    ['/waiting?a=1&position=3&b=x%20y+z&uri=%2Fc&method=POST#frag', '/waiting?a=1&b=x%20y+z#frag'],
    ['/waiting?METHOD=1&method&uri=&positions=2#h', '/waiting?METHOD=1&positions=2#h'],
    ['/waiting?p%6Fsition=3&keep=%ZZ', '/waiting?keep=%ZZ'],
  ])('should turn %s into %s, keeping other parameters byte for byte and the hash', (from, to) => {
    expect(withoutHeldRequestParams(new URL(from, 'https://shop.example'))).toBe(to);
  });

  it('should replace the address without a navigation, keeping the history state', () => {
    const history = { state: { s: 1 }, replaceState: jest.fn() } as unknown as History;
    cleanAddressBar({ href: 'https://shop.example/w?uri=%2Fc&x=1#h' } as Location, history);
    expect(history.replaceState).toHaveBeenCalledWith({ s: 1 }, '', '/w?x=1#h');
  });

  it('should leave the address alone when there is nothing to remove', () => {
    const history = { state: null, replaceState: jest.fn() } as unknown as History;
    cleanAddressBar({ href: 'https://shop.example/w?x=1#h' } as Location, history);
    expect(history.replaceState).not.toHaveBeenCalled();
  });
});
