import { demoShop } from '../demo/origin';
import { main } from '../server/process/main';

/**
 * `npm start` and the container: the waiting room, in front of UPSTREAM, or of the demo shop
 * when UPSTREAM is not set. The server itself knows no particular site; this entry brings the
 * example one.
 */
main(demoShop).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
