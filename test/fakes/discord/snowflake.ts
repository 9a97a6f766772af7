/**
 * Snowflake ids for the fake Discord, generated in time order like Discord's.
 *
 * Why time-ordered: discord.js derives `createdTimestamp` from the id, history pagination
 * (`before`/`after`/`around`) compares ids, and code under test sorts messages by id. A fake
 * handing out random ids would hide ordering bugs.
 *
 * One generator per fake (no module-level state), so parallel fakes stay independent.
 */

/** Discord's epoch: the first second of 2015, in ms. */
export const DISCORD_EPOCH = 1420070400000;

export class SnowflakeGenerator {
  private lastMs = 0;
  // The low 22 bits (worker, process, increment on real Discord) are used as one counter here:
  // ids stay unique even when a test backdates many messages to the same millisecond.
  private counter = 0;

  /** A new id for "now", strictly greater than every id this generator made for "now" before. */
  next(): string {
    const ms = Math.max(Date.now(), this.lastMs);
    this.lastMs = ms;
    return this.at(ms);
  }

  /**
   * A new id for "now" or a few ms later whose guild would land on `shardId` of `shardCount`
   * (Discord routes a guild by `(id >> 22) % count`, i.e. by the id's millisecond), so a test can
   * put guilds on chosen shards. Later ids stay greater: the generator's clock moves forward with it.
   */
  nextOnShard(shardId: number, shardCount: number): string {
    if (!(shardId >= 0 && shardId < shardCount)) throw new Error(`fake-discord: no shard ${shardId} of ${shardCount}`);
    let ms = Math.max(Date.now(), this.lastMs);
    while ((ms - DISCORD_EPOCH) % shardCount !== shardId) ms++;
    this.lastMs = ms;
    return this.at(ms);
  }

  /** A new id carrying the given time (used to seed backdated history). */
  at(ms: number): string {
    this.counter = (this.counter + 1) & 0x3fffff;
    return ((BigInt(ms - DISCORD_EPOCH) << 22n) | BigInt(this.counter)).toString();
  }
}

/** Milliseconds since the Unix epoch encoded in a snowflake. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}

/** Numeric comparison of snowflakes (they are decimal strings of varying length). */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The shard Discord routes a guild to: `(guild_id >> 22) % shard_count`. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
