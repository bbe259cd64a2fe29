import { createQueue$ } from '@waiting-room/streams';
import { afterFirstPaint } from './adapters/after-first-paint';
import { startPage } from './start-page';

startPage(document.getElementById('waiting-room') ?? document.body, {
  window,
  fetch: (url, init) => fetch(url, init),
  // A separate chunk (pusher-js), fetched once the view has arrived: the position does not need it.
  loadPusher: () => import('./adapters/pusher-client').then(({ createPusherClient }) => createPusherClient),
  createQueue$,
  // React and the view: files of their own, fetched while the connection opens.
  loadView: () => import('./view/mount').then(({ mountView }) => mountView),
  // A separate chunk, fetched once the position shows (or at the first report).
  loadReporter: (settings) => import('./adapters/sentry').then(({ startSentry }) => startSentry(settings)),
  // A separate chunk, fetched only for a malformed config.
  loadConfigProblem: () => import('./view/config-problem').then(({ configProblemView }) => configProblemView),
  // A separate chunk, fetched only when the place in line is lost.
  loadLostPlace: () => import('./view/lost-place').then(({ lostPlaceView }) => lostPlaceView),
  // A separate chunk, fetched only in a scheduled event's pre-queue.
  loadEventView: () => import('./view/event-view').then(({ eventView }) => eventView),
  // A separate chunk, fetched only for a config without a language.
  loadEnglish: () => import('./i18n/english').then(({ ENGLISH }) => ENGLISH),
  // A separate chunk, fetched once the position shows: the language switch and the notifications.
  loadControls: () => import('./view/controls').then(({ createControls }) => createControls),
  // A separate chunk, fetched only when the visitor opens "continue on another device".
  loadQrCode: () => import('./view/qr-code').then(({ qrCode }) => qrCode),
  // A separate chunk, prefetched once the position shows.
  loadReplay: () => import('./effects/perform-replay').then(({ performReplay }) => performReplay),
  // A separate chunk and its workers, fetched only for a bot check.
  solveAltcha: (challenge) => import('../bot-check/solve').then(({ solveAltcha }) => solveAltcha(challenge)),
  afterFirstPaint: (run) => afterFirstPaint(run),
});
