import Link from 'next/link';

export default function Home() {
  return (
    <main>
      <h1>Shop</h1>
      <Link href="/checkout">Checkout</Link>
    </main>
  );
}
