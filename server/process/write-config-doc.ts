import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_DOC_PATH, configurationDoc } from './config-doc';
import { projectRoot } from './project-root';

/** `npm run docs:config`: writes docs/configuration.md from the configuration schema. */
writeFileSync(path.join(projectRoot(), CONFIG_DOC_PATH), configurationDoc());
console.log(`Wrote ${CONFIG_DOC_PATH}.`);
