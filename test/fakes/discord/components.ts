/**
 * Message components and forms: the buttons a bot puts on its messages, the forms (modals) it
 * shows, and what a person filling one in sends back.
 *
 * Discord refuses malformed rows and forms with 400 code 50035, so the fake does too (a bot that
 * passes here would otherwise fail in production on the first click); and what a person cannot
 * do in the client (click a button the message lacks or one that is disabled, submit a form the
 * bot never showed, leave a required input empty) throws in the test instead of reaching the bot.
 */
import { Errors } from './http';

type Json = Record<string, unknown>;

/** ComponentType numbers used here. */
const ACTION_ROW = 1;
const BUTTON = 2;
const TEXT_INPUT = 4;
const TEXT_DISPLAY = 10;
const LABEL = 18;
/** ButtonStyle.Link: a URL, no custom_id, no interaction. */
const LINK = 5;

export interface ButtonJson {
  type: 2;
  style: number;
  label?: string;
  custom_id?: string;
  url?: string;
  disabled?: boolean;
}

/** One text input of a form as the bot showed it (`value` is the prefilled text). */
export interface ModalInput {
  custom_id: string;
  label: string | undefined;
  /** TextInputStyle: 1 short, 2 paragraph. */
  style: number;
  value: string | undefined;
  required: boolean;
}

/** A form (modal) the bot showed in answer to an interaction (callback type 9). */
export interface FakeModal {
  custom_id: string;
  title: string;
  inputs: ModalInput[];
}

const asObjects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

/** Every button on a message, row by row. */
export function buttonsIn(components: unknown[]): ButtonJson[] {
  return asObjects(components)
    .flatMap((row) => asObjects(row.components))
    .filter((c): c is Json & ButtonJson => c.type === BUTTON);
}

/** Discord's rules for a message's button rows: 5 rows, 5 buttons a row, unique custom ids. */
export function validateComponents(components: unknown[] | undefined): void {
  const rows = asObjects(components ?? []);
  const fail = (field: string, code: string, message: string) => {
    throw Errors.invalidForm(`components.${field}`, code, message);
  };
  if (rows.length > 5) fail('_', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  const seen = new Set<string>();
  rows.forEach((row, r) => {
    if (row.type !== ACTION_ROW) return; // newer layout components: kept as sent
    const children = asObjects(row.components);
    if (children.length < 1 || children.length > 5) fail(`${r}.components`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
    children.forEach((c, i) => {
      if (c.type !== BUTTON) return;
      const at = `${r}.components.${i}`;
      if (typeof c.label === 'string' && c.label.length > 80) fail(`${at}.label`, 'BASE_TYPE_MAX_LENGTH', 'Must be 80 or fewer in length.');
      if (c.style === LINK) {
        if (typeof c.url !== 'string') fail(`${at}.url`, 'BASE_TYPE_REQUIRED', 'This field is required');
        return;
      }
      const id = c.custom_id;
      if (typeof id !== 'string' || id.length < 1 || id.length > 100) fail(`${at}.custom_id`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
      if (seen.has(id as string)) fail(`${at}.custom_id`, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
      seen.add(id as string);
    });
  });
}

/** The button a person can click, or an Error saying why they cannot. */
export function clickableButton(components: unknown[], messageId: string, customId: string): ButtonJson {
  const button = buttonsIn(components).find((b) => b.custom_id === customId);
  if (!button) {
    const ids = buttonsIn(components).map((b) => b.custom_id);
    throw new Error(`fake-discord: message ${messageId} has no button "${customId}" (it has: ${ids.join(', ') || 'none'})`);
  }
  if (button.disabled) throw new Error(`fake-discord: button "${customId}" on message ${messageId} is disabled`);
  return button;
}

/**
 * Reads and checks a form from a type-9 callback body. Text inputs come in action rows (the
 * classic layout) or in label components (type 18, the newer one); both are accepted.
 */
export function modalFromCallback(data: Json | undefined): FakeModal {
  const fail = (field: string, message: string) => {
    throw Errors.invalidForm(`data.${field}`, 'BASE_TYPE_BAD_LENGTH', message);
  };
  const customId = data?.custom_id;
  const title = data?.title;
  if (typeof customId !== 'string' || customId.length < 1 || customId.length > 100) fail('custom_id', 'Must be between 1 and 100 in length.');
  if (typeof title !== 'string' || title.length < 1 || title.length > 45) fail('title', 'Must be between 1 and 45 in length.');
  const top = asObjects(data?.components);
  if (top.length < 1 || top.length > 5) fail('components', 'Must be between 1 and 5 in length.');
  const inputs = top.flatMap((c): ModalInput[] => {
    const pairs: Array<[Json, unknown]> =
      c.type === LABEL ? [[asObjects([c.component])[0] ?? {}, c.label]] : asObjects(c.components).map((x): [Json, unknown] => [x, x.label]);
    return pairs
      .filter(([input]) => input.type === TEXT_INPUT)
      .map(([input, label]) => ({
        custom_id: String(input.custom_id ?? ''),
        label: typeof label === 'string' ? label : undefined,
        style: Number(input.style ?? 1),
        value: typeof input.value === 'string' ? input.value : undefined,
        required: input.required !== false,
      }));
  });
  inputs.forEach((input, i) => {
    if (!input.custom_id) fail(`components.${i}.custom_id`, 'Must be between 1 and 100 in length.');
    if (input.style !== 1 && input.style !== 2) fail(`components.${i}.style`, 'Value must be one of (1, 2).');
  });
  return { custom_id: customId as string, title: title as string, inputs };
}

/**
 * The `data.components` of a MODAL_SUBMIT for the form the bot showed: the same layout (rows or
 * labels), each input's value the one typed, or its prefilled text when the person left it alone.
 */
export function modalSubmitComponents(shown: Json, values: Record<string, string>): Json[] {
  const modal = modalFromCallback(shown);
  const known = new Set(modal.inputs.map((i) => i.custom_id));
  for (const key of Object.keys(values)) {
    if (!known.has(key)) throw new Error(`fake-discord: form "${modal.custom_id}" has no input "${key}" (it has: ${[...known].join(', ')})`);
  }
  const valueOf = (input: Json): Json => {
    const id = String(input.custom_id);
    const value = values[id] ?? (typeof input.value === 'string' ? input.value : '');
    if (input.required !== false && value.trim() === '') throw new Error(`fake-discord: input "${id}" of form "${modal.custom_id}" is required`);
    const min = typeof input.min_length === 'number' ? input.min_length : 0;
    const max = typeof input.max_length === 'number' ? input.max_length : 4000;
    if (value.length > max || (value.length > 0 && value.length < min)) {
      throw new Error(`fake-discord: input "${id}" takes ${min}-${max} characters, got ${value.length}`);
    }
    return { type: TEXT_INPUT, custom_id: id, value };
  };
  return asObjects(shown.components).map((c): Json => {
    if (c.type === TEXT_DISPLAY) return { type: TEXT_DISPLAY, ...(c.id !== undefined ? { id: c.id } : {}) };
    if (c.type === LABEL) {
      const input = asObjects([c.component])[0] ?? {};
      if (input.type !== TEXT_INPUT)
        throw new Error(`fake-discord: the fake fills in text inputs only (form "${modal.custom_id}" has a type ${String(input.type)})`);
      return { type: LABEL, component: valueOf(input) };
    }
    return {
      type: ACTION_ROW,
      components: asObjects(c.components)
        .filter((x) => x.type === TEXT_INPUT)
        .map(valueOf),
    };
  });
}
