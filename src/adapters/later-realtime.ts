import { EMPTY, NEVER, from, of, switchMap, type Observable } from 'rxjs';
import type { RealtimeSources } from '@waiting-room/streams';

/**
 * The realtime sources of a client that is not there yet: each source follows the client's own
 * once `realtime` has it. Until then the connection stays in its first state ('initialized', as
 * the core starts it). A client that could not be had is a connection `error` (on `error$`, the
 * other sources never emit): the core's connection check then leaves after its delay, as for a
 * connection that never opens.
 */
export function laterRealtimeSources(realtime: Promise<RealtimeSources>, withOpening: boolean): RealtimeSources {
  const had = realtime.then(
    (sources) => ({ sources }),
    (error: unknown) => ({ error }),
  );
  const later = <T>(pick: (sources: RealtimeSources) => Observable<T>, onFailure: (error: unknown) => Observable<T> = () => NEVER) =>
    from(had).pipe(switchMap((result) => ('sources' in result ? pick(result.sources) : onFailure(result.error))));
  return {
    state$: later((sources) => sources.state$),
    error$: later((sources) => sources.error$, of),
    subscribe: () => later((sources) => sources.subscribe()),
    subscribed$: later((sources) => sources.subscribed$),
    release$: later((sources) => sources.release$),
    handedOff$: later((sources) => sources.handedOff$ ?? EMPTY),
    moved$: later((sources) => sources.moved$),
    message$: later((sources) => sources.message$ ?? EMPTY),
    ...(withOpening && { opened$: later((sources) => sources.opened$ ?? EMPTY) }),
  };
}
