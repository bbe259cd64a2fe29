import { escapeHtml, layout, type Visitor } from './layout';

/**
 * The shop's single-page checkout: a form whose script places the order with `fetch`, as a
 * single-page app does, against `POST /checkout/api`. When the shop is told of a waiting room's
 * script (`waitingRoomScript`), the page loads it and places the order with its `heldFetch`
 * instead, and shows its `<waiting-room-status>`: a held order then waits in line and goes
 * through once released. Without it, the page shows whatever the API answered, a 503 included.
 */
export function buyPage(visitor: Visitor, waitingRoomScript: string | undefined): string {
  const script = waitingRoomScript ? `<meta name="waiting-room-script" content="${escapeHtml(waitingRoomScript)}">\n` : '';
  return layout(
    'Buy',
    visitor,
    `${script}<meta name="csrf-token" content="${escapeHtml(visitor.csrfToken)}">
<h1>Buy in one click</h1>
<p>This page places its order with a script, as a single-page app does, and shows the shop's answer.</p>
<div class="card">
  <form id="buy">
    <label for="quantity">Quantity of item 42</label>
    <input id="quantity" name="quantity" type="number" min="1" value="1">
    <button type="submit">Buy</button>
  </form>
  <waiting-room-status></waiting-room-status>
  <p id="result" role="status" aria-live="polite"></p>
</div>
<p><a href="/">Back to the shop</a></p>
<script type="module" src="/buy.js"></script>`,
  );
}

/**
 * The page's script, served at `/buy.js`: plain JavaScript, since the shop has no build. It uses
 * the waiting room's `heldFetch` when the page names a script that provides one, `fetch` otherwise.
 */
export const BUY_SCRIPT = `const meta = (name) => document.querySelector('meta[name="' + name + '"]')?.content;
const form = document.getElementById('buy');
const result = document.getElementById('result');
const script = meta('waiting-room-script');
const send = script
  ? import(script).then((module) => module.heldFetch, () => (...args) => fetch(...args))
  : Promise.resolve((...args) => fetch(...args));

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = form.querySelector('button');
  button.disabled = true;
  result.textContent = 'Placing your order…';
  try {
    const response = await (await send)('/checkout/api?item=42', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': meta('csrf-token') },
      body: JSON.stringify({ quantity: Number(form.quantity.value) }),
    });
    const answer = await response.json().catch(() => null);
    result.textContent = response.ok
      ? 'Order ' + answer.order + ' placed: ' + answer.received.quantity + ' of item 42.'
      : 'The shop answered ' + response.status + ': ' + (answer?.error?.message ?? 'try again later.');
  } catch (error) {
    result.textContent = 'The order could not be placed: ' + error.message;
  } finally {
    button.disabled = false;
  }
});
`;
