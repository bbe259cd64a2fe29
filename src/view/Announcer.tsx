/**
 * A visually hidden polite live region. It stays mounted from the first paint, so screen
 * readers announce each change of its text, including the first position.
 */
export function Announcer({ text }: { text: string }) {
  return (
    <p className="wr-sr" aria-live="polite" aria-atomic="true">
      {text}
    </p>
  );
}
