import { CONFIG_SCHEMA, SECTIONS, VARIABLES, type VariableSchema } from '../config/environment';
import { ROOM_FIELDS, type RoomFieldDeclaration } from '../config/room';

/** Where the documentation is written, from the repository's root. */
export const CONFIG_DOC_PATH = 'docs/configuration.md';

const INTRO = `# Configuration

<!-- Written by \`npm run docs:config\` from server/config/environment.ts: change the declaration, then run it. -->

All configuration is by environment variables, read once at start. A bad value stops the server
before it listens, with a message naming the variable; an empty variable counts as unset.
`;

const FIXED = `## Fixed bounds

Not configurable: the bodies of the waiting room's own routes are at most 64 KB (413 past it);
other bodies stream to the origin whatever their size. An address may try to sign in to the
console (\`POST /admin/session\`) 10 times a minute; past it, 429.
`;

/** The reference of every variable, section by section. */
export function configurationDoc(): string {
  const tables = Object.entries(SECTIONS).map(([key, section]) => {
    const rows = VARIABLES.filter(([, schema]) => schema.section === key).map(
      ([name, schema]) => `| \`${name}\` | ${schema.description} | ${accepted(schema)} | ${defaultOf(schema)} |`,
    );
    const intro = 'intro' in section ? [section.intro, ''] : [];
    return [`## ${section.title}`, '', ...intro, '| variable | meaning | accepts | default |', '| --- | --- | --- | --- |', ...rows, ''].join('\n');
  });
  const renamed = VARIABLES.flatMap(([name, schema]) => (schema.formerly ?? []).map((old) => `| \`${old}\` | \`${name}\` |`));
  const former = [
    '## Former names',
    '',
    'Still read when the current name is unset, with a notice at start; when both are set, the current one counts.',
    '',
    '| former name | now |',
    '| --- | --- |',
    ...renamed,
    '',
  ].join('\n');
  return [INTRO, ...tables, roomFields(), FIXED, former].join('\n');
}

/** A room's fields in `ROOMS`, each accepting and defaulting to what its variable does unless it says otherwise. */
function roomFields(): string {
  const rows = Object.entries(ROOM_FIELDS).map(([name, field]: [string, RoomFieldDeclaration]) => {
    const variable = field.variable === undefined ? undefined : (CONFIG_SCHEMA.properties[field.variable] as VariableSchema);
    const accepts = field.accepts ?? (variable ? accepted(variable) : 'text');
    const unset = field.unset ?? `\`${field.variable}\``;
    return `| \`${name}\` | ${field.description} | ${accepts} | ${unset} |`;
  });
  const intro =
    'Each room of `ROOMS` or `ROOMS_FILE` is a JSON object of these fields. One that stands in for a variable is checked as that variable; its default says what leaving it out means.';
  return ["## A room's fields", '', intro, '', '| field | meaning | accepts | default |', '| --- | --- | --- | --- |', ...rows, ''].join('\n');
}

function accepted(schema: VariableSchema): string {
  if (schema.accepts !== undefined) return schema.accepts;
  if (schema.enum !== undefined) return schema.enum.map((choice) => `\`${choice}\``).join(', ');
  if (schema.type === 'integer') return `whole number, ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'number') return `number, ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'boolean') return '`true` or `false`';
  if (schema.minLength !== undefined) return `${schema.minLength}+ characters`;
  return 'text';
}

function defaultOf(schema: VariableSchema): string {
  if (schema.default !== undefined) return `\`${String(schema.default)}\``;
  return schema.unset ?? 'unset';
}
