import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config/errors';
import { loadDotEnv, loadSettings, PROJECT_ROOT } from '../../src/config/load';
import { defaultIO } from '../../src/cli/main';
import { ConfigFileSchema } from '../../src/config/schema';
import { makeTmpDir } from '../helpers/tmp';

let tmp: ReturnType<typeof makeTmpDir>;
beforeEach(() => {
  tmp = makeTmpDir();
});
afterEach(() => tmp.cleanup());

const TOKEN = 'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs';

describe('configuration', () => {
  it('with no config file and MINUTES_CONFIG unset, defaults apply: no allowlists', () => {
    const s = loadSettings({ env: {}, cwd: tmp.dir, needs: [] });
    expect(s.configFile).toBeNull();
    expect(s.dataDir).toBe(path.join(tmp.dir, 'channels'));
    expect(s.config.discord.guilds).toEqual([]);
    expect(s.config.discord.channels).toEqual([]);
  });

  it('a file named by MINUTES_CONFIG that is missing is an error naming the key', () => {
    expect(() => loadSettings({ env: { MINUTES_CONFIG: 'nope.json' }, cwd: tmp.dir, needs: [] })).toThrow(
      /MINUTES_CONFIG names nope\.json, which does not exist/,
    );
  });

  it('a wrong value in the file names the field and the fix', () => {
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), JSON.stringify({ discord: { channels: [123] } }));
    expect(() => loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] })).toThrow(
      /discord\.channels\.0: must be a Discord id \(digits only, as a string/,
    );
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), JSON.stringify({ limts: {} }));
    expect(() => loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] })).toThrow(/limts/);
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), '{ not json');
    expect(() => loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] })).toThrow(/not valid JSON/);
  });

  it('LOG_LEVEL and LOG_FORMAT: checked, and the environment wins over the file', () => {
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), JSON.stringify({ log: { level: 'info', format: 'json' } }));
    const fromFile = loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] });
    expect(fromFile.log).toEqual({ level: 'info', format: 'json' });
    const fromEnv = loadSettings({ env: { MINUTES_CONFIG: 'c.json', LOG_LEVEL: 'Debug', LOG_FORMAT: 'pretty' }, cwd: tmp.dir, needs: [] });
    expect(fromEnv.log).toEqual({ level: 'debug', format: 'pretty' });
    expect(loadSettings({ env: {}, cwd: tmp.dir, needs: [] }).log).toEqual({ level: undefined, format: undefined });
    expect(() => loadSettings({ env: { LOG_LEVEL: 'loud' }, cwd: tmp.dir, needs: [] })).toThrow(
      /^LOG_LEVEL is "loud": use one of fatal, error, warn, info, debug, trace, silent/,
    );
    expect(() => loadSettings({ env: { LOG_FORMAT: 'xml' }, cwd: tmp.dir, needs: [] })).toThrow(/^LOG_FORMAT is "xml": use json or pretty/);
  });

  it('the committed example is valid', () => {
    const example = JSON.parse(fs.readFileSync(path.join(__dirname, '../../minutes.config.example.json'), 'utf8'));
    expect(ConfigFileSchema.safeParse(example).success).toBe(true);
  });

  it('every limits.* field is in docs/configuration.md with its meaning, and 0 (accepted for the two rate limits) says it means no limit', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
    const limits = ConfigFileSchema.shape.limits.unwrap().shape;
    for (const [field, schema] of Object.entries(limits)) {
      const line = readme.split('\n').find((l) => l.includes(`\`limits.${field}\``));
      expect({ field, documented: Boolean(line) }).toEqual({ field, documented: true });
      const zeroAccepted = schema.safeParse(0).success;
      if (zeroAccepted && field !== 'maxRetries') expect({ field, line }).toEqual({ field, line: expect.stringMatching(/`0` means no limit/) });
    }
    expect(ConfigFileSchema.parse({ limits: { requestsPerMinute: 0 } }).limits.requestsPerMinute).toBe(0);
  });

  it('validates per command: recall needs nothing, chat a provider, start a token and a provider', () => {
    expect(() => loadSettings({ env: {}, cwd: tmp.dir, needs: [] })).not.toThrow();
    expect(() => loadSettings({ env: {}, cwd: tmp.dir, needs: ['provider'] })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => loadSettings({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, cwd: tmp.dir, needs: ['provider'] })).not.toThrow();
    expect(() => loadSettings({ env: { ANTHROPIC_API_KEY: 'k' }, cwd: tmp.dir, needs: ['discord', 'provider'] })).toThrow(/^DISCORD_TOKEN is not set/);
    expect(() => loadSettings({ env: { ANTHROPIC_API_KEY: 'k', DISCORD_TOKEN: 'Bot abc.def' }, cwd: tmp.dir, needs: ['discord', 'provider'] })).toThrow(
      /does not look like a bot token/,
    );
    const s = loadSettings({
      env: { ANTHROPIC_API_KEY: 'k', DISCORD_TOKEN: TOKEN, DISCORD_API_URL: 'http://127.0.0.1:9/api/' },
      cwd: tmp.dir,
      needs: ['discord', 'provider'],
    });
    expect(s.discord).toEqual({ token: TOKEN, apiUrl: 'http://127.0.0.1:9/api' });
  });

  it('errors are one line and never echo a secret', () => {
    try {
      loadSettings({ env: { MINUTES_CONFIG: 'x.json', ANTHROPIC_API_KEY: 'sk-ant-secret' }, cwd: tmp.dir, needs: ['provider'] });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).not.toContain('\n');
      expect((err as Error).message).not.toContain('sk-ant-secret');
    }
  });

  it('a bad URL is named', () => {
    expect(() => loadSettings({ env: { OPENAI_BASE_URL: 'localhost:11434' }, cwd: tmp.dir, needs: [] })).toThrow(/OPENAI_BASE_URL is not a valid URL/);
  });

  it('.env fills unset variables only, and a missing .env is fine', () => {
    const env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'from-env' };
    loadDotEnv(tmp.dir, env);
    expect(env).toEqual({ ANTHROPIC_API_KEY: 'from-env' });
    fs.writeFileSync(path.join(tmp.dir, '.env'), 'ANTHROPIC_API_KEY=from-file\nMINUTES_DATA_DIR=./data\n');
    loadDotEnv(tmp.dir, env);
    expect(env).toEqual({ ANTHROPIC_API_KEY: 'from-env', MINUTES_DATA_DIR: './data' });
  });
});

describe('recall by meaning: recall.semantic', () => {
  const withConfig = (config: unknown, env: NodeJS.ProcessEnv = {}) => {
    fs.writeFileSync(path.join(tmp.dir, 'minutes.config.json'), JSON.stringify(config));
    return loadSettings({ env, cwd: tmp.dir, needs: [] }).semantic;
  };

  it('defaults to the packaged model, with the vector cache inside the data root (MINUTES_VECTOR_CACHE moves it)', () => {
    const s = loadSettings({ env: {}, cwd: tmp.dir, needs: [] }).semantic;
    expect(s).toEqual({ mode: 'local', cacheDir: path.join(tmp.dir, 'channels', '.cache', 'vectors') });
    expect(loadSettings({ env: { MINUTES_VECTOR_CACHE: 'v' }, cwd: tmp.dir, needs: [] }).semantic.cacheDir).toBe(path.join(tmp.dir, 'v'));
    expect(withConfig({ recall: { semantic: 'off' } }).mode).toBe('off');
  });

  it('"api" defaults to the chat provider\'s OpenAI-compatible server and key, and names what is missing', () => {
    expect(withConfig({ recall: { semantic: 'api' } }, { OPENAI_API_KEY: 'sk-x' }).api).toEqual({
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-x',
    });
    expect(() => withConfig({ recall: { semantic: 'api' } })).toThrow(/no embeddings server is set: put recall.api.baseUrl/);
    expect(() => withConfig({ recall: { semantic: 'api' } }, { OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toThrow(
      /name its embedding model in recall.api.model/,
    );
    expect(withConfig({ recall: { semantic: 'api', api: { model: 'nomic-embed-text' } } }, { OPENAI_BASE_URL: 'http://localhost:11434/v1/' }).api).toEqual({
      baseURL: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
      apiKey: undefined,
    });
    // The chat key is never sent to another server; that one gets MINUTES_EMBEDDINGS_KEY.
    const other = { recall: { semantic: 'api', api: { baseUrl: 'http://gpu-box:8000/v1', model: 'bge' } } };
    expect(withConfig(other, { OPENAI_API_KEY: 'sk-chat' }).api?.apiKey).toBeUndefined();
    expect(withConfig(other, { OPENAI_API_KEY: 'sk-chat', MINUTES_EMBEDDINGS_KEY: 'emb' }).api?.apiKey).toBe('emb');
    expect(() => withConfig({ recall: { semantic: 'yes' } })).toThrow(/recall\.semantic: must be "local", "api" or "off"/);
  });
});

describe('files a new user made', () => {
  it('a config file saved with a UTF-8 BOM (as some editors do) is read', () => {
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), '\uFEFF' + JSON.stringify({ recall: { maxItems: 5 } }));
    const s = loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] });
    expect(s.config.recall.maxItems).toBe(5);
  });

  it('a config error never carries an invisible character', () => {
    fs.writeFileSync(path.join(tmp.dir, 'c.json'), '\uFEFF\u200b{ not json');
    let msg = '';
    try {
      loadSettings({ env: { MINUTES_CONFIG: 'c.json' }, cwd: tmp.dir, needs: [] });
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toMatch(/not valid JSON/);
    expect(msg).not.toMatch(/[\uFEFF\u200b\u0000-\u001f]/);
  });

  it('.env is read from the project root as well as the working directory (the working directory wins)', () => {
    const root = path.join(tmp.dir, 'project');
    const cwd = path.join(root, 'some', 'subfolder');
    fs.mkdirSync(cwd, { recursive: true });
    fs.writeFileSync(path.join(root, '.env'), 'ANTHROPIC_API_KEY=from-root\nDISCORD_TOKEN=root-token\n');
    fs.writeFileSync(path.join(cwd, '.env'), 'ANTHROPIC_API_KEY=from-cwd\n');
    const env: NodeJS.ProcessEnv = {};
    loadDotEnv(cwd, env, root);
    expect(env).toEqual({ ANTHROPIC_API_KEY: 'from-cwd', DISCORD_TOKEN: 'root-token' });
  });

  it('the command line reads the project root this package lives in', () => {
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'package.json'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).name).toBe('minutes');
    expect(defaultIO().projectRoot).toBe(PROJECT_ROOT);
  });
});

describe('ANTHROPIC_BASE_URL with or without /v1', () => {
  it.each([
    ['http://proxy.internal:8080', 'http://proxy.internal:8080'],
    ['http://proxy.internal:8080/v1', 'http://proxy.internal:8080'],
    ['http://proxy.internal:8080/anthropic/v1/', 'http://proxy.internal:8080/anthropic'],
  ])('%s reaches the SDK as %s (it appends /v1/messages itself)', (given, used) => {
    const s = loadSettings({ env: { ANTHROPIC_BASE_URL: given, ANTHROPIC_API_KEY: 'k' }, cwd: tmp.dir, needs: ['provider'] });
    expect(s.anthropic.baseURL).toBe(used);
  });
});
