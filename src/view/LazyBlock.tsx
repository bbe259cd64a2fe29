import { createElement, useEffect, useState, type ReactElement } from 'react';

/** A view in a file of its own: it gets the page's `createElement` (one React), then its own arguments. */
export type LazyView<A extends unknown[]> = (h: typeof createElement, ...args: A) => ReactElement | null;

interface Props<A extends unknown[]> {
  /** Loads the view (a file of its own: only some visitors need it). */
  readonly load: () => Promise<LazyView<A>>;
  readonly args: A;
}

/**
 * A block whose view loads when it is first shown: nothing until then, then the view with `args`.
 * A load that fails shows nothing more (the page reports it).
 */
export function LazyBlock<A extends unknown[]>({ load, args }: Props<A>) {
  const [view, setView] = useState<{ readonly render: LazyView<A> }>();
  useEffect(() => {
    let shown = true;
    load().then(
      (render) => shown && setView({ render }),
      () => undefined,
    );
    return () => {
      shown = false;
    };
  }, [load]);
  return view ? view.render(createElement, ...args) : null;
}
