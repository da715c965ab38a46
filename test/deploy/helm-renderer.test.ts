// The offline Go-template interpreter behind the chart tests (test/support/helm.ts) behaves like
// Helm on the points where a chart breaks: whitespace trimming, float64 values, typed arguments,
// comparisons across int and float, nil fields, `(x).Field` versus `(x) .Field`, else-if chains.
// Each expectation below is what Helm 3 (Go text/template + Sprig) produces for the same input.
import { describe, expect, it } from 'vitest';
import { GoInt, goPrint, renderString, TemplateFailure } from '../support/helm.js';

describe('Go-template interpreter', () => {
  it('trims whitespace at {{- and -}} only', () => {
    expect(renderString('a:\n  {{- " b" }}\nc: {{ "d" -}}   \n  e', {})).toBe('a: b\nc: de');
  });

  it('prints YAML numbers as Go prints float64 (exponent from 1e6), and Sprig ints plainly', () => {
    expect(renderString('{{ .n }} {{ .n | int64 }} {{ .small }} {{ .half }}', { n: 16777216, small: 50051, half: 0.5 })).toBe('1.6777216e+07 16777216 50051 0.5');
    expect(goPrint(1e6)).toBe('1e+06');
    expect(renderString('{{ mul .s 1000 | quote }}', { s: 5 })).toBe('"5000"');
  });

  it('refuses to compare an int with a float64, as Go does', () => {
    expect(() => renderString('{{ lt .n 2 }}', { n: 1 })).toThrow(/incompatible types/);
    expect(renderString('{{ lt (int .n) 2 }}', { n: 1 })).toBe('true');
  });

  it('enforces the Go types of Sprig arguments', () => {
    expect(() => renderString('{{ b64enc .n }}', { n: 1 })).toThrow(/expected string/);
    expect(() => renderString('{{ nindent .n "x" }}', { n: 4 })).toThrow(/expected int/);
    expect(() => renderString('{{ ternary 1 2 .s }}', { s: 'yes' })).toThrow(/expected bool/);
    expect(() => renderString('{{ printf "%d" .n }}', { n: 3 })).toThrow(/%d/);
  });

  it('errors on a field of a missing value, and prints a missing key as nothing', () => {
    expect(() => renderString('{{ .a.b }}', {})).toThrow(/nil pointer/);
    expect(renderString('[{{ .a }}]', {})).toBe('[]');
  });

  it('reads (x).Field as a field of x, and (x) .Field as another argument', () => {
    expect(renderString('{{ (first .l).host }}', { l: [{ host: 'h' }] })).toBe('h');
    expect(renderString('{{ default (print "d") .v }}', { v: '' })).toBe('d');
    expect(renderString('{{ default (print "d") .v }}', { v: 'x' })).toBe('x');
  });

  it('runs if / else if / else chains, with and range (with variables), and defines', () => {
    const src = '{{ define "t" }}<{{ . }}>{{ end }}{{ range $i, $v := .l }}{{ if eq $v "a" }}A{{ else if eq $v "b" }}B{{ else }}{{ include "t" $v }}{{ end }}{{ $i }}{{ end }}{{ with .m }}{{ .k }}{{ else }}none{{ end }}';
    expect(renderString(src, { l: ['a', 'b', 'c'], m: { k: 'v' } })).toBe('A0B1<c>2v');
    expect(renderString(src, { l: [], m: {} })).toBe('none');
  });

  it('short-circuits and/or, treats 0, "", empty lists and maps as false', () => {
    expect(renderString('{{ and .a .missing.x }}|{{ or .b "y" }}|{{ if .l }}t{{ else }}f{{ end }}', { a: '', b: 0, l: [] })).toBe('|y|f');
  });

  it('fail() stops rendering with its message; toYaml sorts keys like Helm', () => {
    expect(() => renderString('{{ fail "no database" }}', {})).toThrow(TemplateFailure);
    expect(renderString('{{ toYaml .m }}', { m: { b: 1, a: ['x'] } })).toBe('a:\n- x\nb: 1');
    expect(new GoInt(3).toString()).toBe('3');
  });
});
