import { ApplicationCommandType, type RESTPostAPIContextMenuApplicationCommandsJSONBody } from 'discord.js';

/**
 * The message context-menu commands (a message's Apps menu): their names are part of the contract
 * (issue 43), so they are written once, here. Registered with the slash commands; any member the
 * bot answers may run them (the Secretary's handlers check the channel's rules).
 */
export const MESSAGE_COMMANDS = {
  /** A form prefilled with the message's text, filed as a decision whose provenance is that message. */
  record: 'Record as decision',
  /** The message's text as a MEMORY.md entry, with the message as its provenance. */
  remember: 'Remember this',
} as const;

export function messageCommandDefinitions(): RESTPostAPIContextMenuApplicationCommandsJSONBody[] {
  return Object.values(MESSAGE_COMMANDS).map((name) => ({ name, type: ApplicationCommandType.Message }));
}
