import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { Field, TextInput } from '../components/field.js';
import { CHANGE_KINDS, webhookInputOf, type WebhookFormValues, type WebhookInput } from '../webhook-form-model.js';

interface WebhookFormProps {
  initial: WebhookFormValues;
  submitLabel: 'Create webhook' | 'Save';
  title: string;
  /** Editing: the form has no "Enabled" box (the table's Enable and Disable are the switch). */
  editing: boolean;
  /** Sends the form; an ApiError it throws is shown next to the field it names. */
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel: () => void;
}

type ListInput = 'domains' | 'eventTypes' | 'deviceNames';

/** The webhook's URL, description and filter: one form for creating and editing. */
export function WebhookForm({ initial, submitLabel, title, editing, onSubmit, onCancel }: WebhookFormProps) {
  const [values, setValues] = useState(initial);
  const [refusal, setRefusal] = useState<{ input: WebhookInput | undefined; message: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof WebhookFormValues>(key: K, value: WebhookFormValues[K]) => setValues((before) => ({ ...before, [key]: value }));
  const errorOf = (input: WebhookInput) => (refusal?.input === input ? refusal.message : undefined);
  const list = (input: ListInput, label: string, hint: string) => (
    <Field
      id={`webhook-${input}`}
      label={label}
      hint={hint}
      error={errorOf(input)}
      control={(props) => <textarea {...props} rows={2} value={values[input]} onInput={(e) => set(input, e.currentTarget.value)} />}
    />
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await onSubmit(values);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      setRefusal({ input: err instanceof ApiError ? webhookInputOf(err.field) : undefined, message });
      setBusy(false);
    }
  };

  return (
    <form class="token-form" onSubmit={submit} aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">{title}</h2>
      {refusal && refusal.input === undefined && (
        <p role="alert" class="error">
          {refusal.message}
        </p>
      )}
      <Field
        id="webhook-url"
        label="URL"
        hint="http or https; where each matching change is POSTed, signed with the webhook's secret."
        error={errorOf('url')}
        control={(props) => <TextInput {...props} value={values.url} onValue={(v) => set('url', v)} />}
      />
      <Field
        id="webhook-description"
        label="Description"
        hint="Who receives it, for the people reading this list."
        error={errorOf('description')}
        control={(props) => <TextInput {...props} value={values.description} onValue={(v) => set('description', v)} />}
      />
      <KindBoxes kinds={values.kinds} error={errorOf('kinds')} onChange={(kinds) => set('kinds', kinds)} />
      {list('domains', 'Domains', 'Object domain patterns, one per line (acme.camera.video, acme.camera.*, *). Empty: any domain.')}
      <div class="field-row">
        {list('eventTypes', 'Event types', 'One per line. Empty: any event type.')}
        {list('deviceNames', 'Device names', 'One per line. Empty: any device.')}
      </div>
      {!editing && (
        <label class="check">
          <input type="checkbox" checked={values.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
          Enabled
        </label>
      )}
      {errorOf('enabled') && <span class="field-error">{errorOf('enabled')}</span>}
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

/** The kinds of change, one box each (event.created ticked for a new webhook). */
function KindBoxes({ kinds, error, onChange }: { kinds: WebhookFormValues['kinds']; error: string | undefined; onChange: (kinds: WebhookFormValues['kinds']) => void }) {
  return (
    <fieldset aria-describedby={error ? 'webhook-kinds-error' : undefined}>
      <legend>What it receives</legend>
      {CHANGE_KINDS.map((kind) => (
        <label class="check" key={kind}>
          <input type="checkbox" checked={kinds[kind]} onChange={(e) => onChange({ ...kinds, [kind]: e.currentTarget.checked })} />
          {kind}
        </label>
      ))}
      {error && (
        <span class="field-error" id="webhook-kinds-error">
          {error}
        </span>
      )}
    </fieldset>
  );
}
