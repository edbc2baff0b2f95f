// Kept for existing imports; the command modules live in ./commands/.
export { type CommandArgs, commandModule, guardCommand, shellModule } from './commands/command.js';
