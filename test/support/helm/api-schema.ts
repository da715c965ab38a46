// Kubernetes API schemas (kubernetes-models: compiled from the API's OpenAPI; types, enums and
// required fields are checked, unknown fields are not), so rendered objects are checked offline.
import * as kubernetesModels from 'kubernetes-models';
import * as prometheusOperatorModels from '@kubernetes-models/prometheus-operator';
import type { K8sManifest } from './render-chart.js';

type Model = (new (data: object) => { validate(): void }) & { apiVersion?: unknown; kind?: unknown };
const models = new Map<string, Model>();
const collectModels = (namespace: object): void => {
  for (const value of Object.values(namespace)) {
    if (typeof value === 'function' && typeof (value as Model).apiVersion === 'string') models.set(`${String((value as Model).apiVersion)}/${String((value as Model).kind)}`, value as Model);
    else if (typeof value === 'object' && value !== null) collectModels(value);
  }
};
collectModels(kubernetesModels);
collectModels(prometheusOperatorModels);

/** Problems of each object against its API schema; an empty list means every object is valid. */
export function apiSchemaProblems(objects: K8sManifest[]): string[] {
  return objects.flatMap((object) => {
    const id = `${object.kind}/${object.metadata.name}`;
    const Model = models.get(`${object.apiVersion}/${object.kind}`);
    if (!Model) return [`${id}: no schema for ${object.apiVersion} ${object.kind}`];
    try {
      new Model(object).validate();
      return [];
    } catch (err) {
      return [`${id}: ${(err as Error).message}`];
    }
  });
}
