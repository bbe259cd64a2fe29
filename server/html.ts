/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
  :root { color-scheme: light dark; --accent: #2f6fdf; --muted: #6b7280; --line: #d9dde5; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  header { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); display: flex;
           justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }
  header a { font-weight: 600; text-decoration: none; color: inherit; }
  main { max-width: 44rem; margin: 2rem auto; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
  h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
  .card h2 { margin-top: 0; }
  p, li { color: inherit; }
  .muted { color: var(--muted); }
  .card { border: 1px solid var(--line); border-radius: .75rem; padding: 1.25rem; margin: 1rem 0; }
  form.inline { display: inline; }
  label { display: block; margin: .5rem 0 .25rem; font-weight: 500; }
  input[type=text], input[type=number], textarea { width: 100%; padding: .5rem .6rem; font: inherit;
           border: 1px solid var(--line); border-radius: .5rem; background: transparent; color: inherit; }
  button, .button { display: inline-block; margin-top: .75rem; padding: .5rem 1rem; font: inherit;
           font-weight: 600; border: 0; border-radius: .5rem; background: var(--accent); color: #fff;
           cursor: pointer; text-decoration: none; }
  button.secondary { background: transparent; color: inherit; border: 1px solid var(--line); margin: 0; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { width: 30%; font-weight: 600; }
  code { font-size: .95em; }
`;

/** A demo page: header with the sign-in state, then `body` (already escaped HTML). */
export function layout(title: string, user: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Waiting Room demo</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/">Waiting Room demo</a><div>${user}</div></header>
<main>
${body}
</main>
</body>
</html>`;
}
