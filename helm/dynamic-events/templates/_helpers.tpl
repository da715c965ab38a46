{{/*
Chart name, overridable with nameOverride.
*/}}
{{- define "dynamic-events.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full resource-name prefix: fullnameOverride, else "<release>-<chart name>" (the release name alone
when it already contains the chart name). 63 characters at most (DNS label).
*/}}
{{- define "dynamic-events.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Name of one of the release's objects: the full name plus a suffix, cut to 63 characters.
Usage: include "dynamic-events.componentName" (list . "registry-headless")
*/}}
{{- define "dynamic-events.componentName" -}}
{{- $root := index . 0 }}
{{- printf "%s-%s" (include "dynamic-events.fullname" $root | trunc 50 | trimSuffix "-") (index . 1) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Value of the helm.sh/chart label.
*/}}
{{- define "dynamic-events.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels of a component: the labels a Deployment selects its pods by (never change them
on upgrade: a Deployment's selector is immutable).
Usage: include "dynamic-events.selectorLabels" (dict "context" . "component" "registry-service")
*/}}
{{- define "dynamic-events.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dynamic-events.name" .context }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{/*
The labels of every object: selector labels plus part-of, version, managed-by and helm.sh/chart.
The one labels helper; it takes the component (ingest-gateway, registry-service, media-service,
migrations, or "" for the ServiceAccount every component shares).
Usage: include "dynamic-events.labels" (dict "context" . "component" "registry-service")
*/}}
{{- define "dynamic-events.labels" -}}
{{ include "dynamic-events.selectorLabels" . }}
app.kubernetes.io/part-of: dynamic-events
app.kubernetes.io/version: {{ .context.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .context.Release.Service }}
helm.sh/chart: {{ include "dynamic-events.chart" .context }}
{{- end }}

{{/*
ServiceAccount the pods run as.
*/}}
{{- define "dynamic-events.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "dynamic-events.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image reference of a component; the tag defaults to the chart's appVersion.
Usage: include "dynamic-events.image" (dict "context" . "image" .Values.registry.image)
*/}}
{{- define "dynamic-events.image" -}}
{{- printf "%s:%s" .image.repository (default .context.Chart.AppVersion .image.tag | toString) }}
{{- end }}

{{/*
Name of the Secret the chart creates from inline values (token, connection strings, S3 keys).
*/}}
{{- define "dynamic-events.secretName" -}}
{{- include "dynamic-events.fullname" . }}
{{- end }}

{{/*
Public origin for image URLs: publicBaseUrl, else the first Ingress host (https when a TLS entry
lists it), else empty.
*/}}
{{- define "dynamic-events.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl }}
{{- .Values.publicBaseUrl | trimSuffix "/" }}
{{- else if and .Values.gateway.ingress.enabled .Values.gateway.ingress.hosts }}
{{- $host := (first .Values.gateway.ingress.hosts).host }}
{{- if $host }}
{{- $scheme := "http" }}
{{- range .Values.gateway.ingress.tls }}
{{- if has $host (default (list) .hosts) }}
{{- $scheme = "https" }}
{{- end }}
{{- end }}
{{- printf "%s://%s" $scheme $host }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Refuses a PodDisruptionBudget that could never allow an eviction.
Usage: include "dynamic-events.validatePdb" (dict "key" "gateway" "values" .Values.gateway)
*/}}
{{- define "dynamic-events.validatePdb" -}}
{{- $replicas := int .values.replicaCount }}
{{- $source := "replicaCount" }}
{{- if .values.autoscaling.enabled }}
{{- $replicas = int .values.autoscaling.minReplicas }}
{{- $source = "autoscaling.minReplicas" }}
{{- end }}
{{- if lt $replicas 2 }}
{{- fail (printf "%s.pdb.enabled needs at least 2 replicas (%s.%s is %d): a PodDisruptionBudget over a single pod never allows an eviction, so it would block node drains and cluster upgrades. Raise %s.%s or disable %s.pdb." .key .key $source $replicas .key $source .key) }}
{{- end }}
{{- end }}

{{/*
Refuses terminationGracePeriodSeconds that would kill a pod before it has drained.
Usage: include "dynamic-events.validateShutdown" (dict "key" "gateway" "values" .Values.gateway)
*/}}
{{- define "dynamic-events.validateShutdown" -}}
{{- $needed := add .values.drainDelaySeconds .values.shutdownTimeoutSeconds }}
{{- if le (int .values.terminationGracePeriodSeconds) (int $needed) }}
{{- fail (printf "%s.terminationGracePeriodSeconds (%d) must exceed %s.drainDelaySeconds + %s.shutdownTimeoutSeconds (%d): the pod would be killed before in-flight calls finish." .key (int .values.terminationGracePeriodSeconds) .key .key (int $needed)) }}
{{- end }}
{{- end }}

{{/*
Environment shared by the three services (they read it once at start-up).
Usage: include "dynamic-events.commonEnv" (dict "context" . "values" .Values.gateway)
*/}}
{{- define "dynamic-events.commonEnv" -}}
LOG_LEVEL: {{ .context.Values.logLevel | quote }}
DRAIN_DELAY_MS: {{ mul .values.drainDelaySeconds 1000 | quote }}
SHUTDOWN_TIMEOUT_MS: {{ mul .values.shutdownTimeoutSeconds 1000 | quote }}
{{- end }}

{{/*
Pod-level settings every workload shares: no API token, no service-link variables (the services
read their settings from the environment, and every Service in the namespace would add
<NAME>_PORT=tcp://... variables to it), pull secrets, security context. (The service account is
set by each workload: the migration hook runs before the chart's own ServiceAccount exists.)
*/}}
{{- define "dynamic-events.podCommon" -}}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}

{{/*
The writable /tmp every container mounts (the root filesystem is read-only).
*/}}
{{- define "dynamic-events.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}

{{/*
Refuses a registry without a database: unset DATABASE_URL would start embedded Postgres, which is
only for `npm start`.
*/}}
{{- define "dynamic-events.validateDatabase" -}}
{{- if not (or .Values.postgres.url .Values.postgres.existingSecret) }}
{{- fail "The registry needs PostgreSQL: set postgres.url (postgres://user:password@host:5432/database) or postgres.existingSecret (a Secret holding that URL under postgres.existingSecretKey)." }}
{{- end }}
{{- end }}

{{/*
Refuses media without S3: unset S3_ENDPOINT would store images on the pod's /tmp.
*/}}
{{- define "dynamic-events.validateStorage" -}}
{{- if not .Values.s3.endpoint }}
{{- fail "Media needs S3-compatible storage: set s3.endpoint (e.g. http://minio.storage:9000)." }}
{{- end }}
{{- if not (or .Values.s3.existingSecret (and .Values.s3.accessKey .Values.s3.secretKey)) }}
{{- fail "Media needs S3 credentials: set s3.accessKey and s3.secretKey, or s3.existingSecret (a Secret holding them under s3.existingSecretKeys.accessKey and .secretKey)." }}
{{- end }}
{{- end }}

{{/*
DATABASE_URL from postgres.existingSecret, else from the given Secret's database-url key.
Usage: include "dynamic-events.databaseUrlEnv" (dict "context" . "secret" "<name of the chart's Secret>")
*/}}
{{- define "dynamic-events.databaseUrlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if .context.Values.postgres.existingSecret }}
      name: {{ .context.Values.postgres.existingSecret }}
      key: {{ .context.Values.postgres.existingSecretKey }}
      {{- else }}
      name: {{ .secret }}
      key: database-url
      {{- end }}
{{- end }}

{{/*
A Deployment's update strategy. rollingUpdate is left out unless the type is RollingUpdate: the API
refuses it beside Recreate, and values.yaml's default pace would otherwise merge into a Recreate
override.
Usage: include "dynamic-events.strategy" (dict "values" .Values.gateway)
*/}}
{{- define "dynamic-events.strategy" -}}
type: {{ .values.strategy.type }}
{{- if and (eq .values.strategy.type "RollingUpdate") .values.strategy.rollingUpdate }}
rollingUpdate:
  {{- toYaml .values.strategy.rollingUpdate | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A component's topologySpreadConstraints: its own list when given, else (with spreadAcrossNodes)
one spread over nodes by its selector labels, soft so that a single node still schedules every pod.
matchLabelKeys counts only the pods of the current ReplicaSet: during a rollout the old pods, about
to go, would otherwise skew where the new ones land.
Usage: include "dynamic-events.topologySpread" (dict "context" . "component" "registry-service" "values" .Values.registry)
*/}}
{{- define "dynamic-events.topologySpread" -}}
{{- if .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml .values.topologySpreadConstraints | nindent 2 }}
{{- else if .values.spreadAcrossNodes }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "dynamic-events.selectorLabels" (dict "context" .context "component" .component) | nindent 8 }}
    matchLabelKeys:
      - pod-template-hash
{{- end }}
{{- end }}

{{/*
A component's pod annotations besides the checksums: its podAnnotations over the prometheus.io
ones (metrics.prometheusAnnotations), merged so that a key set in both appears once, the user's.
Usage: include "dynamic-events.podAnnotations" (dict "context" . "values" .Values.media "metricsPort" 9466)
*/}}
{{- define "dynamic-events.podAnnotations" -}}
{{- $annotations := deepCopy (default (dict) .values.podAnnotations) }}
{{- if .context.Values.metrics.prometheusAnnotations }}
{{- $annotations = merge $annotations (dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString .metricsPort) "prometheus.io/path" "/metrics") }}
{{- end }}
{{- with $annotations }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/*
DYNAMIC_EVENTS_TOKEN (the bootstrap token) from the user's Secret or the chart's: the gateway
accepts it, the registry lists it. Renders nothing without a token.
*/}}
{{- define "dynamic-events.bootstrapTokenEnv" -}}
{{- if .Values.gateway.auth.existingSecret }}
- name: DYNAMIC_EVENTS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ .Values.gateway.auth.existingSecret }}
      key: {{ .Values.gateway.auth.existingSecretKey }}
{{- else if .Values.gateway.auth.token }}
- name: DYNAMIC_EVENTS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "dynamic-events.componentName" (list . "gateway") }}
      key: token
{{- end }}
{{- end }}

{{/*
REGISTRY_INTERNAL_TOKEN from the user's Secret or the chart's (registry/internal-secret.yaml): the
registry requires it of every TokenService call, the gateways present it.
*/}}
{{- define "dynamic-events.internalTokenEnv" -}}
- name: REGISTRY_INTERNAL_TOKEN
  valueFrom:
    secretKeyRef:
      {{- if .Values.internalAuth.existingSecret }}
      name: {{ .Values.internalAuth.existingSecret }}
      key: {{ .Values.internalAuth.existingSecretKey }}
      {{- else }}
      name: {{ include "dynamic-events.componentName" (list . "internal") }}
      key: registry-internal-token
      {{- end }}
{{- end }}

{{/*
Refuses a registry egress policy that would cut the registry off: one that cannot apply (no
NetworkPolicy), or one without the database's (or the configured Redis's) peers. An empty peer
list in an egress rule would admit every destination, so the chart never renders one.
*/}}
{{- define "dynamic-events.validateRegistryEgress" -}}
{{- $egress := .Values.networkPolicy.registryEgress }}
{{- if $egress.enabled }}
{{- if not .Values.networkPolicy.enabled }}
{{- fail "networkPolicy.registryEgress.enabled needs networkPolicy.enabled: the egress rules are part of the registry's NetworkPolicy." }}
{{- end }}
{{- if not $egress.postgres.to }}
{{- fail "networkPolicy.registryEgress.postgres.to must name the database (NetworkPolicyPeers: an ipBlock, or namespace and pod selectors): the chart cannot know where postgres.url points, and a registry without its database never becomes ready." }}
{{- end }}
{{- if not $egress.postgres.ports }}
{{- fail "networkPolicy.registryEgress.postgres.ports must list the database's ports." }}
{{- end }}
{{- if and (or .Values.redis.url .Values.redis.existingSecret) (not (and $egress.redis.to $egress.redis.ports)) }}
{{- fail "networkPolicy.registryEgress.redis.to (and .ports) must name Redis (NetworkPolicyPeers) while redis.url or redis.existingSecret is set: the chart cannot know where it points." }}
{{- end }}
{{- end }}
{{- end }}

{{/*
WEBHOOK_SECRET_KEY from the user's Secret or the chart's (registry/webhook-secret.yaml): it seals
the webhooks' signing secrets, so only the registry, which delivers the webhooks, gets it.
*/}}
{{- define "dynamic-events.webhookKeyEnv" -}}
- name: WEBHOOK_SECRET_KEY
  valueFrom:
    secretKeyRef:
      {{- if .Values.webhooks.existingSecret }}
      name: {{ .Values.webhooks.existingSecret }}
      key: {{ .Values.webhooks.existingSecretKey }}
      {{- else }}
      name: {{ include "dynamic-events.componentName" (list . "webhooks") }}
      key: webhook-secret-key
      {{- end }}
{{- end }}
