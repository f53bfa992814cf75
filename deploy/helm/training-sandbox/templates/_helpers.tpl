{{/*
Who calls whom, which keys each process reads, and which stores it uses. This
is the system's shape, not configuration: the NetworkPolicies, the
*_GRPC_ADDR variables and the secret references are all derived from it.
*/}}
{{- define "ts.topology" -}}
gateway:
  protocol: http
  peers: [identity, oauth, data, playground]
  secretKeys: []
  # Redis: the fair-share counts (rate limits, slow requests), shared by every gateway replica.
  stores: [redis]
identity:
  protocol: grpc
  peers: []
  secretKeys: [CREDENTIAL_ENCRYPTION_KEY, SESSION_SIGNING_KEY]
  # Redis: the sign-in throttle's counts, shared by every identity replica.
  stores: [mongodb, redis]
oauth:
  protocol: grpc
  peers: [identity]
  secretKeys: [JWT_SIGNING_KEY]
  stores: [redis]
data:
  protocol: grpc
  peers: []
  secretKeys: [PAGE_TOKEN_KEY]
  stores: []
playground:
  protocol: grpc
  peers: []
  secretKeys: []
  stores: []
{{- end -}}

{{/* The variable that carries each store's URL. */}}
{{- define "ts.storeUrlKeys" -}}
mongodb: MONGO_URL
redis: REDIS_URL
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

{{/* The chart's own Secret for the in-cluster stores' passwords and URLs. */}}
{{- define "ts.storesSecretName" -}}
{{- printf "%s-stores" (include "ts.fullname" .) -}}
{{- end -}}

{{- define "ts.inClusterStores" -}}
{{- eq .Values.stores.mode "inCluster" -}}
{{- end -}}

{{/*
The keys one process reads, each with the Secret it comes from, as YAML
{KEY: secretName}: (dict "root" $ "name" "identity"). Store URLs come from the
chart's stores Secret in inCluster mode, from the keys Secret in external
mode, and not at all in memory mode.
*/}}
{{- define "ts.secretRefs" -}}
{{- $root := .root -}}
{{- $topo := index (include "ts.topology" $root | fromYaml) .name -}}
{{- $urlKeys := include "ts.storeUrlKeys" $root | fromYaml -}}
{{- $refs := dict -}}
{{- range $key := $topo.secretKeys -}}
{{- $_ := set $refs $key (include "ts.secretName" $root) -}}
{{- end -}}
{{- /* Single sign-on: the gateway's cookie key, and a confidential client's secret (optional in a Secret you manage). */ -}}
{{- if and (eq .name "gateway") $root.Values.sso.clientId -}}
{{- $_ := set $refs "SSO_COOKIE_KEY" (include "ts.secretName" $root) -}}
{{- if or $root.Values.secrets.existingSecret $root.Values.secrets.values.SSO_CLIENT_SECRET -}}
{{- $_ := set $refs "SSO_CLIENT_SECRET" (include "ts.secretName" $root) -}}
{{- end -}}
{{- end -}}
{{- range $store := $topo.stores -}}
{{- if eq $root.Values.stores.mode "inCluster" -}}
{{- $_ := set $refs (index $urlKeys $store) (include "ts.storesSecretName" $root) -}}
{{- else if eq $root.Values.stores.mode "external" -}}
{{- $_ := set $refs (index $urlKeys $store) (include "ts.secretName" $root) -}}
{{- end -}}
{{- end -}}
{{- toYaml $refs -}}
{{- end -}}

{{/*
The data of the keys Secret the chart renders, as JSON {KEY: base64}, worked
out once per render (kept on the root context): a key given in
secrets.values wins; else the value the Secret already holds in the cluster
(so generated keys survive upgrades); else a new random one. Computed once
so the Secret and the pods' checksum annotation see the same keys.
*/}}
{{- define "ts.keysSecretData" -}}
{{- if not (hasKey . "tsKeysSecretData") -}}
{{- $existing := include "ts.clusterSecretData" (dict "root" . "name" (include "ts.secretName" .)) | fromYaml -}}
{{- $data := dict -}}
{{- $generated := list "CREDENTIAL_ENCRYPTION_KEY" "SESSION_SIGNING_KEY" "PAGE_TOKEN_KEY" "JWT_SIGNING_KEY" -}}
{{- if .Values.sso.clientId -}}
{{- $generated = append $generated "SSO_COOKIE_KEY" -}}
{{- end -}}
{{- range $key := $generated -}}
{{- $given := index $.Values.secrets.values $key -}}
{{- if $given -}}
{{- $_ := set $data $key ($given | b64enc) -}}
{{- else if index $existing $key -}}
{{- $_ := set $data $key (index $existing $key) -}}
{{- else if eq $key "JWT_SIGNING_KEY" -}}
{{- $_ := set $data $key (genPrivateKey "rsa" | b64enc) -}}
{{- else -}}
{{- $_ := set $data $key (randBytes 32 | b64enc) -}}
{{- end -}}
{{- end -}}
{{- with .Values.secrets.values.SSO_CLIENT_SECRET -}}
{{- $_ := set $data "SSO_CLIENT_SECRET" (. | b64enc) -}}
{{- end -}}
{{- if eq .Values.stores.mode "external" -}}
{{- range $key := list "MONGO_URL" "REDIS_URL" -}}
{{- $_ := set $data $key (index $.Values.secrets.values $key | b64enc) -}}
{{- end -}}
{{- end -}}
{{- $_ := set . "tsKeysSecretData" $data -}}
{{- end -}}
{{- toJson .tsKeysSecretData -}}
{{- end -}}

{{/*
The in-cluster stores' Secret data, as JSON {key: base64}, once per render:
passwords kept from the cluster or generated, the URLs the services use, and
Redis's configuration (it carries the password, so it is secret too).
*/}}
{{- define "ts.storesSecretData" -}}
{{- if not (hasKey . "tsStoresSecretData") -}}
{{- $existing := include "ts.clusterSecretData" (dict "root" . "name" (include "ts.storesSecretName" .)) | fromYaml -}}
{{- $passwords := dict -}}
{{- range $key := list "mongodb-password" "redis-password" -}}
{{- $_ := set $passwords $key (index $existing $key | default "" | b64dec | default (randAlphaNum 32)) -}}
{{- end -}}
{{- $mongo := include "ts.componentName" (dict "root" . "name" "mongodb") -}}
{{- $redis := include "ts.componentName" (dict "root" . "name" "redis") -}}
{{- $m := .Values.stores.mongodb -}}
{{- $r := .Values.stores.redis -}}
{{- $redisConf := list
  (printf "requirepass %s" (index $passwords "redis-password"))
  (printf "port %d" (int $r.port))
  "bind * -::*"
  "dir /data"
  "appendonly yes"
  (printf "maxmemory %s" $r.maxmemory)
  "maxmemory-policy noeviction"
  "" | join "\n" -}}
{{- $data := dict
  "mongodb-password" (index $passwords "mongodb-password" | b64enc)
  "redis-password" (index $passwords "redis-password" | b64enc)
  "MONGO_URL" (printf "mongodb://sandbox:%s@%s:%d/training-sandbox?authSource=admin" (index $passwords "mongodb-password") $mongo (int $m.port) | b64enc)
  "REDIS_URL" (printf "redis://:%s@%s:%d" (index $passwords "redis-password") $redis (int $r.port) | b64enc)
  "redis.conf" ($redisConf | b64enc) -}}
{{- $_ := set . "tsStoresSecretData" $data -}}
{{- end -}}
{{- toJson .tsStoresSecretData -}}
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

{{/* A number as the processes parse it: whole numbers as integers (YAML's 1000000 would otherwise print as 1e+06). */}}
{{- define "ts.number" -}}
{{- if eq (float64 .) (float64 (int64 .)) -}}{{ int64 . }}{{- else -}}{{ . }}{{- end -}}
{{- end -}}

{{- define "ts.trustProxy" -}}
{{- or .Values.ingress.enabled .Values.gateway.trustProxy -}}
{{- end -}}

{{/* Fails the render on settings that would break at run time. */}}
{{- define "ts.validate" -}}
{{- if and .Values.secrets.existingSecret (gt (len (compact (values .Values.secrets.values))) 0) -}}
{{- fail "secrets: set either secrets.existingSecret or secrets.values, not both" -}}
{{- end -}}
{{- range $name, $_ := .Values.services -}}
{{- $s := include "ts.settings" (dict "root" $ "name" $name) | fromYaml -}}
{{- if le (int $s.terminationGracePeriodSeconds) (add (int $s.shutdownGraceSeconds) (int $s.preStopSleepSeconds)) -}}
{{- fail (printf "services.%s: terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds (%d) plus shutdownGraceSeconds (%d)" $name (int $s.terminationGracePeriodSeconds) (int $s.preStopSleepSeconds) (int $s.shutdownGraceSeconds)) -}}
{{- end -}}
{{- if and $s.hpa.enabled (gt (int $s.hpa.minReplicas) (int $s.hpa.maxReplicas)) -}}
{{- fail (printf "services.%s.hpa: minReplicas exceeds maxReplicas" $name) -}}
{{- end -}}
{{- end -}}
{{- $body := .Values.ingress.maxBodySize -}}
{{- if and (hasSuffix "m" (lower $body)) (lt (int (trimSuffix "m" (lower $body))) 26) -}}
{{- fail (printf "ingress.maxBodySize (%s) must be at least 26m: uploads are up to 25 MiB plus their multipart framing" $body) -}}
{{- end -}}
{{- end -}}

{{/*
What the Ingress controller named by ingress.controller needs for the
sandbox: a read timeout above the 60 s /playground/timeout, a body limit
above the 25 MiB uploads, and request buffering off (uploads stream to the
playground service as they arrive) where the controller has the switch.
*/}}
{{- define "ts.ingressControllerAnnotations" -}}
{{- $i := .Values.ingress -}}
{{- $timeout := int $i.timeoutSeconds -}}
{{- if eq $i.controller "ingress-nginx" -}}
nginx.ingress.kubernetes.io/proxy-read-timeout: {{ $timeout | quote }}
nginx.ingress.kubernetes.io/proxy-send-timeout: {{ $timeout | quote }}
nginx.ingress.kubernetes.io/proxy-body-size: {{ $i.maxBodySize | quote }}
nginx.ingress.kubernetes.io/proxy-request-buffering: "off"
nginx.ingress.kubernetes.io/proxy-buffering: "off"
{{- else if eq $i.controller "nginx" -}}
nginx.org/proxy-read-timeout: {{ printf "%ds" $timeout | quote }}
nginx.org/proxy-send-timeout: {{ printf "%ds" $timeout | quote }}
nginx.org/client-max-body-size: {{ $i.maxBodySize | quote }}
nginx.org/proxy-buffering: "false"
{{- else if eq $i.controller "haproxy" -}}
haproxy.org/timeout-server: {{ printf "%ds" $timeout | quote }}
haproxy.org/timeout-client: {{ printf "%ds" $timeout | quote }}
{{- else if eq $i.controller "alb" -}}
alb.ingress.kubernetes.io/load-balancer-attributes: {{ printf "idle_timeout.timeout_seconds=%d" $timeout | quote }}
{{- end -}}
{{- end -}}
