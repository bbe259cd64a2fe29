import type { QueueStatus } from '@waiting-room/streams';
import { NO_PROGRESS, nextProgress, progressOf, type ProgressEvent } from '../../elements/progress';

const waiting = (position: number): QueueStatus => ({ kind: 'waiting', position, estimated: position, updatedAt: 0, connection: 'connected', failedPolls: 0 });
const run = (events: ProgressEvent[]) => progressOf(events.reduce(nextProgress, NO_PROGRESS));

describe("heldFetch's progress, as <waiting-room-status> shows it", () => {
  it('should show nothing held before any request and after the last one settled', () => {
    expect(run([])).toEqual({ held: 0, status: null, language: null });
    expect(
      run([
        { kind: 'held', request: 1, uuid: 'a', language: null },
        { kind: 'status', uuid: 'a', status: waiting(2) },
        { kind: 'settled', request: 1 },
      ]),
    ).toEqual({ held: 0, status: null, language: null });
  });

  it('should show a held request without a status yet, then its place latest status', () => {
    expect(run([{ kind: 'held', request: 1, uuid: 'a', language: null }])).toEqual({ held: 1, status: null, language: null });
    expect(
      run([
        { kind: 'held', request: 1, uuid: 'a', language: null },
        { kind: 'status', uuid: 'a', status: waiting(3) },
        { kind: 'status', uuid: 'a', status: waiting(2) },
      ]),
    ).toEqual({
      held: 1,
      status: waiting(2),
      language: null,
    });
  });

  it('should count every held request, and show the place of the oldest still held', () => {
    const events: ProgressEvent[] = [
      { kind: 'held', request: 1, uuid: 'a', language: null },
      { kind: 'held', request: 2, uuid: 'b', language: null },
      { kind: 'held', request: 3, uuid: 'a', language: null },
      { kind: 'status', uuid: 'a', status: waiting(5) },
      { kind: 'status', uuid: 'b', status: waiting(1) },
    ];
    expect(run(events)).toEqual({ held: 3, status: waiting(5), language: null });
    expect(run([...events, { kind: 'settled', request: 1 }])).toEqual({ held: 2, status: waiting(1), language: null });
  });

  it('should keep the released status while the request is sent again, until it settles', () => {
    const released: QueueStatus = { kind: 'released', replay: { kind: 'navigate', target: '/checkout' } };
    expect(
      run([
        { kind: 'held', request: 1, uuid: 'a', language: null },
        { kind: 'status', uuid: 'a', status: released },
      ]),
    ).toEqual({ held: 1, status: released, language: null });
  });

  it('should start afresh when a request is held again in another place', () => {
    const events: ProgressEvent[] = [
      { kind: 'held', request: 1, uuid: 'a', language: null },
      { kind: 'status', uuid: 'a', status: waiting(4) },
      { kind: 'held', request: 1, uuid: 'b', language: null },
    ];
    expect(run(events)).toEqual({ held: 1, status: null, language: null });
  });

  it('should ignore the status of a place no held request names', () => {
    expect(
      run([
        { kind: 'status', uuid: 'a', status: waiting(4) },
        { kind: 'held', request: 1, uuid: 'a', language: null },
      ]),
    ).toEqual({ held: 1, status: null, language: null });
  });
});

describe("heldFetch's progress: the visitor's language", () => {
  const german = { locale: 'de', dir: 'ltr' as const, messages: { 'page.loading': 'Ihr Platz wird gesucht…' } };
  const arabic = { locale: 'ar', dir: 'rtl' as const, messages: { 'page.loading': 'جارٍ البحث عن مكانك…' } };

  it("should give the language of the oldest held request's place, as its held answer brought it", () => {
    const events: ProgressEvent[] = [
      { kind: 'held', request: 1, uuid: 'a', language: german },
      { kind: 'held', request: 2, uuid: 'b', language: arabic },
    ];
    expect(run(events).language).toBe(german);
    expect(run([...events, { kind: 'settled', request: 1 }]).language).toBe(arabic);
  });

  it('should give none for a held answer without one, and none once nothing is held', () => {
    expect(run([{ kind: 'held', request: 1, uuid: 'a', language: null }]).language).toBeNull();
    expect(
      run([
        { kind: 'held', request: 1, uuid: 'a', language: german },
        { kind: 'settled', request: 1 },
      ]),
    ).toEqual({ held: 0, status: null, language: null });
    expect(
      nextProgress(nextProgress(NO_PROGRESS, { kind: 'held', request: 1, uuid: 'a', language: german }), { kind: 'settled', request: 1 }).languages.size,
    ).toBe(0);
  });
});
