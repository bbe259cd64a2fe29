import { ConfigError, loadConfig } from './config';
import { configWarnings } from './config-warnings';
import { PageTemplateError } from '../http/page';
import { start, type DefaultOrigin } from './start';
import { StateFileError } from './state-file';

/** Process managers kill about 10 s after SIGTERM: leave before they do, whatever still hangs. */
const SHUTDOWN_DEADLINE_MS = 9_000;

/**
 * The server's process: reads the environment, starts the server (in front of `defaultOrigin`
 * when UPSTREAM is not set), says where to go, and closes on SIGINT and SIGTERM.
 */
export async function main(defaultOrigin?: DefaultOrigin): Promise<void> {
  let config;
  try {
    // A variable set by a former name still works, and says so once, here.
    config = loadConfig(process.env, (notice) => console.warn(notice));
  } catch (error) {
    if (error instanceof ConfigError) return fail(`Configuration error: ${error.message}`);
    throw error;
  }
  for (const warning of configWarnings(config)) console.warn(warning);
  if (config.sessionSecretGenerated) {
    console.warn('SESSION_SECRET is not set: using a random one, so sessions end when the server restarts.');
  }
  const redis = config.redisUrl ? 'Redis' : config.redisEngine?.kind === 'sentinel' ? 'Redis (Sentinel)' : config.redisEngine && 'Redis Cluster';
  const redisSetting = config.redisUrl ? 'REDIS_URL' : config.redisEngine?.kind === 'sentinel' ? 'REDIS_SENTINELS' : 'REDIS_CLUSTER_NODES';
  if (redis && (config.sessionSecretGenerated || config.pusher.secretGenerated)) {
    console.warn(
      `${redisSetting} is set: give every instance the same SESSION_SECRET and PUSHER_SECRET, or the sessions and private channels one instance signs are refused by the others.`,
    );
  }
  let server;
  try {
    server = await start(config, { defaultOrigin });
  } catch (error) {
    if (error instanceof PageTemplateError || error instanceof StateFileError) return fail(error.message);
    if (error instanceof ConfigError) return fail(`Configuration error: ${error.message}`);
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') return fail(`Port ${config.port} is in use: set PORT to another one.`);
    if (code === 'EACCES') return fail(`Not allowed to listen on ${config.host}:${config.port}.`);
    throw error;
  }
  const realtime = config.pusher.embedded
    ? `embedded realtime server on the same port${redis ? ', events shared through Redis pub/sub' : ''}`
    : `realtime through ${config.pusher.host ?? `Pusher Channels (${config.pusher.cluster})`}`;
  const origin = config.gateway.upstream ?? defaultOrigin?.name;
  const rooms = config.rooms.map((room) => `${room.name}: ${room.protect.join(', ')}`).join('; ');
  console.log(`Waiting Room in front of ${origin}: open ${server.url}/ (protected, ${rooms}).`);
  console.log(`Queue in ${redis ?? 'memory'}, ${realtime}.`);
  if (config.adminTokenGenerated) {
    console.log(`Admin token (ADMIN_TOKEN was not set): ${server.adminToken}`);
  }
  console.log(`Try: curl -H "Authorization: Bearer <admin token>" ${server.url}/admin/stats`);
  console.log(`Operator console: ${server.url}/admin/ (sign in with the admin token).`);

  if (config.stateFile) console.log(`The line will be written to ${config.stateFile} at SIGTERM, and read at the next start.`);

  const stop = (signal: string) => {
    console.log(`${signal}: closing…`);
    // Whatever hangs (a client that never finishes), the process is gone within the deadline.
    setTimeout(() => {
      console.error(`Not closed within ${SHUTDOWN_DEADLINE_MS / 1000} s: exiting anyway.`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server
      .close()
      .then(() => {
        if (config.stateFile) console.log(`The line was written to ${config.stateFile}.`);
        process.exit(0);
      })
      .catch((error: unknown) => {
        console.error(error instanceof StateFileError ? error.message : error);
        process.exit(1);
      });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

function fail(message: string): void {
  console.error(message);
  process.exitCode = 1;
}
