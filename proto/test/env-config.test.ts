import { describe, expect, it } from 'vitest';
import { defineEnv, integer, oneOf, renderEnvTable, required, text, withDefault } from '../src/runtime/index.js';

const SCHEMA = defineEnv(
  {
    PORT: integer({ minimum: 1, maximum: 65535, default: 8080, description: 'HTTP port.' }),
    LIMIT: integer({ minimum: 1, maximum: 10, description: 'Optional limit.' }),
    MODE: oneOf(['a', 'b'], { default: 'a', description: 'Mode.' }),
    TOKEN: text({ pattern: '^[\\x21-\\x7E]+$', hint: 'must be visible ASCII', description: 'Secret token.' }),
    URL: text({ check: (v) => URL.canParse(v), hint: 'must be a URL', requires: ['KEY'], description: 'Endpoint.' }),
    KEY: text({ description: 'Key.' }),
    DB: required(text({ pattern: '^postgres://', hint: 'must be a postgres:// URL', description: 'Database.' }), 'set it'),
  },
  (v) => [v.LIMIT !== undefined && v.LIMIT > v.PORT ? 'LIMIT must not exceed PORT' : undefined],
);

describe('defineEnv', () => {
  it('coerces, applies defaults, trims, treats empty as unset and freezes', () => {
    const values = SCHEMA.load({ PORT: ' 9090 ', LIMIT: '', MODE: 'b', DB: 'postgres://x', OTHER: 'ignored' });
    expect(values).toEqual({ PORT: 9090, MODE: 'b', DB: 'postgres://x' });
    expect(Object.isFrozen(values)).toBe(true);
  });

  it('names every bad variable in one message and never echoes a value', () => {
    let message = '';
    try {
      SCHEMA.load({ PORT: '0', LIMIT: '1.5', MODE: 'c', TOKEN: 'has secret space', URL: 'not a url secret' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      'invalid configuration: PORT must be an integer from 1 to 65535; LIMIT must be an integer from 1 to 10; MODE must be one of a, b; ' +
        'TOKEN must be visible ASCII; KEY is required when URL is set; URL must be a URL; DB is required (set it)',
    );
    expect(message).not.toContain('secret');
  });

  it('asks the cross-variable checks only once every variable is valid alone', () => {
    expect(() => SCHEMA.load({ PORT: '5', LIMIT: '9', DB: 'postgres://x' })).toThrow('invalid configuration: LIMIT must not exceed PORT');
  });
});

describe('renderEnvTable', () => {
  const shared = integer({ minimum: 0, maximum: 9, default: 1, description: 'Shared.' });
  it('documents each variable once, with every default and who reads it', () => {
    const table = renderEnvTable([
      { label: 'one', vars: { SHARED: shared, OWN: text({ defaultText: '`{SHARED}`', description: 'Own.' }) } },
      { label: 'two', vars: { SHARED: withDefault(shared, 2) } },
      { label: 'launcher', vars: { SHARED: withDefault(shared, 3), ONLY: text({ description: 'Launcher only.' }) }, launcher: true },
    ]);
    expect(table.split('\n')).toEqual([
      '| Variable | Default | Used by | Meaning |',
      '|---|---|---|---|',
      '| `SHARED` | `1` one, `2` two (`3` under `npm start`) | all | Shared. |',
      '| `OWN` | `{SHARED}` | one | Own. |',
      '| `ONLY` | unset | launcher (`npm start`) | Launcher only. |',
    ]);
  });

  it('refuses one variable described two ways', () => {
    const other = integer({ minimum: 0, maximum: 9, default: 1, description: 'Something else.' });
    expect(() => renderEnvTable([{ label: 'one', vars: { X: shared } }, { label: 'two', vars: { X: other } }])).toThrow('X: one and two describe it differently');
  });
});
