{{/*
Who calls whom, and what each process reads from the Secret. This is the
system's shape, not configuration: the NetworkPolicies, the *_GRPC_ADDR
variables and the secret references are all derived from it.
*/}}
{{- define "ts.topology" -}}
gateway:
  protocol: http
  peers: [identity, oauth, data, playground]
  secretKeys: []
identity:
  protocol: grpc
  peers: []
  # Redis: the sign-in throttle's counts, shared by every identity replica.
  secretKeys: [MONGO_URL, REDIS_URL, CREDENTIAL_ENCRYPTION_KEY, SESSION_SIGNING_KEY]
  stores: [mongodb, redis]
oauth:
  protocol: grpc
  peers: [identity]
  secretKeys: [REDIS_URL]
  stores: [redis]
data:
  protocol: grpc
  peers: []
  secretKeys: [PAGE_TOKEN_KEY]
playground:
  protocol: grpc
  peers: []
  secretKeys: []
{{- end -}}

{{- define "ts.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Leaves room for "-playground" within the 63-character name limit. */}}
{{- define "ts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one service's objects: (dict "root" $ "name" "identity") */}}
{{- define "ts.componentName" -}}
{{- printf "%s-%s" (include "ts.fullname" .root) .name -}}
{{- end -}}

{{- define "ts.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ts.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ts.labels" -}}
helm.sh/chart: {{ include "ts.chart" . }}
{{ include "ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: training-sandbox
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* (dict "root" $ "name" "identity") */}}
{{- define "ts.componentSelectorLabels" -}}
{{ include "ts.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "ts.componentLabels" -}}
{{ include "ts.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
One service's settings: the defaults block with services.<name> merged over it
(maps merge key by key; lists and scalars replace).
*/}}
{{- define "ts.settings" -}}
{{- $override := index .root.Values.services .name | default dict -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.defaults) (deepCopy $override)) -}}
{{- end -}}

{{- define "ts.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "ts.fullname" .)) -}}
{{- end -}}

{{- define "ts.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "ts.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "ts.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository ($image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* A gRPC service's port, by name: (dict "root" $ "name" "identity") */}}
{{- define "ts.grpcPort" -}}
{{- $settings := include "ts.settings" . | fromYaml -}}
{{- $settings.port | int -}}
{{- end -}}

{{/* The gRPC target its callers use: every pod of a headless Service, round-robin. */}}
{{- define "ts.grpcTarget" -}}
{{- printf "dns:///%s:%d" (include "ts.componentName" .) (include "ts.grpcPort" . | int) -}}
{{- end -}}

{{- define "ts.trustProxy" -}}
{{- or .Values.ingress.enabled .Values.gateway.trustProxy -}}
{{- end -}}

{{/* The keys the pods will read that the Secret the chart renders lacks. */}}
{{- define "ts.missingSecretKeys" -}}
{{- $missing := list -}}
{{- if not .Values.secrets.existingSecret -}}
{{- range $name, $topo := include "ts.topology" . | fromYaml -}}
{{- range $key := $topo.secretKeys -}}
{{- if not (index $.Values.secrets.values $key) -}}
{{- $missing = append $missing $key -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $missing | join ", " -}}
{{- end -}}

{{/* Fails the render on settings that would break at run time. */}}
{{- define "ts.validate" -}}
{{- if and .Values.secrets.existingSecret (gt (len (compact (values .Values.secrets.values))) 0) -}}
{{- fail "secrets: set either secrets.existingSecret or secrets.values, not both" -}}
{{- end -}}
{{- range $name, $_ := .Values.services -}}
{{- $s := include "ts.settings" (dict "root" $ "name" $name) | fromYaml -}}
{{- if le (int $s.terminationGracePeriodSeconds) (add 10 (int $s.preStopSleepSeconds)) -}}
{{- fail (printf "services.%s: terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds (%d) plus the 10 s drain" $name (int $s.terminationGracePeriodSeconds) (int $s.preStopSleepSeconds)) -}}
{{- end -}}
{{- if and $s.hpa.enabled (gt (int $s.hpa.minReplicas) (int $s.hpa.maxReplicas)) -}}
{{- fail (printf "services.%s.hpa: minReplicas exceeds maxReplicas" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
