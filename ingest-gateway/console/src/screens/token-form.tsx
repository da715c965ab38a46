import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { Field, TextInput } from '../components/field.js';
import { inputOf, type FormInput, type TokenFormValues } from '../token-form-model.js';

interface TokenFormProps {
  initial: TokenFormValues;
  submitLabel: 'Create token' | 'Save';
  title: string;
  /** Sends the form; an ApiError it throws is shown next to the field it names. */
  onSubmit: (values: TokenFormValues) => Promise<void>;
  onCancel: () => void;
}

const KINDS = [
  ['devices', 'May create devices'],
  ['objects', 'May create objects'],
  ['event_types', 'May create event types'],
] as const;

/** The token's name, policy and expiry: one form for creating and editing. */
export function TokenForm({ initial, submitLabel, title, onSubmit, onCancel }: TokenFormProps) {
  const [values, setValues] = useState(initial);
  const [refusal, setRefusal] = useState<{ input: FormInput | undefined; message: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof TokenFormValues>(key: K, value: TokenFormValues[K]) => setValues((before) => ({ ...before, [key]: value }));
  const errorOf = (input: FormInput) => (refusal?.input === input ? refusal.message : undefined);
  const text = (input: Exclude<FormInput, 'mayCreate'>, label: string, hint?: string, type: 'text' | 'datetime-local' = 'text') => (
    <Field
      id={`token-${input}`}
      label={label}
      hint={hint}
      error={errorOf(input)}
      control={(props) => <TextInput {...props} type={type} value={values[input]} onValue={(v) => set(input, v)} />}
    />
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await onSubmit(values);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      setRefusal({ input: err instanceof ApiError ? inputOf(err.field) : undefined, message });
      setBusy(false);
    }
  };

  return (
    <form class="token-form" onSubmit={submit} aria-labelledby="token-form-title">
      <h2 id="token-form-title">{title}</h2>
      {refusal && refusal.input === undefined && (
        <p role="alert" class="error">
          {refusal.message}
        </p>
      )}
      {text('name', 'Name', '1 to 100 characters, unique among live tokens.')}
      <fieldset aria-describedby={errorOf('mayCreate') ? 'token-mayCreate-error' : undefined}>
        <legend>What it may create</legend>
        {KINDS.map(([kind, label]) => (
          <label class="check" key={kind}>
            <input type="checkbox" checked={values.mayCreate[kind]} onChange={(e) => set('mayCreate', { ...values.mayCreate, [kind]: e.currentTarget.checked })} />
            {label}
          </label>
        ))}
        {errorOf('mayCreate') && (
          <span class="field-error" id="token-mayCreate-error">
            {errorOf('mayCreate')}
          </span>
        )}
      </fieldset>
      <Field
        id="token-domains"
        label="Domains"
        hint="Object domain patterns, one per line (acme.camera.video, acme.camera.*, *). Empty: any domain."
        error={errorOf('domains')}
        control={(props) => <textarea {...props} rows={3} value={values.domains} onInput={(e) => set('domains', e.currentTarget.value)} />}
      />
      <div class="field-row">
        {text('maxDevices', 'Max devices', 'Empty: no limit.')}
        {text('maxObjects', 'Max objects', 'Empty: no limit.')}
      </div>
      <div class="field-row">
        {text('perSecond', 'Rate per second', 'Events per second, 0.001 to 1000000. Empty: no rate limit.')}
        {text('burst', 'Burst', 'Events at once above the rate, 1 to 1000000.')}
      </div>
      {text('expiresAt', 'Expires at', 'In UTC. Empty: never expires.', 'datetime-local')}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
