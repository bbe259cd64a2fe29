import type { FastifyRequest } from 'fastify';

const HOSTNAME = /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

/** Where the visitor reached us: the host name and `host[:port]` of the request, and whether it was TLS. */
export interface RequestOrigin {
  readonly hostname: string;
  readonly host: string;
  readonly secure: boolean;
}

/** The origin the visitor reached us by; an unusable Host header falls back to `fallbackHost`. */
export function originOf(request: FastifyRequest, fallbackHost: string): RequestOrigin {
  const valid = HOSTNAME.test(request.hostname);
  const hostname = valid ? request.hostname : fallbackHost;
  const port = valid ? request.port : request.socket.localPort;
  return {
    hostname,
    host: port ? `${hostname}:${port}` : hostname,
    secure: request.protocol === 'https',
  };
}
