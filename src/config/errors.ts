/** A problem in the configuration or environment a person can fix; printed as one line, no stack. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
