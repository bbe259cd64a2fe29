import type { QueueStatus } from '@waiting-room/streams';
import { statusView } from '../../elements/status-view';
import { ENGLISH, FRENCH, pickTexts } from '../../elements/texts';

const AT = Date.UTC(2030, 0, 2, 10, 42, 5);
const waiting = (extra: Partial<Extract<QueueStatus, { kind: 'waiting' }>> = {}): QueueStatus => ({
  kind: 'waiting',
  position: 1234,
  estimated: 3.4,
  updatedAt: AT,
  connection: 'connected',
  failedPolls: 0,
  ...extra,
});

describe('<waiting-room-status>: what it shows', () => {
  it('should show nothing, and say nothing, while no request is held', () => {
    expect(statusView({ held: 0, status: null }, ENGLISH)).toMatchObject({ state: 'idle', announcement: '', message: '', position: null });
  });

  it('should say it is finding the place until the first position', () => {
    expect(statusView({ held: 1, status: null }, ENGLISH)).toMatchObject({ state: 'loading', message: 'Finding your place in line…', announcement: 'Finding your place in line…' });
    expect(statusView({ held: 1, status: { kind: 'loading', connection: 'connecting', failedPolls: 0 } }, FRENCH)).toMatchObject({
      state: 'loading',
      message: 'Recherche de votre place dans la file…',
      notice: null,
    });
  });

  it('should show the position, the estimate in whole minutes and when it was updated, and announce position and estimate', () => {
    const view = statusView({ held: 1, status: waiting() }, ENGLISH);
    expect(view).toMatchObject({
      state: 'waiting',
      message: 'Your request is waiting in line',
      position: '1,234',
      estimated: 'Estimated wait: about 3 minutes',
      updatedAt: AT,
      announcement: 'Your position: 1,234. Estimated wait: about 3 minutes',
      notice: null,
    });
    expect(view.updated).toBe(`Last updated at ${new Date(AT).toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`);
  });

  it('should speak French', () => {
    const view = statusView({ held: 1, status: waiting({ estimated: 0.4 }) }, FRENCH);
    expect(view).toMatchObject({ message: 'Votre demande attend dans la file', estimated: "Attente estimée : moins d'une minute" });
    expect(view.position).toBe(new Intl.NumberFormat('fr').format(1234));
    expect(view.announcement).toBe(`Votre position: ${new Intl.NumberFormat('fr').format(1234)}. Attente estimée : moins d'une minute`);
  });

  it.each([
    ['the connection is lost', { connection: 'unavailable' as const }, 'Connection lost. Reconnecting… You keep your place in line.'],
    ['queue_info failed', { failedPolls: 2 }, 'Your position could not be refreshed. Retrying…'],
  ])('should keep the position and add a notice when %s', (_, extra, notice) => {
    expect(statusView({ held: 1, status: waiting(extra) }, ENGLISH)).toMatchObject({ state: 'waiting', position: '1,234', notice });
  });

  it.each<[QueueStatus, string, string]>([
    [{ kind: 'released', replay: { kind: 'navigate', target: '/x' } }, 'turn', 'It is your turn! Sending your request…'],
    [{ kind: 'lost', rejoin: '/x' }, 'lost', 'Your place in line was lost. Joining the line again…'],
    [{ kind: 'rejoining', target: '/x' }, 'lost', 'Your place in line was lost. Joining the line again…'],
    [{ kind: 'failed', message: 'Websoket KO - unavailable' }, 'failed', 'The waiting room could not keep your place: your request was not sent.'],
  ])('should say what happens at %j', (status, state, message) => {
    expect(statusView({ held: 1, status }, ENGLISH)).toEqual({ state, message, announcement: message, position: null, estimated: null, updatedAt: null, updated: null, notice: null });
  });

  it('should pick French for any fr language tag, English otherwise', () => {
    expect(pickTexts('fr-CA')).toBe(FRENCH);
    expect(pickTexts('FR')).toBe(FRENCH);
    expect(pickTexts('en-GB')).toBe(ENGLISH);
    expect(pickTexts('frisian')).toBe(ENGLISH);
    expect(pickTexts(null)).toBe(ENGLISH);
  });
});
