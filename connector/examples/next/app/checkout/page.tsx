// Rendered on every request, never prerendered: each render is one admitted visit.
export const dynamic = 'force-dynamic';

let admitted = 0;

export default function Checkout() {
  admitted += 1;
  return (
    <main>
      <h1>Checkout</h1>
      <p id="admitted">admitted {admitted}</p>
    </main>
  );
}
