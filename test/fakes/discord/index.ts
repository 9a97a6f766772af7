/** The project's fake Discord (REST + gateway on 127.0.0.1) for end-to-end tests with the real discord.js Client. */
export { FakeDiscord, type FakeDiscordOptions, type PrivilegedIntents } from './fakeDiscord';
export { FakeInteraction, type SlashOptionValue } from './interactions';
export { pingsNobody, parseMentions } from './mentions';
export { type PermissionName, type PermissionInput, toBits, permissionNames } from './permissions';
export type { RequestRecord, RequestMatcher } from './server';
export type { UploadInput } from './actions';
export type { FakeLimits } from './restCommon';
export { snowflakeTime, compareSnowflakes } from './snowflake';
export type {
  FakeAttachment,
  FakeChannel,
  FakeGuild,
  FakeMember,
  FakeMessage,
  FakeRole,
  FakeUser,
  ForumTag,
  Pings,
  AllowedMentions,
  PinRecord,
  RegisteredCommand,
  TypingRecord,
} from './state';
