/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value: HttpOnly, for the whole site, sent on top-level navigations from elsewhere (Lax). */
export function setCookie(name: string, value: string, options: { readonly maxAgeSeconds: number; readonly secure: boolean }): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`;
}
