import { filter, map, merge, scan, type Observable, type SchedulerLike } from 'rxjs';
import { isTicketCount, type LineMoved, type QueueInfo } from '../contract/queue-info.js';
import type { PollResult } from './queue-info.js';

type Answer = Extract<PollResult, { ok: true }>;

/**
 * A position a move of the line brought: shown as an answer is, stamped with the time of the
 * move, but it is no queue_info success, so the failed calls in a row still count.
 */
export type Pushed = Answer & { readonly pushed: true };

/** What the waiting display shows from: queue_info outcomes and moves of the line. */
export type ShownResult = PollResult | Pushed;

interface Line {
  /** The highest `served` heard so far, from answers and moves alike. */
  readonly served: number;
  /** The last successful answer, null before the first. */
  readonly answer: Answer | null;
  /** What this step shows; null when it changes nothing. */
  readonly shown: ShownResult | null;
}

const START: Line = { served: 0, answer: null, shown: null };

/**
 * An answer moved up to `served`: the position counted from the ticket (`ticket - served`), but
 * never below 1 nor above the answered position. Only queue_info says 0 (released): a move never
 * does, so the release event and the position-0 watchdog stay as the spec has them.
 *
 * The estimate is scaled by the same ratio as the position: the server's estimate is the position
 * over a release rate, so the ratio keeps that rate without knowing it, and scaling the answer's
 * own estimate (never a scaled one) does not pile up rounding. It is rounded up and kept at 1 or
 * more, as the server rounds (0 minutes would read as released), and never above the answered one.
 */
export function movedUp(info: QueueInfo, served: number): QueueInfo {
  const { position, estimated, ticket } = info;
  const moved = ticket === undefined ? position : Math.min(position, Math.max(1, ticket - served));
  return moved == position ? info : { ...info, position: moved, estimated: Math.min(estimated, Math.max(1, Math.ceil((estimated * moved) / position))) };
}

/**
 * The line moved (an extension beyond the spec): a push moves the visitor up at once, where the
 * spec's polls would take up to 5 s (anonymous) or 60 s (signed in).
 *
 * Emits each queue_info outcome as it comes (a failed call unchanged, an answer moved up to the
 * highest `served` heard, so an answer made before a move that came first never moves the visitor
 * back), and, for a move that lowers the position shown, that answer moved up and stamped with
 * `scheduler.now()` as a `Pushed`. A move before the first answer, a move of an answer without a
 * ticket, and a `served` that is not a non-negative whole number emit nothing; the first two are
 * remembered (the spec leaves loading on the first successful poll only).
 */
export function lineMoved(results$: Observable<PollResult>, moved$: Observable<LineMoved>, scheduler: SchedulerLike): Observable<ShownResult> {
  return merge(
    results$,
    moved$.pipe(
      map((move) => move?.served),
      filter(isTicketCount),
    ),
  ).pipe(
    scan((line: Line, input: PollResult | number): Line => {
      if (typeof input != 'number') {
        if (!input.ok) return { ...line, shown: input };
        const served = Math.max(line.served, input.info.served ?? 0);
        return { served, answer: input, shown: { ...input, info: movedUp(input.info, served) } };
      }
      const served = Math.max(line.served, input);
      const { answer } = line;
      const info = answer && movedUp(answer.info, served);
      const lower = info && info.position < movedUp(answer.info, line.served).position;
      return { served, answer, shown: lower ? { ok: true, info, at: scheduler.now(), pushed: true } : null };
    }, START),
    map((line) => line.shown),
    filter((shown) => shown != null),
  );
}
