import { EXIT } from '../../errors/index.js';
import { specJsonSchema } from '../../spec/index.js';
import { parseCommandArgs } from '../options.js';
import { out } from '../output.js';

export const schemaHelp = `Usage: kubemix schema

Print the JSON Schema of cluster specs, for editors (e.g. yaml-language-server:
# yaml-language-server: $schema=./kubemix.schema.json).`;

export async function schemaCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('schema', argv, {});
  if (values.help) {
    out(schemaHelp);
    return EXIT.ok;
  }
  out(JSON.stringify(specJsonSchema(), null, 2));
  return EXIT.ok;
}
