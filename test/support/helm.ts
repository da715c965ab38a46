// Offline support for the Helm chart tests (no helm binary can be installed here):
//   chart files, values and schema loading, values merging like `helm -f`,
//   renderChart(): a small interpreter of the Go-template + Sprig subset the chart uses.
// The interpreter follows Helm where the chart could go wrong: numbers from values are float64
// (printed as 1.6777216e+07 past six digits), comparing an int with a float is an error, typed
// Sprig arguments (int, string, bool) are enforced, a field of a nil value is an error, and
// {{- -}} trim whitespace. It is not Helm: `helm template` stays the authority (.ci/run runs it
// when a helm binary is on PATH).
//
// The code lives in ./helm/: go-values (Go ints, printing, truth), lexer, parser, functions (Go
// builtins and Sprig), evaluator, chart (files and values), render-chart, values-schema (API schemas: test/support/k8s.ts).
// This file keeps the one import path the tests use.
export { CHART_DIR, chartSchema, chartValues, type Json, type JsonObject, mergeValues, readChartFile, templateFiles } from './helm/chart.js';
export { renderString } from './helm/evaluator.js';
export { GoInt, goPrint, TemplateFailure } from './helm/go-values.js';
export { findObject, type K8sManifest, type RenderOptions, type Rendered, renderChart } from './helm/render-chart.js';
export { childSchema, isFreeFormMap, resolveRef, schemaAt, templateValueReferences, valuePaths, type ValuesReference, valuesTable } from './helm/values-schema.js';
