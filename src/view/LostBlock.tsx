import { createElement, useEffect, useState } from 'react';
import type { Texts } from '../i18n/texts';
import type { LostPlaceView } from './lost-place';

interface Props {
  /** Loads the lost-place view (a file of its own: only a visitor whose place was lost needs it). */
  readonly load: () => Promise<LostPlaceView>;
  readonly texts: Texts;
  readonly rejoin: boolean;
}

/**
 * The lost-place block: nothing until its view has loaded, then that view. A load that fails
 * shows nothing more (the page reports it; a held GET still joins the line again).
 */
export function LostBlock({ load, texts, rejoin }: Props) {
  const [view, setView] = useState<{ readonly render: LostPlaceView }>();
  useEffect(() => {
    let shown = true;
    load().then((render) => shown && setView({ render }), () => undefined);
    return () => {
      shown = false;
    };
  }, [load]);
  return view ? view.render(createElement, texts, rejoin) : null;
}
