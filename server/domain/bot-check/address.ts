import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted under for PLACES_PER_ADDRESS: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, is that IPv4 address), an IPv6 address by its /64,
 * since one subscriber gets a whole /64 and picks any address in it at will (`2001:db8:1:2::/64`).
 * A value that is no address (a socket gone, a misconfigured proxy) is counted as it is written.
 *
 * The address is the socket's, or with TRUST_PROXY the client's as the proxy in front says
 * (`request.ip`, Fastify's reading of X-Forwarded-For): never a header a client sets itself.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const network = new ipaddr.IPv6([...(address as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}
