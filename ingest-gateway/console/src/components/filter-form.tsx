import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

interface FilterFormProps {
  /** Filter names, each with its label: the form holds one text input per filter. */
  fields: ReadonlyArray<{ name: string; label: string; type?: 'text' | 'search'; hint?: string; placeholder?: string }>;
  initial: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
  /** More controls placed in the form (a select). */
  extra?: (values: Record<string, string>, set: (name: string, value: string) => void) => ComponentChildren;
}

/** A row of labelled filter inputs applied together with "Apply" (or Enter in any of them). */
export function FilterForm({ fields, initial, onApply, extra }: FilterFormProps) {
  const [values, setValues] = useState(initial);
  const set = (name: string, value: string) => setValues((before) => ({ ...before, [name]: value }));
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(values);
      }}
    >
      {fields.map((field) => (
        <div class="field" key={field.name}>
          <label for={`filter-${field.name}`}>{field.label}</label>
          <input
            id={`filter-${field.name}`}
            type={(field.type ?? 'text') as 'text'}
            value={values[field.name] ?? ''}
            placeholder={field.placeholder}
            aria-describedby={field.hint ? `filter-${field.name}-hint` : undefined}
            onInput={(e) => set(field.name, e.currentTarget.value)}
          />
          {field.hint && (
            <span class="hint" id={`filter-${field.name}-hint`}>
              {field.hint}
            </span>
          )}
        </div>
      ))}
      {extra?.(values, set)}
      <button type="submit">Apply</button>
    </form>
  );
}
