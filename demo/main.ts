import { startDemoOrigin } from './origin';

/** `node --import tsx demo/main.ts`: the shop on its own, configured from the environment. */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number (0 to 65535), not ${JSON.stringify(process.env.PORT)}.`);
    process.exitCode = 1;
    return;
  }
  const host = process.env.HOST || '127.0.0.1';
  const secret = process.env.DEMO_SECRET || undefined;
  if (!secret) console.warn('DEMO_SECRET is not set: using a random one, so sessions end when the shop restarts.');

  const waitingRoomScript = process.env.WAITING_ROOM_SCRIPT || undefined;
  const origin = await startDemoOrigin({ port, host, secret, logLevel: 'info', waitingRoomScript });
  console.log(`A small shop: open ${origin.url}/`);

  const stop = (signal: string) => {
    console.log(`${signal}: closing…`);
    origin.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') console.error(`Port ${process.env.PORT ?? 3000} is in use: set PORT to another one.`);
  else console.error(error);
  process.exit(1);
});
