/**
 * A request the server cannot answer as asked (an unknown channel, a channel this server may not
 * show, a context.json that does not parse): one line saying what is wrong and what to do, sent to
 * the client as a tool error result. Anything else thrown by a tool is a bug and is logged.
 */
export class McpRequestError extends Error {
  override name = 'McpRequestError';
}
