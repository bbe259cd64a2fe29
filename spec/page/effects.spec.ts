import { Subject } from 'rxjs';
import type { QueueStatus } from '../../streams/types';
import { runEffects, type EffectsDeps } from '../../src/effects/run-effects';
import { createReplayForm } from '../../src/effects/replay-form';
import { navigateTo } from '../../src/effects/replay';
import { cleanAddressBar, withoutHeldRequestParams } from '../../src/effects/clean-address-bar';

const HEALTH = { connection: 'connected', failedPolls: 0 } as const;

function setUp(href = 'https://shop.example/waiting') {
  const status$ = new Subject<QueueStatus>();
  const location = { href, assign: jest.fn(), reload: jest.fn() };
  const history = { state: null, back: jest.fn(), replaceState: jest.fn() };
  const report = jest.fn();
  const submit = jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => undefined);
  const deps: EffectsDeps = { location, history, document, csrfToken: 'csrf-token', report };
  const subscription = runEffects(status$, deps);
  return { status$, location, history, report, submit, subscription };
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
  it('should navigate to a GET target with its hash', () => {
    const { status$, location } = setUp();
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout?item=42#size' } });
    expect(location.assign).toHaveBeenCalledWith('https://shop.example/checkout?item=42#size');
    expect(location.reload).not.toHaveBeenCalled();
  });

  it('should replay exactly once, even if released twice', () => {
    const { status$, location } = setUp();
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    status$.next({ kind: 'released', replay: { kind: 'navigate', target: '/checkout' } });
    expect(location.assign).toHaveBeenCalledTimes(1);
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

  it('should submit one hidden POST form for another verb, exactly once', () => {
    const { status$, submit, location } = setUp();
    const released: QueueStatus = { kind: 'released', replay: { kind: 'form', action: '/checkout', method: 'PUT', uuid: 'u-1' } };
    status$.next(released);
    status$.next(released);
    expect(submit).toHaveBeenCalledTimes(1);
    const forms = document.querySelectorAll('form');
    expect(forms).toHaveLength(1);
    expect(forms[0].getAttribute('method')).toBe('POST');
    expect(forms[0].getAttribute('action')).toBe('/checkout');
    expect(forms[0].hidden).toBe(true);
    expect(location.assign).not.toHaveBeenCalled();
  });
});

describe('effects: the replay form', () => {
  const fieldsOf = (form: HTMLFormElement) =>
    [...form.querySelectorAll('input')].map((input) => [input.type, input.name, input.value]);

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
