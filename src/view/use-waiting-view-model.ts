import { useEffect, useState } from 'react';
import { Subject, type Observable } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { createWaitingViewModel, type WaitingViewModel } from './waiting-view-model';

/**
 * Builds the view model in an effect whose cleanup ends its scope, so a StrictMode remount
 * leaves nothing behind; null until the effect has run.
 */
export function useWaitingViewModel(queue$: Observable<QueueStatus>): WaitingViewModel | null {
  const [viewModel, setViewModel] = useState<WaitingViewModel | null>(null);
  useEffect(() => {
    const ended$ = new Subject<void>();
    setViewModel(createWaitingViewModel(queue$, ended$));
    return () => {
      ended$.next();
      ended$.complete();
    };
  }, [queue$]);
  return viewModel;
}
