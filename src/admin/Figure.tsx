import type { ReactNode } from 'react';

/** One figure of a panel: its label, and its value under `data-figure` (what tests and readers look for). */
export function Figure({ label, name, children }: { readonly label: string; readonly name: string; readonly children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-figure={name}>{children}</dd>
    </div>
  );
}
