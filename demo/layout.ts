/**
 * The shop's pages as HTML strings. Every value that came from a request goes through
 * `escapeHtml`: the checkout echoes what it was sent, so it is the first place a script would
 * be smuggled in.
 */

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Who is visiting, as the pages need it. */
export interface Visitor {
  readonly name?: string;
  readonly csrfToken: string;
}

/** What the checkout received, as the shop's handler read it. */
export interface Received {
  readonly method: string;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly contentType?: string;
  /** The body: fields of a form or JSON object, any other JSON value, text, or nothing. */
  readonly body: unknown;
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
  pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
`;

/** A whole page: the header with the sign-in state (when known), then `body`, already HTML. */
export function layout(title: string, visitor: Visitor | undefined, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · A small shop</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/">A small shop</a><div>${visitor ? userBox(visitor) : ''}</div></header>
<main>
${body}
</main>
</body>
</html>`;
}

function userBox(visitor: Visitor): string {
  if (visitor.name === undefined) return '<span class="muted">Not signed in</span>';
  return `Signed in as <strong>${escapeHtml(visitor.name)}</strong>
    <form class="inline" method="post" action="/logout">${tokenField(visitor)}
      <button class="secondary" type="submit">Sign out</button></form>`;
}

function tokenField(visitor: Visitor): string {
  return `<input type="hidden" name="_token" value="${escapeHtml(visitor.csrfToken)}">`;
}

export function homePage(visitor: Visitor): string {
  const signIn =
    visitor.name !== undefined
      ? `<p>You are signed in as <strong>${escapeHtml(visitor.name)}</strong>: the checkout knows who orders.</p>`
      : `<form method="post" action="/login">${tokenField(visitor)}
        <label for="name">Sign in with any name (no password: it is a demo)</label>
        <input id="name" name="name" type="text" maxlength="40" required placeholder="Ada">
        <button type="submit">Sign in</button>
      </form>`;
  return layout(
    'Home',
    visitor,
    `<h1>A small shop</h1>
<p>The checkout is the busy part of the shop. It shows back exactly what it received: the
method, the query, the content type and the form fields.</p>
<div class="card">
  <h2>Sign in (optional)</h2>
  ${signIn}
</div>
<div class="card">
  <h2>Go to the checkout</h2>
  <p><a class="button" href="/checkout?item=42">Open the checkout (GET)</a>
    <a class="button" href="/buy">Buy in one click (a script)</a></p>
  <form method="post" action="/checkout?item=42">${tokenField(visitor)}
    <label for="quantity">Quantity</label>
    <input id="quantity" name="quantity" type="number" min="1" value="1">
    <label for="note">Note to the shop</label>
    <textarea id="note" name="note" rows="2" placeholder="Gift wrap, please"></textarea>
    <button type="submit">Place the order (POST)</button>
  </form>
</div>`,
  );
}

export function checkoutPage(visitor: Visitor, received: Received): string {
  const safe = received.method === 'GET' || received.method === 'HEAD';
  return layout(
    'Checkout',
    visitor,
    `<h1>Checkout</h1>
<p>The shop received a <strong>${escapeHtml(received.method)}</strong> request.</p>
<div class="card"><h2>Query</h2>${table(received.query)}</div>
<div class="card"><h2>Content type</h2><p>${
      received.contentType === undefined ? '<span class="muted">None.</span>' : `<code>${escapeHtml(received.contentType)}</code>`
    }</p></div>
${safe ? '' : `<div class="card"><h2>Fields received</h2>${bodyView(received.body)}</div>`}
<p><a href="/">Back to the shop</a></p>`,
  );
}

/** A short page for a refused request, for people: what happened and the way back. */
export function messagePage(title: string, message: string, visitor?: Visitor): string {
  return layout(
    title,
    visitor,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/">Back to the shop</a></p>`,
  );
}

function bodyView(body: unknown): string {
  if (body === undefined || body === null || body === '') return '<p class="muted">None.</p>';
  if (typeof body === 'object' && !Array.isArray(body)) {
    // The token guards the form; it is not part of the order, and a page is no place to show it.
    return table(Object.entries(body).filter(([name]) => name !== '_token'));
  }
  return `<pre>${escapeHtml(display(body))}</pre>`;
}

function table(entries: ReadonlyArray<readonly [string, unknown]>): string {
  if (entries.length === 0) return '<p class="muted">None.</p>';
  const rows = entries.map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(display(value))}</td></tr>`);
  return `<table>${rows.join('')}</table>`;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
