import { NEVER, type Observable } from 'rxjs';
import { useObservableState } from 'observable-hooks';
import type { QueueStatus } from '../../streams/types';
import type { Texts } from './texts';
import { LOADING_VIEW, type WaitingView } from './waiting-view-model';
import { useWaitingViewModel } from './use-waiting-view-model';
import { useDocumentTitle } from './use-document-title';
import { formatCount } from './format';
import { Announcer } from './Announcer';
import { LoadingBlock } from './LoadingBlock';
import { WaitingBlock } from './WaitingBlock';

/** The waiting page: renders the shared status stream. Replay, leave and report are the effects' job, not the view's. */
export function WaitingRoom({ queue$, texts }: { queue$: Observable<QueueStatus>; texts: Texts }) {
  const viewModel = useWaitingViewModel(queue$);
  const view: WaitingView = useObservableState(viewModel?.view$ ?? NEVER, LOADING_VIEW);
  const position = view.phase == 'waiting' ? formatCount(texts.lang, view.position) : '';
  useDocumentTitle(position ? texts.tabTitle(position) : texts.title);
  const announcement = view.phase == 'waiting' ? `${texts.position}: ${position}. ${texts.estimated(view.estimated)}` : '';
  const notice = 'notice' in view && view.notice;
  return (
    <>
      <Announcer text={announcement} />
      {notice && (
        <p className="wr-notice" role="alert">
          {texts[notice]}
        </p>
      )}
      {view.phase == 'loading' ? (
        <LoadingBlock texts={texts} />
      ) : view.phase == 'waiting' ? (
        <WaitingBlock texts={texts} position={view.position} estimated={view.estimated} updatedAt={view.updatedAt} />
      ) : (
        <section className="wr-block" role="status">
          <p>{texts[view.phase]}</p>
        </section>
      )}
    </>
  );
}
