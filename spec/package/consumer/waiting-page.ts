import { createQueue$, type Replay } from '@waiting-room/streams';
import { CONFIG_ELEMENT_ID, parsePageConfig } from '@waiting-room/streams/contract';
import { queueSources, type SolveAltcha } from './queue-sources.js';

/** Your bot-check solver (see "The bot check"); this one refuses, for a room without the check. */
const solve: SolveAltcha = async () => Promise.reject(new Error('This page has no bot-check solver'));

// 1. The config the waiting room wrote into the page, checked.
const result = parsePageConfig(JSON.parse(document.getElementById(CONFIG_ELEMENT_ID)?.textContent || 'null'), location.href);
if (!result.ok) throw new Error(`The waiting-room config is malformed:\n${result.problems.join('\n')}`);
const { config } = result;
const { queue, userId, csrfToken } = config;

// 2. What each status asks of the page.
const show = (text: string) => (document.body.textContent = text);

/** Sends the held request again, once. */
function replay(held: Replay): void {
  if (held.kind == 'navigate') {
    const target = new URL(held.target, location.href);
    const here = new URL(location.href);
    // The same address with only another hash (or none): assign() would only scroll, not load it.
    if (target.href.split('#')[0] != here.href.split('#')[0]) return location.assign(target.href);
    history.replaceState(history.state, '', target.href);
    return location.reload();
  }
  const form = Object.assign(document.createElement('form'), { method: 'POST', action: held.action, hidden: true });
  const fields = { ...(held.method == 'POST' ? {} : { _method: held.method }), uuid: held.uuid, _token: csrfToken };
  for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
  document.body.append(form);
  form.submit();
}

// 3. The status stream.
const { sources, pusher } = queueSources(config, solve);
createQueue$(sources, {
  anonymous: !userId,
  request: { uuid: queue.uuid, uri: queue.uri, method: queue.method, hash: location.hash },
  timings: config.timings,
  onSourceError: (source, error) => console.error(`waiting room: ${source} failed`, error),
}).subscribe({
  next(status) {
    switch (status.kind) {
      case 'loading':
        return show(status.opensAt === undefined ? 'Finding your place in line…' : `The sale opens at ${new Date(status.opensAt).toLocaleTimeString()}.`);
      case 'waiting':
        // 0 means released: the release event is on its way.
        if (status.position == 0) return show('It is your turn…');
        return show(`You are number ${status.position} in line, about ${status.estimated} min.${status.failedPolls ? ' Retrying…' : ''}`);
      case 'released':
        return replay(status.replay);
      case 'failed':
        return console.error(status.message); // report it: the page leaves 2 s later
      case 'leaving':
        return status.step == 'back' ? history.back() : location.assign('/');
      case 'lost':
        return show(status.rejoin ? 'Your place in line was lost: taking you back in line…' : 'Your place in line was lost.');
      case 'rejoining':
        return location.assign(status.target);
    }
  },
  complete: () => pusher.disconnect(),
});
