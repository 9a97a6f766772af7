/**
 * The fake REST API's route table (everything under /api/v10). Message, thread and interaction
 * routes live in their own modules; this one holds gateway discovery, users, the application,
 * slash-command registration and guild reads.
 */
import { ApplicationFlags, ApplicationCommandType } from 'discord.js';
import { ApiError, Errors, Router, noContent, ok } from './http';
import { channelPayload, guildPayload, memberPayload, rolePayload, userPayload } from './payloads';
import { registerInteractionRoutes } from './restInteractions';
import { registerMessageRoutes } from './restMessages';
import { registerThreadRoutes } from './restThreads';
import { type RequestContext, jsonBody, limitParam } from './restCommon';
import { compareSnowflakes } from './snowflake';
import type { RegisteredCommand } from './state';

export function buildRouter(): Router<RequestContext> {
  const r = new Router<RequestContext>();
  registerCoreRoutes(r);
  registerMessageRoutes(r);
  registerThreadRoutes(r);
  registerInteractionRoutes(r);
  return r;
}

function registerCoreRoutes(r: Router<RequestContext>): void {
  r.add('GET', '/gateway', (ctx) => ok({ url: ctx.deps.gatewayUrl() }), { auth: false });
  // The only call client.login() makes: its `url` is used as given (notes §2.1/2.2).
  // `shards: 1` is what Discord recommends below 1 000 guilds (sharding is required from 2 500).
  r.add('GET', '/gateway/bot', (ctx) =>
    ok({
      url: ctx.deps.gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: ctx.deps.maxConcurrency },
    }),
  );

  r.add('GET', '/users/@me', (ctx) => ok({ ...userPayload(ctx.deps.state.bot), verified: true, mfa_enabled: false, locale: 'en-US', email: null }));
  r.add('GET', '/users/@me/guilds', (ctx) => {
    const { state } = ctx.deps;
    const guilds = [...state.guilds.values()].filter((g) => state.member(g.id, state.bot.id));
    return ok(
      guilds.map((g) => ({
        id: g.id,
        name: g.name,
        icon: null,
        banner: null,
        owner: g.ownerId === state.bot.id,
        permissions: state.guildPermissions(g.id, state.bot.id).toString(),
        features: [],
      })),
    );
  });
  r.add('GET', '/users/:userId', (ctx, p) => {
    const user = ctx.deps.state.users.get(p.userId);
    if (!user) throw Errors.unknownUser();
    return ok(userPayload(user));
  });

  const application = (ctx: RequestContext) => {
    const { state } = ctx.deps;
    return ok({
      id: state.applicationId,
      name: state.bot.username,
      icon: null,
      description: '',
      summary: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: 'fake-verify-key',
      // Privileged intents switched on in the "portal" show up here (doctor reads them).
      flags: ctx.deps.applicationFlags(),
      owner: userPayload(state.bot),
      team: null,
      bot: userPayload(state.bot),
      approximate_guild_count: state.guilds.size,
      install_params: { scopes: ['bot', 'applications.commands'], permissions: '0' },
      tags: [],
      redirect_uris: [],
      interactions_endpoint_url: null,
    });
  };
  r.add('GET', '/applications/@me', application);
  r.add('GET', '/oauth2/applications/@me', application);

  for (const base of ['/applications/:applicationId/commands', '/applications/:applicationId/guilds/:guildId/commands']) {
    r.add('GET', base, (ctx, p) => ok(commandsIn(ctx, p).map(commandPayload)));
    r.add('PUT', base, (ctx, p) => ok(bulkOverwrite(ctx, p)));
    r.add('POST', base, (ctx, p) => upsertCommand(ctx, p));
    r.add('GET', `${base}/:commandId`, (ctx, p) => ok(commandPayload(commandOr404(ctx, p))));
    r.add('DELETE', `${base}/:commandId`, (ctx, p) => {
      ctx.deps.state.commands.delete(commandOr404(ctx, p).id);
      return noContent();
    });
  }

  r.add('GET', '/guilds/:guildId', (ctx, p) => {
    const { state } = ctx.deps;
    guildOr404(ctx, p.guildId);
    const counts = ctx.query.get('with_counts') === 'true';
    const members = state.membersOf(p.guildId).length;
    return ok({
      ...guildPayload(state, p.guildId),
      ...(counts ? { approximate_member_count: members, approximate_presence_count: 0 } : {}),
    });
  });
  r.add('GET', '/guilds/:guildId/channels', (ctx, p) => {
    guildOr404(ctx, p.guildId);
    const { state } = ctx.deps;
    return ok(state.channelsOf(p.guildId, { threads: false }).map((c) => channelPayload(state, c)));
  });
  r.add('GET', '/guilds/:guildId/roles', (ctx, p) => {
    guildOr404(ctx, p.guildId);
    return ok(ctx.deps.state.rolesOf(p.guildId).map(rolePayload));
  });
  r.add('GET', '/guilds/:guildId/members/:userId', (ctx, p) => {
    guildOr404(ctx, p.guildId);
    const member = ctx.deps.state.member(p.guildId, p.userId);
    if (!member) throw Errors.unknownMember();
    return ok(memberPayload(ctx.deps.state, member, { withUser: true }));
  });
  r.add('GET', '/guilds/:guildId/members', (ctx, p) => {
    guildOr404(ctx, p.guildId);
    // Listing members is gated by the Server Members privileged intent in the portal.
    if ((ctx.deps.applicationFlags() & ApplicationFlags.GatewayGuildMembers) === 0) throw Errors.missingAccess();
    const { state } = ctx.deps;
    const after = ctx.query.get('after') ?? '0';
    const members = state
      .membersOf(p.guildId)
      .filter((m) => compareSnowflakes(m.userId, after) > 0)
      .sort((a, b) => compareSnowflakes(a.userId, b.userId))
      .slice(0, limitParam(ctx, 1, 1000));
    return ok(members.map((m) => memberPayload(state, m, { withUser: true })));
  });
}

function guildOr404(ctx: RequestContext, guildId: string): void {
  const { state } = ctx.deps;
  if (!state.guilds.has(guildId)) throw Errors.unknownGuild();
  if (!state.member(guildId, state.bot.id)) throw Errors.missingAccess();
}

// ---- application commands -------------------------------------------------------------------

interface CommandJson {
  name?: string;
  description?: string;
  type?: number;
  options?: CommandJson[];
  [key: string]: unknown;
}

function scope(ctx: RequestContext, p: Record<string, string>): string | null {
  // A wrong application id is refused like Discord does for apps you do not own.
  if (p.applicationId !== ctx.deps.state.applicationId) throw Errors.missingAccess();
  if (p.guildId) guildOr404(ctx, p.guildId);
  return p.guildId ?? null;
}

function commandsIn(ctx: RequestContext, p: Record<string, string>): RegisteredCommand[] {
  const guildId = scope(ctx, p);
  return [...ctx.deps.state.commands.values()].filter((c) => c.guildId === guildId);
}

function commandOr404(ctx: RequestContext, p: Record<string, string>): RegisteredCommand {
  const c = commandsIn(ctx, p).find((x) => x.id === p.commandId);
  if (!c) throw Errors.unknownCommand();
  return c;
}

export function commandPayload(c: RegisteredCommand): Record<string, unknown> {
  return {
    ...c.raw,
    id: c.id,
    application_id: c.applicationId,
    ...(c.guildId ? { guild_id: c.guildId } : {}),
    name: c.name,
    description: (c.raw.description as string | undefined) ?? '',
    type: c.type,
    options: c.raw.options ?? [],
    default_member_permissions: c.raw.default_member_permissions ?? null,
    nsfw: false,
    version: c.version,
  };
}

/** Discord's registration rules that bite in practice: lowercase names, description lengths, 25 options. */
function validateCommand(def: CommandJson, path: string): void {
  const fail = (field: string, message: string) => {
    throw Errors.invalidForm(`${path}.${field}`, 'APPLICATION_COMMAND_INVALID', message);
  };
  const chatInput = (def.type ?? ApplicationCommandType.ChatInput) === ApplicationCommandType.ChatInput;
  const name = def.name ?? '';
  if (!/^[-_'\p{L}\p{N}]{1,32}$/u.test(name) && chatInput) fail('name', 'Command name is invalid (1-32 chars, no spaces).');
  if (chatInput && name !== name.toLowerCase()) fail('name', 'Command name must be lowercase.');
  const description = def.description ?? '';
  if (chatInput && (description.length < 1 || description.length > 100)) fail('description', 'Must be between 1 and 100 in length.');
  const options = def.options ?? [];
  if (options.length > 25) fail('options', 'Must be 25 or fewer in length.');
  options.forEach((o, i) => validateCommand({ ...o, type: ApplicationCommandType.ChatInput }, `${path}.options.${i}`));
}

function bulkOverwrite(ctx: RequestContext, p: Record<string, string>) {
  const { state } = ctx.deps;
  const guildId = scope(ctx, p);
  const defs = jsonBody<CommandJson[]>(ctx);
  if (!Array.isArray(defs)) throw Errors.invalidForm('_', 'BASE_TYPE_ARRAY', 'Must be an array.');
  if (defs.length > 100) throw Errors.invalidForm('_', 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  defs.forEach((d, i) => validateCommand(d, String(i)));
  const names = defs.map((d) => `${d.type ?? 1}:${d.name}`);
  if (new Set(names).size !== names.length) {
    throw new ApiError(400, 50035, 'Invalid Form Body', {
      _errors: [{ code: 'APPLICATION_COMMANDS_DUPLICATE_NAME', message: 'Application command names must be unique' }],
    });
  }
  const existing = [...state.commands.values()].filter((c) => c.guildId === guildId);
  for (const c of existing) state.commands.delete(c.id);
  const saved = defs.map((def) => {
    const type = def.type ?? ApplicationCommandType.ChatInput;
    // Re-registering a name keeps its id, as on Discord.
    const prior = existing.find((c) => c.name === def.name && c.type === type);
    return store(ctx, guildId, def, type, prior?.id);
  });
  return saved.map(commandPayload);
}

function upsertCommand(ctx: RequestContext, p: Record<string, string>) {
  const { state } = ctx.deps;
  const guildId = scope(ctx, p);
  const def = jsonBody<CommandJson>(ctx);
  validateCommand(def, '_');
  const type = def.type ?? ApplicationCommandType.ChatInput;
  const prior = [...state.commands.values()].find((c) => c.guildId === guildId && c.name === def.name && c.type === type);
  const saved = store(ctx, guildId, def, type, prior?.id);
  return ok(commandPayload(saved), prior ? 200 : 201);
}

function store(ctx: RequestContext, guildId: string | null, def: CommandJson, type: number, id?: string): RegisteredCommand {
  const { state } = ctx.deps;
  const cmd: RegisteredCommand = {
    id: id ?? state.ids.next(),
    applicationId: state.applicationId,
    guildId,
    name: def.name ?? '',
    type,
    raw: { ...def },
    version: state.ids.next(),
  };
  state.commands.set(cmd.id, cmd);
  return cmd;
}
