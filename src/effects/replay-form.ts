import type { Replay } from '@waiting-room/streams';

type FormReplay = Extract<Replay, { kind: 'form' }>;

/**
 * The hidden form that replays a non-GET request (spec section 4): POSTed to the held URI, with
 * `_method` carrying the real verb when it is not POST, then `uuid` and `_token`.
 */
export function createReplayForm(doc: Document, replay: FormReplay, csrfToken: string): HTMLFormElement {
  const form = doc.createElement('form');
  form.method = 'POST';
  form.action = replay.action;
  form.hidden = true;
  const fields = replay.method.toUpperCase() == 'POST' ? [] : [['_method', replay.method]];
  for (const [name, value] of [...fields, ['uuid', replay.uuid], ['_token', csrfToken]]) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  return form;
}
