import { useEffect } from 'react';

/** Keeps the tab title in step with `title`. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
